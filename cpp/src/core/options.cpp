// memcomp core: option parsing for codec constructors.
#include "memcomp/core/options.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace memcomp {

std::string to_string(const OptionValue& v) {
  struct V {
    std::string operator()(bool b) const { return b ? "True" : "False"; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const {
      std::ostringstream s;
      s << d;
      return s.str();
    }
    std::string operator()(const std::string& s) const { return "'" + s + "'"; }
  };
  return std::visit(V{}, v);
}

namespace {
thread_local OptionSpace* next_space = nullptr;
}

OptionReader::OptionReader(const Options& opts, std::string codec)
    : opts_(opts), codec_(std::move(codec)), space_(next_space) {
  next_space = nullptr;
}

void OptionReader::record_next(OptionSpace* space) noexcept { next_space = space; }

void OptionReader::note(const std::string& key, OptionDomain d) {
  if (space_) (*space_)[key] = std::move(d);
}

const OptionValue* OptionReader::find(const std::string& key) {
  used_.insert(key);
  auto it = opts_.find(key);
  return it == opts_.end() ? nullptr : &it->second;
}

void OptionReader::type_error(const std::string& key, const char* want) const {
  throw invalid_argument(codec_ + ": option '" + key + "' must be " + want + ", got " + to_string(opts_.at(key)));
}

bool OptionReader::get_bool(const std::string& key, bool dflt) {
  note(key, {"bool", dflt, 0, 1, {}});
  const OptionValue* v = find(key);
  if (!v) return dflt;
  if (const auto* b = std::get_if<bool>(v)) return *b;
  type_error(key, "a bool");
}

std::int64_t OptionReader::get_int(const std::string& key, std::int64_t dflt, std::int64_t lo, std::int64_t hi) {
  note(key, {"int", dflt, static_cast<double>(lo), static_cast<double>(hi), {}});
  const OptionValue* v = find(key);
  if (!v) return dflt;
  const auto* i = std::get_if<std::int64_t>(v);
  if (!i) type_error(key, "an integer");
  if (*i < lo || *i > hi)
    throw invalid_argument(codec_ + ": option '" + key + "' must be in [" + std::to_string(lo) + ", " +
                           std::to_string(hi) + "], got " + std::to_string(*i));
  return *i;
}

std::int64_t OptionReader::get_int(const std::string& key, std::int64_t dflt,
                                   std::initializer_list<std::int64_t> allowed) {
  std::vector<std::string> names;
  std::string list;
  for (const std::int64_t a : allowed) {
    names.push_back(std::to_string(a));
    list += (list.empty() ? "" : ", ") + names.back();
  }
  const auto [lo, hi] = std::minmax(allowed);
  note(key, {"int", dflt, static_cast<double>(lo), static_cast<double>(hi), names});
  const OptionValue* v = find(key);
  if (!v) return dflt;
  const auto* i = std::get_if<std::int64_t>(v);
  if (!i) type_error(key, "an integer");
  if (std::find(allowed.begin(), allowed.end(), *i) == allowed.end())
    throw invalid_argument(codec_ + ": option '" + key + "' must be one of " + list + ", got " + std::to_string(*i));
  return *i;
}

double OptionReader::get_double(const std::string& key, double dflt, double lo, double hi) {
  note(key, {"float", dflt, lo, hi, {}});
  const OptionValue* v = find(key);
  if (!v) return dflt;
  double d;
  if (const auto* p = std::get_if<double>(v))
    d = *p;
  else if (const auto* q = std::get_if<std::int64_t>(v))
    d = static_cast<double>(*q);
  else
    type_error(key, "a number");
  if (!(d >= lo && d <= hi))
    throw invalid_argument(codec_ + ": option '" + key + "' must be in [" + to_string(lo) + ", " + to_string(hi) +
                           "], got " + to_string(d));
  return d;
}

std::string OptionReader::get_string(const std::string& key, const std::string& dflt) {
  note(key, {"string", dflt, 0, 0, {}});
  const OptionValue* v = find(key);
  if (!v) return dflt;
  const auto* s = std::get_if<std::string>(v);
  if (!s) type_error(key, "a string");
  return *s;
}

std::string OptionReader::get_choice(const std::string& key, const std::string& dflt,
                                     std::initializer_list<const char*> allowed) {
  note(key, {"choice", dflt, 0, 0, std::vector<std::string>(allowed.begin(), allowed.end())});
  const OptionValue* v = find(key);
  if (!v) return dflt;
  const auto* s = std::get_if<std::string>(v);
  if (!s) type_error(key, "a string");
  std::string list;
  for (const char* a : allowed) {
    if (*s == a) return *s;
    list += list.empty() ? "" : ", ";
    list += std::string("'") + a + "'";
  }
  throw invalid_argument(codec_ + ": option '" + key + "' must be one of " + list + ", got '" + *s + "'");
}

void OptionReader::finish() const {
  std::string unknown, known;
  for (const auto& kv : opts_)
    if (!used_.count(kv.first)) unknown += (unknown.empty() ? "'" : ", '") + kv.first + "'";
  if (unknown.empty()) return;
  for (const auto& k : used_) known += (known.empty() ? "" : ", ") + k;
  throw invalid_argument(codec_ + ": unknown option(s) " + unknown + "; valid options: " + known);
}

}  // namespace memcomp
