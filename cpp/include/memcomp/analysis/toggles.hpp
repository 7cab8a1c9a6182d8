// memcomp analysis: the toggles analysis in one include (SPEC 2; P2 = toggle-aware compression,
// HPCA'16): the bus and its wire state (bus_config.hpp), its counts with DBI (bus.hpp) and Energy
// Control (energy_control.hpp). Encode and Energy Control fused in one pass sits a layer above,
// in memcomp/pipelines/encode_energy_control.hpp.
#pragma once

#include "memcomp/analysis/bus.hpp"             // IWYU pragma: export
#include "memcomp/analysis/bus_config.hpp"      // IWYU pragma: export
#include "memcomp/analysis/energy_control.hpp"  // IWYU pragma: export
