#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang, ASan+UBSan, coverage) and runs each for a fixed time on
# its seed corpus (written by the harness from the golden vectors) plus the corpus it has grown so
# far in build/fuzz/corpus/. Any finding (crash, sanitizer report, broken invariant, leak, timeout,
# an allocation over -malloc_limit_mb) fails the run; the input is saved in build/fuzz/artifacts/
# and, once fixed, belongs in tests/fuzz/regressions/<harness>/ (ctest replays it in every build).
#   tests/fuzz/run.sh            # 60 s per harness (what CI runs)
#   tests/fuzz/run.sh 3600       # the longer run: an hour per harness
# Needs clang and libclang-rt-14-dev (Debian) or any clang with libFuzzer.
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_PER_HARNESS=${1:-60}
PY=${PYTHON:-python3}
dir=build/fuzz
CXX=${FUZZ_CXX:-clang++} cmake -S . -B "$dir" -G Ninja -DMEMCOMP_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPython_EXECUTABLE="$(command -v "$PY")" > "$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; exit 1; }
cmake --build "$dir" -j "${JOBS:-$(nproc 2>/dev/null || echo 2)}"
mkdir -p "$dir/artifacts"
summary=()
for h in decode roundtrip model; do
  bin=$dir/tests/fuzz/fuzz_$h
  rm -rf "$dir/seeds/$h"
  MEMCOMP_FUZZ_WRITE_SEEDS="$dir/seeds/$h" "$bin"
  mkdir -p "$dir/corpus/$h"
  inputs=("$dir/corpus/$h" "$dir/seeds/$h")
  [ -d "tests/fuzz/regressions/$h" ] && inputs+=("tests/fuzz/regressions/$h")
  echo "== fuzz_$h: ${SECONDS_PER_HARNESS} s"
  log=$dir/fuzz_$h.log
  if ! "$bin" "${inputs[@]}" -max_total_time="$SECONDS_PER_HARNESS" -timeout=10 -rss_limit_mb=2048 \
      -malloc_limit_mb=256 -print_final_stats=1 -artifact_prefix="$dir/artifacts/$h-" > "$log" 2>&1; then
    tail -n 60 "$log"
    echo "fuzz_$h found a problem: the input is in $dir/artifacts/ (replay: $bin <file>)" >&2
    exit 1
  fi
  done_line=$(grep -E "^#[0-9]+[[:space:]]+DONE" "$log" | tail -n 1 || true)
  summary+=("fuzz_$h: $(grep -o 'number_of_executed_units: [0-9]*' "$log" | awk '{print $2}') executions, $(echo "$done_line" | grep -o 'cov: [0-9]*') edges, $(echo "$done_line" | grep -o 'corp: [^ ]*') corpus")
done
printf '%s\n' "${summary[@]}"
