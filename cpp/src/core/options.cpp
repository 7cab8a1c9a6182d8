// memcomp core: option checks shared by the option tables of codecs and the bus options' reader.
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

OptionValue check_option(const std::string& owner, const std::string& key, const OptionDomain& d,
                         const OptionValue& v) {
  const std::string at = owner + ": option '" + key + "' must be ";
  const auto wrong_type = [&](const char* want) { return type_error(at + want + ", got " + to_string(v)); };
  if (d.kind == "bool") {
    if (!std::holds_alternative<bool>(v)) throw wrong_type("a bool");
    return v;
  }
  if (d.kind == "int") {
    const auto* i = std::get_if<std::int64_t>(&v);
    if (!i) throw wrong_type("an integer");
    if (d.choices.empty()) {
      const auto lo = static_cast<std::int64_t>(d.lo), hi = static_cast<std::int64_t>(d.hi);
      if (*i < lo || *i > hi)
        throw invalid_argument(at + "in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                               std::to_string(*i));
      return v;
    }
    std::string list;
    for (const std::string& c : d.choices) {
      if (c == std::to_string(*i)) return v;
      list += (list.empty() ? "" : ", ") + c;
    }
    throw invalid_argument(at + "one of " + list + ", got " + std::to_string(*i));
  }
  if (d.kind == "float") {
    double x;
    if (const auto* p = std::get_if<double>(&v))
      x = *p;
    else if (const auto* q = std::get_if<std::int64_t>(&v))
      x = static_cast<double>(*q);
    else
      throw wrong_type("a number");
    if (!(x >= d.lo && x <= d.hi))
      throw invalid_argument(at + "in [" + to_string(d.lo) + ", " + to_string(d.hi) + "], got " + to_string(x));
    return x;
  }
  const auto* s = std::get_if<std::string>(&v);
  if (!s) throw wrong_type("a string");
  if (d.kind == "string") return v;
  std::string list;
  for (const std::string& c : d.choices) {
    if (*s == c) return v;
    list += (list.empty() ? "'" : ", '") + c + "'";
  }
  throw invalid_argument(at + "one of " + list + ", got '" + *s + "'");
}

void refuse_unknown_options(const std::string& owner, const Options& opts, const std::set<std::string>& known) {
  std::string unknown, valid;
  for (const auto& kv : opts)
    if (!known.count(kv.first)) unknown += (unknown.empty() ? "'" : ", '") + kv.first + "'";
  if (unknown.empty()) return;
  for (const auto& k : known) valid += (valid.empty() ? "" : ", ") + k;
  throw invalid_argument(owner + ": unknown option(s) " + unknown + "; valid options: " + valid);
}

OptionReader::OptionReader(const Options& opts, std::string codec) : opts_(opts), codec_(std::move(codec)) {}

OptionValue OptionReader::get(const std::string& key, const OptionDomain& d) {
  used_.insert(key);
  auto it = opts_.find(key);
  return it == opts_.end() ? d.dflt : check_option(codec_, key, d, it->second);
}

bool OptionReader::get_bool(const std::string& key, bool dflt) {
  return std::get<bool>(get(key, {"bool", dflt, 0, 1, {}, {}}));
}

std::int64_t OptionReader::get_int(const std::string& key, std::int64_t dflt, std::int64_t lo, std::int64_t hi) {
  return std::get<std::int64_t>(get(key, {"int", dflt, static_cast<double>(lo), static_cast<double>(hi), {}, {}}));
}

std::string OptionReader::get_choice(const std::string& key, const std::string& dflt,
                                     std::initializer_list<const char*> allowed) {
  return std::get<std::string>(
      get(key, {"choice", dflt, 0, 0, std::vector<std::string>(allowed.begin(), allowed.end()), {}}));
}

void OptionReader::finish() const { refuse_unknown_options(codec_, opts_, used_); }

}  // namespace memcomp
