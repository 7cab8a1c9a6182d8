// Stand-in for gem5's generated params/FrequentValuesCompressor.hh (Compressors.py defaults).
#pragma once
#include <cstdint>
#include "params/BaseCacheCompressor.hh"
namespace gem5 {
class BaseIndexingPolicy;
namespace replacement_policy { class Base; }
// Defaults of Compressors.py FrequentValuesCompressor.
struct FrequentValuesCompressorParams : public BaseCacheCompressorParams {
    unsigned code_generation_ticks = 10000;
    unsigned counter_bits = 18;
    unsigned max_code_length = 18;
    unsigned num_samples = 100000;
    bool check_saturation = false;
    int vft_assoc = 16;
    uint64_t vft_entries = 1024;
    BaseIndexingPolicy *vft_indexing_policy = nullptr;
    replacement_policy::Base *vft_replacement_policy = nullptr;
};
}  // namespace gem5
