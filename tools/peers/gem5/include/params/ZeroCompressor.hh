// Stand-in for gem5's generated params/ZeroCompressor.hh (the driver sets the Compressors.py values).
#pragma once
#include "params/BaseDictionaryCompressor.hh"
namespace gem5 {
struct ZeroCompressorParams : public BaseDictionaryCompressorParams {

};
}  // namespace gem5
