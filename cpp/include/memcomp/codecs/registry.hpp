// memcomp codecs: the explicit registry of codec families and their presets (SPEC 0.7:
// presets are named <codec>.<impl> after the implementation they reproduce).
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "memcomp/codecs/codec.hpp"

namespace memcomp {

using CodecFactory = std::unique_ptr<Codec> (*)(const Options&);
/// A codec's option table as domains (OptionTable::space).
using OptionSpaceFn = OptionSpace (*)();

/// The OptionSpaceFn of a function returning a codec's OptionTable: &space_of<fpc_table>.
template <auto Table>
OptionSpace space_of() {
  return Table().space();
}

struct Preset {
  std::string name;         ///< "bdi.paper"
  std::string family;       ///< "bdi"
  std::string description;  ///< one line: what it reproduces
  std::string policy;       ///< default report policy (metrics layer), e.g. "none", "cap+bytes"
  Options options;          ///< option values applied over the family defaults
  bool is_default = false;  ///< the family's default preset (the one `family` alone names)
  CodecFactory make = nullptr;
  OptionSpaceFn space = nullptr;  ///< the options `make` reads, from its codec's table
};

/// Every preset of every built-in family, in registration order.
const std::vector<Preset>& presets();

/// Finds a preset by full name ("bdi.gem5") or by family name ("bdi" -> its default preset).
const Preset& find_preset(std::string_view name);

/// Builds a codec from a preset name and option overrides (unknown options throw).
std::unique_ptr<Codec> make_codec(std::string_view name, const Options& overrides = {});

/// Every option a preset's codec reads, with the values it accepts and a line of help (defaults
/// are the family's, before the preset's own values): its codec's option table, no codec built.
OptionSpace option_space(std::string_view name);

}  // namespace memcomp
