#!/bin/sh
# run.sh LIBDIR CACHEDIR TARGET PROGRAM NAME
# Runs an nvcc-built program (static or shared runtime, or a driver-API one) unmodified on the host device
# for TARGET, with runtime/'s libcudart.so.13, libcuda.so.1, libnvrtc.so.13 and libnvJitLink.so.13
# (in LIBDIR) first on the library path, and passes when the program
# exits 0 and prints its "PASS NAME" verdict, cold and then warm, then in the host device's
# differential mode, every plan of each launch compared (see below). CACHEDIR is the
# test's own JIT cache folder.
set -u
libdir=$1 cache=$2 target=$3 prog=$4 name=$5

# PTX2AMD_TEST_CPU_FLAG: a test of host code for another CPU (PTX2AMD_HOST_CPU) is skipped (77)
# on a host without that CPU's instructions, as /proc/cpuinfo names them.
flag=${PTX2AMD_TEST_CPU_FLAG:-}
if [ -n "$flag" ] && ! grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -qx "$flag"; then
  echo "SKIP: this host has no $flag, which PTX2AMD_HOST_CPU=${PTX2AMD_HOST_CPU:-} needs"
  exit 77
fi

export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The CUDA libraries the dynamic linker picks must be ours, not the toolkit's (a runtime-API
# program needs libcudart.so.13, which needs libcuda.so.1; a driver-API program libcuda.so.1; an
# NVRTC or nvJitLink program libnvrtc.so.13 and libnvJitLink.so.13, ours, which load the
# toolkit's).
libs=$(ldd "$prog")
for lib in libcudart.so.13 libcuda.so.1 libnvrtc.so.13 libnvJitLink.so.13; do
  loaded=$(printf '%s\n' "$libs" | sed -n "s/^[[:space:]]*$lib => \([^ ]*\).*/\1/p")
  [ -n "$loaded" ] || continue
  if [ "$(readlink -f "$loaded")" != "$(readlink -f "$libdir/$lib")" ]; then
    echo "FAIL: $prog loads $lib from '$loaded', not from $libdir"
    exit 1
  fi
done
# A program built with nvcc's defaults carries the static runtime, which loads libcuda.so.1
# itself (dlopen, found on the library path): that it was ours, the device line in its log says.
static=0
if ! printf '%s\n' "$libs" | grep -q 'libcuda\.so\.1 => '; then
  if printf '%s\n' "$libs" | grep -q 'libcudart\.so'; then
    echo "FAIL: $prog does not load libcuda.so.1"
    exit 1
  fi
  static=1
fi

# Twice on one JIT cache folder: cold (emptied first: every module translated and stored), then
# warm, which must take every module from the cache (a "cache hit" line, no "translated" one).
rm -rf "$cache" && mkdir -p "$cache" || exit 1
for run in cold warm; do
  # LD_BIND_NOW: a runtime function the program imports and the library lacks fails at start-up,
  # by name, instead of at its first call.
  out=$(LD_BIND_NOW=1 PTX2AMD_DEVICE=host PTX2AMD_HOST_TARGET="$target" PTX2AMD_CACHE_DIR="$cache" \
    PTX2AMD_LOG=info "$prog" 2>&1)
  rc=$?
  printf '%s\n' "--- $run run" "$out"
  if [ $rc -ne 0 ]; then
    echo "FAIL: $prog exited with status $rc ($run run)"
    exit 1
  fi
  if ! printf '%s\n' "$out" | grep -qx "PASS $name"; then
    echo "FAIL: $prog printed no 'PASS $name' line ($run run)"
    exit 1
  fi
  # Every kernel that meets runs as a compiled workgroup, unless a synchronisation point sits
  # in a call that cannot be inlined (host-backend/README.md).
  fallback=$(printf '%s\n' "$out" | grep "^ptx2amd: host: kernel '.*': fibers (" |
    grep -v -e 'cannot be inlined' -e 'recursively' -e 'indirect call')
  if [ -n "$fallback" ]; then
    echo "FAIL: kernels of $prog on the fiber fallback ($run run): $fallback"
    exit 1
  fi
  if [ $static = 1 ] && ! printf '%s\n' "$out" | grep -q '^ptx2amd: device: '; then
    echo "FAIL: $prog (static runtime) did not load $libdir/libcuda.so.1 ($run run)"
    exit 1
  fi
done
if ! printf '%s\n' "$out" | grep -q '^ptx2amd: cache hit for '; then
  echo "FAIL: the warm run of $prog logged no cache hit"
  exit 1
fi
if printf '%s\n' "$out" | grep -q '^ptx2amd: translated '; then
  echo "FAIL: the warm run of $prog translated a module"
  exit 1
fi

# Every other plan of the host device, in one differential run (PTX2AMD_HOST_DIFFERENTIAL=1):
# each launch runs under every plan its kernel has (vectorised waves, work-item loops or
# compiled workgroups, fibers), each from the same device memory, and fails when one plan's
# memory differs from the default plan's; the program then checks the default plan's results.
# A test that sets PTX2AMD_HOST_VECTOR or PTX2AMD_HOST_FIBERS itself chose its plan: it runs
# only that one. The static build's kernels are the shared build's: its test leaves the plans to
# that one.
if [ $static = 0 ] && [ -z "${PTX2AMD_HOST_VECTOR:-}${PTX2AMD_HOST_FIBERS:-}" ]; then
  out=$(PTX2AMD_HOST_DIFFERENTIAL=1 LD_BIND_NOW=1 PTX2AMD_DEVICE=host \
    PTX2AMD_HOST_TARGET="$target" PTX2AMD_CACHE_DIR="$cache" "$prog" 2>&1)
  rc=$?
  printf '%s\n' "--- differential run" "$out"
  if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -qx "PASS $name"; then
    echo "FAIL: $prog in the differential mode (exit status $rc)"
    exit 1
  fi
  if printf '%s\n' "$out" | grep -q '^ptx2amd: host: differential mode: kernel .*: writes different'; then
    echo "FAIL: $prog: a plan of the host device wrote different memory"
    exit 1
  fi
fi
