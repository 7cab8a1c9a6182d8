#!/usr/bin/env bash
# Builds the core, the GoogleTest suite and the libFuzzer harnesses with clang, ASan+UBSan and
# coverage (the fuzz preset of CMakePresets.json, in build/fuzz); runs the suite (ctest) in that
# build, then every harness at once, each for a fixed time
# on its seed corpus (written by the harness from the golden vectors), the kept findings and the
# corpus it has grown so far in build/fuzz/corpus/. Any failure or finding (crash, sanitizer report,
# broken invariant, leak, timeout, an allocation over -malloc_limit_mb) fails the run; a finding's
# input is saved in build/fuzz/artifacts/ and, once fixed, belongs in
# tests/fuzz/regressions/<harness>/ (ctest replays it in every GoogleTest build).
#   tests/fuzz/run.sh            # 60 s per harness (what CI runs)
#   tests/fuzz/run.sh 3600       # the longer run: an hour per harness
# Needs clang, libclang-rt-14-dev and libgtest-dev (Debian) or any clang with libFuzzer (FUZZ_CXX).
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_PER_HARNESS=${1:-60}
PY=${PYTHON:-python3}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
dir=build/fuzz # the preset's binaryDir
# Eigen: the cmeel-eigen wheel's prefix on CMAKE_PREFIX_PATH (CMakeLists.txt)
CMAKE_PREFIX_PATH=$("$PY" -m cmeel cmake --prepend 2> /dev/null || echo "${CMAKE_PREFIX_PATH-}")
export CMAKE_PREFIX_PATH
mkdir -p build
# A tree configured with another compiler: configure afresh, as CMake's own switch would drop the
# preset's settings (the corpus and the artifacts stay).
cxx=$(command -v "${FUZZ_CXX:-clang++}" || true)
if [ -f "$dir/CMakeCache.txt" ] && ! grep -qx "CMAKE_CXX_COMPILER:[A-Z]*=$cxx" "$dir/CMakeCache.txt"; then
  rm -rf "$dir/CMakeCache.txt" "$dir/CMakeFiles"
fi
cmake --preset fuzz ${FUZZ_CXX:+"-DCMAKE_CXX_COMPILER=$FUZZ_CXX"} > "$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; exit 1; }
cmake --build --preset fuzz -j "$JOBS"
echo "== C++ tests (ASan+UBSan, clang) [$(date +%T)]"
ctest --preset fuzz -j "$JOBS"

mkdir -p "$dir/artifacts"
harnesses=(decode roundtrip model)
pids=()
for h in "${harnesses[@]}"; do
  bin=$dir/tests/fuzz/fuzz_$h
  rm -rf "$dir/seeds/$h"
  MEMCOMP_FUZZ_WRITE_SEEDS="$dir/seeds/$h" "$bin"
  mkdir -p "$dir/corpus/$h"
  inputs=("$dir/corpus/$h" "$dir/seeds/$h")
  [ -d "tests/fuzz/regressions/$h" ] && inputs+=("tests/fuzz/regressions/$h")
  "$bin" "${inputs[@]}" -max_total_time="$SECONDS_PER_HARNESS" -timeout=10 -rss_limit_mb=2048 \
    -malloc_limit_mb=256 -print_final_stats=1 -artifact_prefix="$dir/artifacts/$h-" > "$dir/fuzz_$h.log" 2>&1 &
  pids+=($!)
done
echo "== libFuzzer: ${harnesses[*]}, ${SECONDS_PER_HARNESS} s each, side by side [$(date +%T)]"
failed=()
for i in "${!harnesses[@]}"; do
  wait "${pids[$i]}" || failed+=("${harnesses[$i]}")
done
summary=()
for h in "${harnesses[@]}"; do
  log=$dir/fuzz_$h.log
  done_line=$(grep -E "^#[0-9]+[[:space:]]+DONE" "$log" | tail -n 1 || true)
  # a harness that stopped on a finding prints no final stats: the summary must not stop the script
  units=$(grep -o 'number_of_executed_units: [0-9]*' "$log" | awk '{print $2}' || true)
  cov=$(echo "$done_line" | grep -o 'cov: [0-9]*' || true)
  corp=$(echo "$done_line" | grep -o 'corp: [^ ]*' || true)
  summary+=("fuzz_$h: ${units:-?} executions, ${cov:-?} edges, ${corp:-?} corpus")
done
for h in "${failed[@]}"; do
  tail -n 60 "$dir/fuzz_$h.log"
  echo "fuzz_$h found a problem: the input is in $dir/artifacts/ (replay: $dir/tests/fuzz/fuzz_$h <file>)" >&2
done
[ ${#failed[@]} -eq 0 ] || exit 1
printf '%s\n' "${summary[@]}"
