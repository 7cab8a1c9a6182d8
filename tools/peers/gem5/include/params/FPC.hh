// Stand-in for gem5's generated params/FPC.hh (the driver sets the Compressors.py values).
#pragma once
#include "params/BaseDictionaryCompressor.hh"
namespace gem5 {
struct FPCParams : public BaseDictionaryCompressorParams {
    int zero_run_bits = 3;
};
}  // namespace gem5
