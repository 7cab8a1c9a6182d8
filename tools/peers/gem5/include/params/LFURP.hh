// Stand-in for gem5's generated params/LFURP.hh (no fields).
#pragma once
#include "params/BaseReplacementPolicy.hh"
namespace gem5 {
struct LFURPParams : public BaseReplacementPolicyParams {};
}  // namespace gem5
