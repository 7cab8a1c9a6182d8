#!/usr/bin/env bash
# Installs memcomp with its test extras and runs the whole test suite: pytest (incl. hypothesis
# property tests and golden vectors), then the GoogleTest suite in a normal and an ASan+UBSan
# build. Needs GoogleTest (Debian: libgtest-dev). Any failure, or pytest collecting no tests
# (exit code 5), fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

echo "== pip install .[test]"
"$PY" -m pip install --quiet ".[test]" "cmeel-eigen>=3.4"

echo "== pytest"
"$PY" -m pytest -q

for variant in release asan; do
  dir=build/ctest-$variant
  flags=(-DMEMCOMP_BUILD_TESTS=ON -DMEMCOMP_WERROR=ON -DPython_EXECUTABLE="$(command -v "$PY")")
  if [ "$variant" = asan ]; then flags+=(-DMEMCOMP_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug); else flags+=(-DCMAKE_BUILD_TYPE=Release); fi
  echo "== C++ tests ($variant)"
  cmake -S . -B "$dir" -G Ninja "${flags[@]}" > "$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; exit 1; }
  cmake --build "$dir" -j "$JOBS"
  ctest --test-dir "$dir" --output-on-failure -j "$JOBS"
done
