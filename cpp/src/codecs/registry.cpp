// memcomp codecs: the explicit list of built-in codec families.
#include "memcomp/codecs/registry.hpp"

#include "memcomp/codecs/families.hpp"

namespace memcomp {

namespace {
std::vector<Preset> register_builtin_codecs() {
  std::vector<Preset> out;
  add_zero_presets(out);
  add_bdi_presets(out);
  add_fpc_presets(out);
  add_cpack_presets(out);
  add_bpc_presets(out);
  add_lzss_presets(out);
  add_fib_presets(out);
  add_fvc_presets(out);
  add_e2mc_presets(out);
  add_mpc_presets(out);
  add_bestof_presets(out);
  return out;
}
}  // namespace

const std::vector<Preset>& presets() {
  static const std::vector<Preset> all = register_builtin_codecs();
  return all;
}

const Preset& find_preset(std::string_view name) {
  for (const Preset& p : presets())
    if (p.name == name || (p.is_default && p.family == name)) return p;
  std::string list;
  for (const Preset& p : presets()) list += (list.empty() ? "" : ", ") + p.name;
  throw invalid_argument("unknown codec '" + std::string(name) + "'; known codecs and presets: " + list);
}

std::unique_ptr<Codec> make_codec(std::string_view name, const Options& overrides) {
  const Preset& p = find_preset(name);
  Options opts = p.options;
  for (const auto& kv : overrides) opts[kv.first] = kv.second;
  std::unique_ptr<Codec> c = p.make(opts);
  c->set_identity(p.family, p.name, p.policy);
  return c;
}

OptionSpace option_space(std::string_view name) { return find_preset(name).space(); }

}  // namespace memcomp
