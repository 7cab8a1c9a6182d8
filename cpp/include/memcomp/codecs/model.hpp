// memcomp codecs: the envelope every fitted model shares (SPEC 0.7 item 5): immutable JSON
// {"format": "memcomp.model/1", "codec": <family>, ...codec fields}, given to encoder and decoder
// alike and never charged to blocks.
#pragma once
#include <string>

#include "memcomp/core/json.hpp"

namespace memcomp {

inline constexpr const char* kModelFormat = "memcomp.model/1";

/// A new model object for `family` with the envelope fields set.
inline Json new_model(const std::string& family) {
  return Json::object({{"format", Json::string(kModelFormat)}, {"codec", Json::string(family)}});
}

/// Parses model text and checks its envelope; errors say what is wrong (json_error).
inline Json parse_model(const std::string& text, const std::string& family) {
  Json m = Json::parse(text);
  if (!m.is_object()) throw json_error(family + " model: expected a JSON object");
  const Json* f = m.find("format");
  if (!f || !f->is_string() || f->as_string() != kModelFormat)
    throw json_error(family + " model: 'format' must be \"" + std::string(kModelFormat) + "\"");
  const Json* c = m.find("codec");
  if (!c || !c->is_string() || c->as_string() != family)
    throw json_error(family + " model: 'codec' must be \"" + family + "\"");
  return m;
}

}  // namespace memcomp
