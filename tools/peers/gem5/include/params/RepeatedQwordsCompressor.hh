// Stand-in for gem5's generated params/RepeatedQwordsCompressor.hh (the driver sets the Compressors.py values).
#pragma once
#include "params/BaseDictionaryCompressor.hh"
namespace gem5 {
struct RepeatedQwordsCompressorParams : public BaseDictionaryCompressorParams {

};
}  // namespace gem5
