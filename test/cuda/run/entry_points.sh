#!/bin/sh
# entry_points.sh LIBDIR SOURCEDIR [CUDA]
# Every function that NVIDIA's libcudart.so.13 and the CUDA toolkit's stub libcuda.so export is
# exported by runtime/'s libcudart.so.13 and libcuda.so.1 (in LIBDIR): the names missing are
# printed and fail the test. The tables in SOURCEDIR/runtime must be what
# scripts/gen-entry-points makes of the toolkit (versions, variants, order). Then prints, from
# the tables, how many entry points of each library are implemented and how many answer
# not-supported. Skips (77) without the toolkit's libraries.
set -u
libdir=$1 src=$2 cuda=${3:-${CUDA_PATH:-/usr/local/cuda}}
nv_runtime=$cuda/lib64/libcudart.so.13
nv_driver=$cuda/lib64/stubs/libcuda.so
for lib in "$nv_runtime" "$nv_driver"; do
  if [ ! -f "$lib" ]; then
    echo "SKIP: no $lib (the CUDA toolkit)"
    exit 77
  fi
done

# The defined functions' names, without symbol versions.
functions() {
  nm -D --defined-only "$1" | awk '$2 ~ /^[TtWi]$/ { sub(/@.*/, "", $3); print $3 }' | sort -u
}

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
for pair in "$nv_runtime:$libdir/libcudart.so.13" "$nv_driver:$libdir/libcuda.so.1"; do
  theirs=${pair%%:*} ours=${pair#*:}
  functions "$theirs" >"$tmp/theirs" || exit 1
  functions "$ours" >"$tmp/ours" || exit 1
  comm -23 "$tmp/theirs" "$tmp/ours" >"$tmp/missing"
  printf '%s: %d of the %d functions of %s\n' "$ours" \
    $(($(wc -l <"$tmp/theirs") - $(wc -l <"$tmp/missing"))) "$(wc -l <"$tmp/theirs")" "$theirs"
  if [ -s "$tmp/missing" ]; then
    echo "FAIL: $ours lacks $(wc -l <"$tmp/missing") of them:"
    sed 's/^/  /' "$tmp/missing"
    status=1
  fi
done

if command -v python3 >/dev/null && ! python3 "$src/scripts/gen-entry-points" --check --cuda "$cuda"; then
  echo "FAIL: the tables are not what scripts/gen-entry-points makes of $cuda"
  status=1
fi

# The tables: IMPL and SAME lines are implemented, NONE lines answer not-supported.
for table in "libcudart.so.13 CUDART $src/runtime/cudart/RuntimeEntryPoints.def" \
             "libcuda.so.1 CU $src/runtime/lib/DriverEntryPoints.def"; do
  set -- $table
  impl=$(grep -cE "^$2_(IMPL|SAME)\(" "$3")
  none=$(grep -cE "^$2_NONE\(" "$3")
  echo "$1: $((impl + none)) entry points: $impl implemented, $none return not-supported"
done
[ $status -eq 0 ] && echo "PASS entry_points exports"
exit $status
