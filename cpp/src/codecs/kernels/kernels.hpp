// memcomp codecs: what every codec's kernel table shares (private to src/codecs). Each codec with
// SIMD kernels keeps them in files of their own (kernels/<codec>_<tier>.cpp), declared in
// kernels/<codec>.hpp as one table of function pointers per tier; the codec calls through the
// table of the active tier (a null entry: no kernel at that tier, the codec's scalar code runs).
// The ISA decision is made in one place, pick_kernels (simd.hpp), by a switch over simd_tier().
#pragma once
#include <cstddef>

#include "memcomp/codecs/codec.hpp"
#include "memcomp/core/simd.hpp"

namespace memcomp::kernels {

/// The batch helpers of Codec (codec.hpp) for kernels, which run their own loops outside the
/// codec classes: where a block's stream goes in a range's buffer, how it is recorded, and the
/// error of a stream the codec cannot write.
struct Range : Codec {
  using Codec::append_streams;
  using Codec::block_reader;
  using Codec::block_writer;
  using Codec::not_decodable;
  using Codec::range_bytes;
  using Codec::record_block;
};

}  // namespace memcomp::kernels
