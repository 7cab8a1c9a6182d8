// Stand-in for gem5's generated params/BaseReplacementPolicy.hh (no fields).
#pragma once
#include "params/SimObject.hh"
namespace gem5 {
struct BaseReplacementPolicyParams : public SimObjectParams {};
}  // namespace gem5
