// Stand-in for gem5's generated params/BaseCacheCompressor.hh (Compressors.py defaults).
#pragma once
#include "base/types.hh"
#include "params/SimObject.hh"
namespace gem5 {
// Defaults of Compressors.py BaseCacheCompressor; block_size comes from the cache line.
struct BaseCacheCompressorParams : public SimObjectParams {
    int block_size = 64;
    unsigned chunk_size_bits = 32;
    unsigned size_threshold_percentage = 50;
    unsigned comp_chunks_per_cycle = 1;
    Cycles comp_extra_latency = Cycles(1);
    unsigned decomp_chunks_per_cycle = 1;
    Cycles decomp_extra_latency = Cycles(1);
};
}  // namespace gem5
