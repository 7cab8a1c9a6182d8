// Stand-in for gem5's mem/cache/tags/super_blk.hh (latency bookkeeping only).
#pragma once
#include <cstddef>
#include <string>
#include "base/types.hh"
namespace gem5 {
class CacheBlk {
  public:
    virtual ~CacheBlk() = default;
    std::string print() const { return ""; }
};
class CompressionBlk : public CacheBlk {
    Cycles lat{0};
    std::size_t sizeBits = 0;
  public:
    bool isCompressed() const { return false; }
    Cycles getDecompressionLatency() const { return lat; }
    void setDecompressionLatency(Cycles l) { lat = l; }
    void setSizeBits(std::size_t s) { sizeBits = s; }
};
}  // namespace gem5
