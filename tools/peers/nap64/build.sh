#!/bin/sh
# Builds nap64_lines from an unmodified NAP64 checkout (NAP64/Memory-Compression-Measurements-Open).
#   build.sh NAP64_CHECKOUT [OUT_DIR]     (OUT_DIR defaults to ./build-nap64)
# Each plugin is compiled with NAP64's own flags (its Makefile: -ggdb3 -Wall, no -O) and with
# PAGE_SIZE set to the plugin's line size, so one compress call measures one line; the node
# name is renamed so the three plugins link into one program. Nothing is downloaded.
set -eu
src=${1:?usage: build.sh NAP64_CHECKOUT [OUT_DIR]}
out=${2:-build-nap64}
here=$(cd "$(dirname "$0")" && pwd)
cc=${CC:-cc}
flags="-ggdb3 -Wall -I$src/include"
mkdir -p "$out"
$cc $flags -DPAGE_SIZE=64 -DCOMPRESSION_NODE_NAME=nap64_bdi -c "$src/src/compression/bdi.c" -o "$out/bdi.o"
$cc $flags -DPAGE_SIZE=64 -DCOMPRESSION_NODE_NAME=nap64_cpack -c "$src/src/compression/cpack.c" -o "$out/cpack.o"
$cc $flags -DPAGE_SIZE=128 -DCOMPRESSION_NODE_NAME=nap64_bpc -c "$src/src/compression/bpc.c" -o "$out/bpc.o"
$cc $flags -c "$here/nap64_lines.c" -o "$out/nap64_lines.o"
$cc -o "$out/nap64_lines" "$out/nap64_lines.o" "$out/bdi.o" "$out/cpack.o" "$out/bpc.o" -lm
if [ -d "$src/.git" ] || git -C "$src" rev-parse HEAD >/dev/null 2>&1; then
  git -C "$src" rev-parse HEAD >"$out/NAP64_COMMIT"
fi
echo "$out/nap64_lines"
