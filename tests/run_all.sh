#!/usr/bin/env bash
# Installs memcomp with its test extras and runs the whole test suite: the static checks
# (tests/lint.sh: ruff, mypy, clang-format, clang-tidy), pytest (incl. hypothesis property tests,
# golden vectors and the bad-input matrix, on JOBS workers), the GoogleTest suite and the fuzz
# corpora in the extension's Release build, then the GoogleTest suite in an ASan+UBSan build (clang)
# and each libFuzzer harness for FUZZ_SECONDS (default 60), all harnesses side by side.
# The C++ builds are presets of CMakePresets.json: ci (the extension's, warnings as errors), tidy
# (tests/lint.sh) and fuzz (tests/fuzz/run.sh).
# GoogleTest, clang, libFuzzer, clang-format and clang-tidy come from Debian (CMake and Ninja too,
# where they are not on PATH): the script installs them when they are missing (as root, or with
# passwordless sudo) and stops with what to run otherwise. Any failure, pytest collecting no tests
# (exit code 5) or ctest finding none, fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

# Debian packages the C++ suites need.
DEB_PACKAGES=(libgtest-dev clang libclang-rt-14-dev clang-format-14 clang-tidy-14 chromium)
missing=()
for pkg in "${DEB_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
command -v cmake > /dev/null || missing+=(cmake)
command -v ninja > /dev/null || missing+=(ninja-build)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then SUDO=(); elif sudo -n true 2>/dev/null; then SUDO=(sudo -n); else SUDO=none; fi
  if [ "${SUDO[*]-}" = none ] || ! command -v apt-get > /dev/null; then
    echo "tests/run_all.sh: the C++ suites need the Debian packages: ${missing[*]}" >&2
    echo "install them first: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
  echo "== apt-get install ${missing[*]}"
  "${SUDO[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq "${missing[@]}" > /dev/null
fi

# Each stage's header carries the wall-clock time, so a slow stage shows in the log.
stage() { echo "== $* [$(date +%T)]"; }

stage "pip install .[test]"
# PyTorch's CPU build for the capture tests (pinned: an unpinned torch may pull a CUDA build of
# several GB), then the package with its test extras, its extension configured with the ci preset:
# the GoogleTest suite too (same compiler, Release), in the preset's build/ci for ctest below.
# cmeel-eigen: the Eigen of the preset builds in tests/lint.sh and tests/fuzz/run.sh.
"$PY" -m pip install --quiet "torch==2.13.0"
"$PY" -m pip install --quiet ".[test]" "cmeel-eigen>=3.4" \
  --config-settings=cmake.args=--preset=ci --config-settings=build-dir=build/ci

stage "static checks (ruff, mypy, clang-format, clang-tidy)"
bash tests/lint.sh

stage pytest
"$PY" -m pytest -q -n "$JOBS"

stage "C++ tests (release)"
ctest --preset ci -j "$JOBS"

# The ASan+UBSan build (clang) runs the GoogleTest suite, then each libFuzzer harness.
bash tests/fuzz/run.sh "${FUZZ_SECONDS:-60}"
stage done
