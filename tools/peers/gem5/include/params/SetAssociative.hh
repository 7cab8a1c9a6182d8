// Stand-in for gem5's generated params/SetAssociative.hh (no extra fields).
#pragma once
#include "params/BaseIndexingPolicy.hh"
namespace gem5 {
struct SetAssociativeParams : public BaseIndexingPolicyParams {};
}  // namespace gem5
