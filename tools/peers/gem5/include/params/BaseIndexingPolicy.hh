// Stand-in for gem5's generated params/BaseIndexingPolicy.hh (size, entry_size, assoc).
#pragma once
#include <cstdint>
#include "params/SimObject.hh"
namespace gem5 {
struct BaseIndexingPolicyParams : public SimObjectParams {
    uint64_t size = 0;
    int entry_size = 1;
    int assoc = 1;
};
}  // namespace gem5
