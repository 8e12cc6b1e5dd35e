#!/usr/bin/env bash
# `ptx2amd run` and `ptx2amd env` from an installed prefix (cmake --install with DESTDIR) and
# from the build tree: a project program (saxpy, both runtimes) on both wave sizes; the program's
# output, exit status and signals passed through; arguments after PROGRAM left to it; the
# libraries found relative to the command; a clear error where they are not.
# usage: cli_run.sh BUILD_DIR PROGRAM_DIR WORK_DIR
set -euo pipefail
build=$1 bin=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
DESTDIR=$work/dest cmake --install "$build" --prefix /opt/ptx2amd >/dev/null
ptx=$work/dest/opt/ptx2amd/bin/ptx2amd
lib=$(cd "$work/dest/opt/ptx2amd/lib/ptx2amd" && pwd -P)
fail() { echo "FAIL cli_run: $*"; exit 1; }
export PTX2AMD_CACHE_DIR=$work/cache

# The private folder holds the CUDA libraries, and nothing of them is on the system's path.
for f in libcuda.so.1 libcudart.so.13 libnvrtc.so.13 libnvJitLink.so.13; do
  [ -f "$lib/$f" ] || fail "$f is not installed in lib/ptx2amd"
done
[ ! -e "$work/dest/opt/ptx2amd/lib/libcuda.so.1" ] || fail "libcuda.so.1 is on the library path"

for target in gfx90a gfx1100; do
  for program in saxpy saxpy.static; do
    out=$(PTX2AMD_LOG=info "$ptx" run --device host --arch "$target" "$bin/$program" 2>"$work/err") ||
      fail "$program on $target exited $?: $(tail -3 "$work/err")"
    grep -q '^PASS saxpy$' <<<"$out" || fail "$program on $target: no PASS line"
    grep -q "device: ptx2amd host ($target)" "$work/err" || fail "$program did not run on $target"
  done
done

# The library path: the installed folder first, then the one there was.
seen=$(LD_LIBRARY_PATH=/somewhere "$ptx" run -- sh -c 'echo "$LD_LIBRARY_PATH"')
[ "$seen" = "$lib:/somewhere" ] || fail "library path '$seen'"
# Streams and exit status.
set +e
out=$("$ptx" run -- sh -c 'echo out; echo err >&2; exit 7' 2>"$work/err")
rc=$?
set -e
[ "$rc" = 7 ] && [ "$out" = out ] && [ "$(cat "$work/err")" = err ] ||
  fail "exit status $rc, stdout '$out', stderr '$(cat "$work/err")'"
# A signal ends the program as it would end it alone.
set +e
"$ptx" run sh -c 'kill -TERM $$'
rc=$?
set -e
[ "$rc" = 143 ] || fail "a program killed by SIGTERM gave $rc, want 143"
# Options after PROGRAM are PROGRAM's.
out=$("$ptx" run sh -c 'echo "$1 $2"' sh --arch gfx999)
[ "$out" = "--arch gfx999" ] || fail "the program's arguments came as '$out'"
# Not found: 127, as a shell says.
set +e
"$ptx" run "$work/no-such-program" 2>/dev/null
rc=$?
set -e
[ "$rc" = 127 ] || fail "a missing program gave $rc"

# env: a whole shell session.
(
  eval "$("$ptx" env --device host --arch gfx1100)"
  [ "$PTX2AMD_HOST_TARGET" = gfx1100 ] && [ "$PTX2AMD_DEVICE" = host ] || fail "env settings"
  case "$LD_LIBRARY_PATH" in "$lib"*) ;; *) fail "env library path '$LD_LIBRARY_PATH'" ;; esac
  "$bin/saxpy" 2>/dev/null | grep -q '^PASS saxpy$' || fail "saxpy under 'ptx2amd env'"
)

# From the build tree: the build's own libraries.
seen=$(env -u LD_LIBRARY_PATH "$build/tools/ptx2amd" run -- sh -c 'echo "$LD_LIBRARY_PATH"')
[ "$seen" = "$(cd "$build/runtime" && pwd -P)" ] || fail "build tree library path '$seen'"
# A copy with no libraries beside it says where it looked.
mkdir -p "$work/lonely"
cp "$build/tools/ptx2amd" "$work/lonely/"
set +e
"$work/lonely/ptx2amd" run true 2>"$work/err"
rc=$?
set -e
[ "$rc" = 1 ] && grep -q "are not beside" "$work/err" || fail "no libraries: $rc, $(cat "$work/err")"
echo "PASS cli_run"
