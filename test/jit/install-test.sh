#!/usr/bin/env bash
# Installs the build into a temporary prefix, builds examples/embed against the installed
# package twice (CMake find_package, then pkg-config), runs both on examples/saxpy.ptx and checks
# what they print and write.
# usage: install-test.sh BUILD_DIR SOURCE_DIR WORK_DIR C_COMPILER
set -euo pipefail
build=$1 src=$2 work=$3 cc=$4
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null

# Only the C API header is installed: consumers never see our internal or LLVM headers.
headers=$(cd "$prefix/include" && find . -type f | sort)
[ "$headers" = "./ptx2amd/ptx2amd.h" ] || { echo "unexpected installed headers: $headers"; exit 1; }

check() { # check EMBED_BINARY NAME
  "$1" "$src/examples/saxpy.ptx" gfx90a "$work/$2.hsaco" > "$work/$2.out"
  grep -q '^kernel _Z5saxpyifPKfPfS1_: translated$' "$work/$2.out"
  grep -q '^  wave_size: 64$' "$work/$2.out"
  grep -q '^  static_lds: 1024$' "$work/$2.out"
  grep -q '^  arg 4: offset 24 size 8 ' "$work/$2.out"
  # An AMDGPU ELF: magic, then e_machine 224 (EM_AMDGPU) at offset 18.
  [ "$(od -An -tx1 -N4 "$work/$2.hsaco" | tr -d ' ')" = 7f454c46 ]
  [ "$(od -An -tu2 -j18 -N2 "$work/$2.hsaco" | tr -d ' ')" = 224 ]
  echo "$2: ok"
}

cmake -S "$src/examples/embed" -B "$work/embed-cmake" -G Ninja -DCMAKE_C_COMPILER="$cc" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER_LAUNCHER= >/dev/null
cmake --build "$work/embed-cmake" >/dev/null
check "$work/embed-cmake/embed" find_package

if command -v pkg-config >/dev/null; then
  export PKG_CONFIG_PATH=$(dirname "$(find "$prefix" -name ptx2amd.pc)")
  libdir=$(pkg-config --variable=libdir ptx2amd)
  # shellcheck disable=SC2046
  "$cc" -std=c99 -Wall -Wextra -pedantic -Werror "$src/examples/embed/embed.c" \
    $(pkg-config --cflags --libs ptx2amd) -Wl,-rpath,"$libdir" -o "$work/embed-pc"
  check "$work/embed-pc" pkg-config
fi
