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

/// Reads typed options once each and rejects unknown keys, so a misspelt keyword is an error.
class OptionReader {
 public:
  OptionReader(const Options& opts, std::string codec) : opts_(opts), codec_(std::move(codec)) {}

  bool get_bool(const std::string& key, bool dflt);
  std::int64_t get_int(const std::string& key, std::int64_t dflt, std::int64_t lo, std::int64_t hi);
  double get_double(const std::string& key, double dflt, double lo, double hi);
  std::string get_string(const std::string& key, const std::string& dflt);
  std::string get_choice(const std::string& key, const std::string& dflt,
                         std::initializer_list<const char*> allowed);

  /// Throws invalid_argument naming every key that was never read.
  void finish() const;

 private:
  const OptionValue* find(const std::string& key);
  [[noreturn]] void type_error(const std::string& key, const char* want) const;

  const Options& opts_;
  std::string codec_;
  std::set<std::string> used_;
};

}  // namespace memcomp
