// Stand-in for gem5's generated params/CPack.hh (the driver sets the Compressors.py values).
#pragma once
#include "params/BaseDictionaryCompressor.hh"
namespace gem5 {
struct CPackParams : public BaseDictionaryCompressorParams {

};
}  // namespace gem5
