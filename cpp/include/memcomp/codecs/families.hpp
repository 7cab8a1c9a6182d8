// memcomp codecs: one registration function per built-in family. registry.cpp calls them in a
// fixed order (no static self-registration: linkers drop such objects from static libraries).
#pragma once
#include <vector>

#include "memcomp/codecs/registry.hpp"

namespace memcomp {

void add_zero_presets(std::vector<Preset>& out);    // zca, zrep (zero.cpp)
void add_bdi_presets(std::vector<Preset>& out);     // bdi (bdi.cpp)
void add_fpc_presets(std::vector<Preset>& out);     // fpc (fpc.cpp)
void add_cpack_presets(std::vector<Preset>& out);   // cpack (cpack.cpp)
void add_bpc_presets(std::vector<Preset>& out);     // bpc (bpc.cpp)
void add_lzss_presets(std::vector<Preset>& out);    // lzss (lzss.cpp)
void add_fib_presets(std::vector<Preset>& out);     // fib (fibonacci.cpp)
void add_fvc_presets(std::vector<Preset>& out);     // fvc (fvc.cpp)
void add_e2mc_presets(std::vector<Preset>& out);    // e2mc, sc2 (e2mc.cpp)
void add_mpc_presets(std::vector<Preset>& out);     // mpc (mpc.cpp)
void add_bestof_presets(std::vector<Preset>& out);  // bestof (hybrid.cpp)

}  // namespace memcomp
