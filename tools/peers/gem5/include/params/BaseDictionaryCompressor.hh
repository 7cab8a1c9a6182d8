// Stand-in for gem5's generated params/BaseDictionaryCompressor.hh (Compressors.py defaults).
#pragma once
#include "params/BaseCacheCompressor.hh"
namespace gem5 {
struct BaseDictionaryCompressorParams : public BaseCacheCompressorParams {
    int dictionary_size = 64;  // Parent.cache_line_size
};
}  // namespace gem5
