// memcomp core: codec options as data. Presets are option maps; Python keywords become options.
// Each codec declares its options once, in an OptionTable (name, settings field, default, domain,
// help): parsing, options(), option_space and the docs all come from that table.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "memcomp/core/bits.hpp"
#include "memcomp/core/error.hpp"

namespace memcomp {

using OptionValue = std::variant<bool, std::int64_t, double, std::string>;
using Options = std::map<std::string, OptionValue>;

std::string to_string(const OptionValue& v);

/// What values an option takes: kind "bool", "int" or "float" (in [lo, hi]; an int option taking
/// only some values lists them in `choices`), "choice" (one of `choices`) or "string" (free text:
/// models, member lists); `help` says what it means in one line.
struct OptionDomain {
  std::string kind;
  OptionValue dflt;
  double lo = 0, hi = 0;
  std::vector<std::string> choices;
  std::string help;
};
using OptionSpace = std::map<std::string, OptionDomain>;

/// `v` checked against `d` (option `key` of `owner`): the value itself, an int widened to a
/// double for a float option. Throws type_error for a wrong type, invalid_argument for a value
/// outside the domain.
OptionValue check_option(const std::string& owner, const std::string& key, const OptionDomain& d, const OptionValue& v);

/// Throws invalid_argument naming every key of `opts` not in `known`, and the valid ones.
void refuse_unknown_options(const std::string& owner, const Options& opts, const std::set<std::string>& known);

/// One option of a settings struct S: its name and domain, and how it sets and reads its field.
template <class S>
struct OptionEntry {
  OptionDomain domain;
  std::string name;
  std::function<void(S&, const OptionValue&)> set;  ///< from a value check_option accepted
  std::function<OptionValue(const S&)> get;
  /// The default when it depends on options before it in the table (null: domain.dflt, which
  /// is then what it gives for their defaults).
  std::function<OptionValue(const S&)> dflt_of = nullptr;
};

/// `e` with a default computed from the options parsed before it.
template <class S>
OptionEntry<S> with_default(OptionEntry<S> e, std::function<OptionValue(const S&)> dflt_of) {
  e.dflt_of = std::move(dflt_of);
  return e;
}

/// A codec's options, declared once: parse() builds its settings from an option map (defaults
/// for missing keys, unknown keys and wrong types refused), write() gives the map back (what
/// Codec::options() returns) and space() the domains (what option_space returns).
template <class S>
class OptionTable {
 public:
  OptionTable() = default;
  OptionTable(std::initializer_list<OptionEntry<S>> entries) : entries_(entries) {}
  /// This table and `more` (a family whose presets read a few options more).
  OptionTable(const OptionTable& base, std::initializer_list<OptionEntry<S>> more) : entries_(base.entries_) {
    entries_.insert(entries_.end(), more.begin(), more.end());
  }

  S parse(const Options& opts, const std::string& owner) const {
    S s{};
    std::set<std::string> known;
    for (const OptionEntry<S>& e : entries_) {
      known.insert(e.name);
      auto it = opts.find(e.name);
      if (it != opts.end())
        e.set(s, check_option(owner, e.name, e.domain, it->second));
      else
        e.set(s, e.dflt_of ? e.dflt_of(s) : e.domain.dflt);
    }
    refuse_unknown_options(owner, opts, known);
    return s;
  }
  Options write(const S& s) const {
    Options o;
    for (const OptionEntry<S>& e : entries_) o[e.name] = e.get(s);
    return o;
  }
  OptionSpace space() const {
    OptionSpace out;
    for (const OptionEntry<S>& e : entries_) out[e.name] = e.domain;
    return out;
  }

 private:
  std::vector<OptionEntry<S>> entries_;
};

/// The settings of a codec that takes no options.
struct NoSettings {};

namespace option_detail {
template <class T>
struct Same {
  using type = T;
};
}  // namespace option_detail

template <class S>
OptionEntry<S> option_bool(std::string name, bool S::*field, bool dflt, std::string help) {
  return {{"bool", dflt, 0, 1, {}, std::move(help)},
          std::move(name),
          [field](S& s, const OptionValue& v) { s.*field = std::get<bool>(v); },
          [field](const S& s) { return OptionValue{s.*field}; }};
}

/// An integer in [lo, hi], held in an integral field of any width.
template <class S, class T>
OptionEntry<S> option_int(std::string name, T S::*field, std::int64_t dflt, std::int64_t lo, std::int64_t hi,
                          std::string help) {
  return {{"int", dflt, static_cast<double>(lo), static_cast<double>(hi), {}, std::move(help)},
          std::move(name),
          [field](S& s, const OptionValue& v) { s.*field = static_cast<T>(std::get<std::int64_t>(v)); },
          [field](const S& s) { return OptionValue{static_cast<std::int64_t>(s.*field)}; }};
}

/// An integer from a set of values (the domain: kind "int", lo/hi its extremes, `choices` the values).
template <class S, class T>
OptionEntry<S> option_int(std::string name, T S::*field, std::int64_t dflt, std::initializer_list<std::int64_t> allowed,
                          std::string help) {
  OptionEntry<S> e = option_int(std::move(name), field, dflt, 0, 0, std::move(help));
  e.domain.lo = static_cast<double>(*std::min_element(allowed.begin(), allowed.end()));
  e.domain.hi = static_cast<double>(*std::max_element(allowed.begin(), allowed.end()));
  for (const std::int64_t a : allowed) e.domain.choices.push_back(std::to_string(a));
  return e;
}

template <class S>
OptionEntry<S> option_float(std::string name, double S::*field, double dflt, double lo, double hi, std::string help) {
  return {{"float", dflt, lo, hi, {}, std::move(help)},
          std::move(name),
          [field](S& s, const OptionValue& v) { s.*field = std::get<double>(v); },
          [field](const S& s) { return OptionValue{s.*field}; }};
}

/// Free text (a model as JSON, a member list).
template <class S>
OptionEntry<S> option_string(std::string name, std::string S::*field, std::string dflt, std::string help) {
  return {{"string", std::move(dflt), 0, 0, {}, std::move(help)},
          std::move(name),
          [field](S& s, const OptionValue& v) { s.*field = std::get<std::string>(v); },
          [field](const S& s) { return OptionValue{s.*field}; }};
}

/// One of a few names, each standing for one value of the field (an enum, a bool, the name
/// itself): the map between names and values is written here only.
template <class S, class T>
OptionEntry<S> option_choice(
    std::string name, T S::*field, std::string dflt,
    std::initializer_list<std::pair<const char*, typename option_detail::Same<T>::type>> values, std::string help) {
  std::vector<std::pair<std::string, T>> map(values.begin(), values.end());
  std::vector<std::string> names;
  names.reserve(map.size());
  for (const auto& nv : map) names.push_back(nv.first);
  return {{"choice", std::move(dflt), 0, 0, std::move(names), std::move(help)},
          std::move(name),
          [field, map](S& s, const OptionValue& v) {
            for (const auto& nv : map)
              if (nv.first == std::get<std::string>(v)) s.*field = nv.second;
          },
          [field, map](const S& s) {
            for (const auto& nv : map)
              if (nv.second == s.*field) return OptionValue{nv.first};
            return OptionValue{map.front().first};  // unreachable: fields hold mapped values
          }};
}

/// One of a few names, held as the name itself.
template <class S>
OptionEntry<S> option_choice(std::string name, std::string S::*field, std::string dflt,
                             std::initializer_list<const char*> names, std::string help) {
  return {{"choice", std::move(dflt), 0, 0, std::vector<std::string>(names.begin(), names.end()), std::move(help)},
          std::move(name),
          [field](S& s, const OptionValue& v) { s.*field = std::get<std::string>(v); },
          [field](const S& s) { return OptionValue{s.*field}; }};
}

/// The byte order words are read in, "little" (default) or "big" (memory order).
template <class S>
OptionEntry<S> option_endian(Endian S::*field, std::string help = "byte order of the words read from a block") {
  return option_choice("endian", field, "little", {{"little", Endian::little}, {"big", Endian::big}}, std::move(help));
}

/// Reads typed options one key at a time and rejects unknown keys (settings that are no codec's:
/// the bus options). Codecs declare an OptionTable instead.
class OptionReader {
 public:
  OptionReader(const Options& opts, std::string codec);

  bool get_bool(const std::string& key, bool dflt);
  std::int64_t get_int(const std::string& key, std::int64_t dflt, std::int64_t lo, std::int64_t hi);
  std::string get_choice(const std::string& key, const std::string& dflt, std::initializer_list<const char*> allowed);

  /// Throws invalid_argument naming every key that was never read.
  void finish() const;

 private:
  OptionValue get(const std::string& key, const OptionDomain& d);

  const Options& opts_;
  std::string codec_;
  std::set<std::string> used_;
};

}  // namespace memcomp
