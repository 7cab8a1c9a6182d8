// memcomp codecs: what every codec's kernel table shares (private to src/codecs). Each codec with
// SIMD kernels keeps them in files of their own (kernels/<codec>_<tier>.cpp), declared in
// kernels/<codec>.hpp as one table of function pointers per tier; the codec calls through the
// table of the active tier (a null entry: no kernel at that tier, the codec's scalar code runs).
// The ISA decision is made in one place, pick_kernels (simd.hpp), by a switch over simd_tier().
// Kernels that run their own range loops record their streams with ../codec_impl.hpp's batch helpers.
#pragma once
#include <cstddef>

#include "../codec_impl.hpp"
#include "memcomp/core/simd.hpp"
