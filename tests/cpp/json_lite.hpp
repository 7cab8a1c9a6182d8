// The tests read golden files with the core's JSON reader.
#pragma once
#include "memcomp/core/json.hpp"

namespace memcomp::test {
using memcomp::Json;
inline Json parse_file(const std::string& path) { return parse_json_file(path); }
}  // namespace memcomp::test
