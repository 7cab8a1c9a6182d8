// Stand-in for gem5's generated params/MultiCompressor.hh (Compressors.py MultiCompressor).
#pragma once
#include <vector>
#include "params/BaseCacheCompressor.hh"
namespace gem5 {
namespace compression { class Base; }
struct MultiCompressorParams : public BaseCacheCompressorParams {
    std::vector<compression::Base *> compressors;
    bool encoding_in_tags = false;
};
}  // namespace gem5
