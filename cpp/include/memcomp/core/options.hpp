// memcomp core: codec options as data. Presets are option maps; Python keywords become options.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "memcomp/core/error.hpp"

namespace memcomp {

using OptionValue = std::variant<bool, std::int64_t, double, std::string>;
using Options = std::map<std::string, OptionValue>;

std::string to_string(const OptionValue& v);

/// What values an option takes, as its reader asked for them: kind "bool", "int" or "float"
/// (in [lo, hi]; an int option taking only some values lists them in `choices`), "choice" (one of
/// `choices`) or "string" (free text: models, member lists).
struct OptionDomain {
  std::string kind;
  OptionValue dflt;
  double lo = 0, hi = 0;
  std::vector<std::string> choices;
};
using OptionSpace = std::map<std::string, OptionDomain>;

/// Reads typed options once each and rejects unknown keys, so a misspelt keyword is an error.
class OptionReader {
 public:
  OptionReader(const Options& opts, std::string codec);

  /// The domains the next OptionReader constructed on this thread records into `space` (it
  /// records, the readers it constructs in turn do not): how option_space() learns a codec's.
  static void record_next(OptionSpace* space) noexcept;

  bool get_bool(const std::string& key, bool dflt);
  std::int64_t get_int(const std::string& key, std::int64_t dflt, std::int64_t lo, std::int64_t hi);
  /// An integer from a set of values (the domain: kind "int", lo/hi its extremes, `choices` the values).
  std::int64_t get_int(const std::string& key, std::int64_t dflt, std::initializer_list<std::int64_t> allowed);
  double get_double(const std::string& key, double dflt, double lo, double hi);
  std::string get_string(const std::string& key, const std::string& dflt);
  std::string get_choice(const std::string& key, const std::string& dflt, std::initializer_list<const char*> allowed);

  /// Throws invalid_argument naming every key that was never read.
  void finish() const;

 private:
  const OptionValue* find(const std::string& key);
  [[noreturn]] void type_error(const std::string& key, const char* want) const;

  void note(const std::string& key, OptionDomain d);

  const Options& opts_;
  std::string codec_;
  std::set<std::string> used_;
  OptionSpace* space_ = nullptr;
};

}  // namespace memcomp
