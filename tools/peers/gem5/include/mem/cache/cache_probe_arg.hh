// Stand-in for gem5's mem/cache/cache_probe_arg.hh: the data of a fill/eviction.
#pragma once
#include <cstdint>
#include <vector>
namespace gem5 {
struct CacheDataUpdateProbeArg {
    std::vector<uint64_t> oldData;
    std::vector<uint64_t> newData;
};
}  // namespace gem5
