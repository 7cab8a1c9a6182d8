// Stand-in for gem5's generated params/Base16Delta8.hh (the driver sets the Compressors.py values).
#pragma once
#include "params/BaseDictionaryCompressor.hh"
namespace gem5 {
struct Base16Delta8Params : public BaseDictionaryCompressorParams {

};
}  // namespace gem5
