#!/bin/sh
# nvrtc_exports.sh LIBNVRTC [CUDA]
# runtime/'s libnvrtc.so.13 (LIBNVRTC) exports every symbol that the CUDA toolkit's does, each at
# the same version node (libnvrtc.so.13), and no others: a program linked against NVIDIA's
# library binds all of its NVRTC symbols to ours. Skips (77) without the toolkit's library.
set -u
ours=$1 cuda=${2:-${CUDA_PATH:-/usr/local/cuda}}
[ -n "$cuda" ] || cuda=/usr/local/cuda
theirs=$cuda/lib64/libnvrtc.so.13
if [ ! -f "$theirs" ]; then
  echo "SKIP: no $theirs (the CUDA toolkit)"
  exit 77
fi

# Defined dynamic symbols with their versions (name@@node), the version node's own symbol too.
symbols() {
  nm -D --defined-only "$1" | awk '{ print $NF }' | sort -u
}

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
symbols "$theirs" >"$tmp/theirs" || exit 1
symbols "$ours" >"$tmp/ours" || exit 1
printf '%s: %d symbols; %s: %d\n' "$theirs" "$(wc -l <"$tmp/theirs")" "$ours" \
  "$(wc -l <"$tmp/ours")"
if ! diff -u "$tmp/theirs" "$tmp/ours"; then
  echo "FAIL: $ours does not export what $theirs does (- theirs only, + ours only)"
  exit 1
fi
echo "PASS nvrtc_exports"
