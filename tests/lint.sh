#!/usr/bin/env bash
# Static checks; any finding fails the script.
#   Python: ruff check and ruff format --check (python/memcomp, tests), mypy (configured in
#           pyproject.toml).
#   C++:    clang-format (.clang-format) over cpp/, tests/cpp and tests/fuzz, and clang-tidy
#           (.clang-tidy) over cpp/src and cpp/bindings, with the headers of cpp/include/memcomp they
#           include, from the compile_commands.json of the tidy preset (CMakePresets.json: clang++,
#           in build/tidy, with the Python extension so the bindings are checked too).
#   tests/lint.sh           # everything
#   tests/lint.sh python    # ruff + mypy only
#   tests/lint.sh cpp       # clang-format + clang-tidy only
# clang-format and clang-tidy are pinned to LLVM 14 (Debian bookworm's): other versions lay code
# out differently and have other checks. Missing tools are installed: clang-format-14 and
# clang-tidy-14 with apt (as root, or with passwordless sudo), ruff, mypy and the extension's
# build requirements (pybind11, cmeel-eigen) with pip.
# The C++ part takes about 3 CPU minutes (clang-tidy on the bindings most of it): 1.5 to 3.5 min
# on 2 cores, depending on what else runs.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
WHAT=${1:-all}
case "$WHAT" in all | python | cpp) ;; *)
  echo "usage: tests/lint.sh [all|python|cpp]" >&2
  exit 2
  ;;
esac

failed=()
step() { # step NAME COMMAND...: runs one check, remembers a failure and goes on
  local name=$1
  shift
  echo "== $name"
  if ! "$@"; then failed+=("$name"); fi
}

apt_install() { # apt_install PACKAGE...
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if sudo -n true 2> /dev/null; then sudo=(sudo -n); else sudo=(none); fi
  fi
  if [ "${sudo[*]-}" = none ] || ! command -v apt-get > /dev/null; then
    echo "tests/lint.sh: needs the Debian packages $*; install them first: sudo apt-get install $*" >&2
    exit 1
  fi
  echo "== apt-get install $*"
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "$@" > /dev/null
}

llvm_tool() { # llvm_tool NAME: prints the path of NAME-14 (or of NAME if that is version 14)
  local t
  for t in "$1-14" "/usr/lib/llvm-14/bin/$1" "$1"; do
    if command -v "$t" > /dev/null && "$t" --version 2> /dev/null | grep -q 'version 14\.'; then
      command -v "$t"
      return 0
    fi
  done
  return 1
}

if [ "$WHAT" != cpp ]; then
  "$PY" -m ruff --version > /dev/null 2>&1 || { echo "== pip install ruff" && "$PY" -m pip install --quiet ruff; }
  "$PY" -m mypy --version > /dev/null 2>&1 || { echo "== pip install mypy" && "$PY" -m pip install --quiet mypy; }
  step "ruff check" "$PY" -m ruff check python/memcomp tests
  step "ruff format" "$PY" -m ruff format --check python/memcomp tests
  step "mypy" "$PY" -m mypy
fi

if [ "$WHAT" != python ]; then
  missing=()
  llvm_tool clang-format > /dev/null || missing+=(clang-format-14)
  llvm_tool clang-tidy > /dev/null || missing+=(clang-tidy-14)
  command -v clang++ > /dev/null || missing+=(clang)
  [ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
  CLANG_FORMAT=$(llvm_tool clang-format)
  CLANG_TIDY=$(llvm_tool clang-tidy)

  mapfile -t cxx_files < <(find cpp tests/cpp tests/fuzz -type f \( -name '*.hpp' -o -name '*.cpp' \) | sort)
  step "clang-format (${#cxx_files[@]} files)" "$CLANG_FORMAT" --dry-run -Werror "${cxx_files[@]}"

  tidy_dir=build/tidy
  mkdir -p build
  # the extension's build requirements, for a compile_commands.json that covers the bindings
  "$PY" -c "import pybind11, cmeel" > /dev/null 2>&1 ||
    { echo "== pip install pybind11 cmeel-eigen" && "$PY" -m pip install --quiet "pybind11>=2.12" "cmeel-eigen>=3.4"; }
  # Eigen: the cmeel-eigen wheel's prefix on CMAKE_PREFIX_PATH (CMakeLists.txt)
  CMAKE_PREFIX_PATH=$("$PY" -m cmeel cmake --prepend 2> /dev/null || echo "${CMAKE_PREFIX_PATH-}")
  export CMAKE_PREFIX_PATH
  # A tree configured with another compiler: start over (CMake's own reset would drop -DPython_EXECUTABLE).
  if [ -f "$tidy_dir/CMakeCache.txt" ] && ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang' "$tidy_dir/CMakeCache.txt"; then
    rm -rf "$tidy_dir"
  fi
  if cmake --preset tidy -DPython_EXECUTABLE="$(command -v "$PY")" > "$tidy_dir.configure.log" 2>&1; then
    run_tidy() {
      local runner
      runner=$(command -v run-clang-tidy-14 || command -v run-clang-tidy || true)
      if [ -n "$runner" ]; then
        # run-clang-tidy prints each invocation and forces colour; keep the plain diagnostics.
        "$runner" -p "$tidy_dir" -clang-tidy-binary "$CLANG_TIDY" -j "$JOBS" -quiet '/cpp/(src|bindings)/' 2>&1 \
          | sed -e 's/\x1b\[[0-9;]*m//g' | grep -v -E "^($CLANG_TIDY |[0-9]+ warnings? generated)"
        return "${PIPESTATUS[0]}"
      fi
      local files
      mapfile -t files < <(find cpp/src cpp/bindings -type f -name '*.cpp' | sort)
      printf '%s\n' "${files[@]}" | xargs -P "$JOBS" -n 1 "$CLANG_TIDY" -p "$tidy_dir" --quiet
    }
    step "clang-tidy" run_tidy
  else
    cat "$tidy_dir.configure.log"
    failed+=("clang-tidy (configure $tidy_dir)")
  fi
fi

if [ ${#failed[@]} -gt 0 ]; then
  echo "tests/lint.sh: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "tests/lint.sh: all checks passed"
