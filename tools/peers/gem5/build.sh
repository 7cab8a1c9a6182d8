#!/bin/sh
# build.sh GEM5_SRC [OUT_DIR]: compile gem5's compressors (unmodified) with the stand-in headers.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
G=$(cd "$1/src" && pwd)
OUT=${2:-$HERE/build}
mkdir -p "$OUT"
SRCS="mem/cache/compressors/base.cc mem/cache/compressors/base_dictionary_compressor.cc
 mem/cache/compressors/base_delta.cc mem/cache/compressors/cpack.cc mem/cache/compressors/fpc.cc
 mem/cache/compressors/frequent_values.cc mem/cache/compressors/multi.cc
 mem/cache/compressors/repeated_qwords.cc mem/cache/compressors/zero.cc
 mem/cache/compressors/encoders/huffman.cc mem/cache/replacement_policies/lfu_rp.cc
 mem/cache/tags/indexing_policies/base.cc mem/cache/tags/indexing_policies/set_associative.cc"
FILES=""
for s in $SRCS; do FILES="$FILES $G/$s"; done
${CXX:-g++} -std=c++17 -O2 -w -I"$HERE/include" -I"$G" -o "$OUT/gem5_lines" "$HERE/gem5_lines.cc" $FILES
echo "$OUT/gem5_lines"
