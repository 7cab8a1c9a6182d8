// memcomp codecs: one registration function per built-in family. registry.cpp calls them in a
// fixed order (no static self-registration: linkers drop such objects from static libraries).
#pragma once
#include <vector>

#include "memcomp/codecs/registry.hpp"

namespace memcomp {

void add_zero_presets(std::vector<Preset>& out);  // zca, zrep (zero.cpp)
void add_bdi_presets(std::vector<Preset>& out);   // bdi (bdi.cpp)
void add_fpc_presets(std::vector<Preset>& out);   // fpc (fpc.cpp)

}  // namespace memcomp
