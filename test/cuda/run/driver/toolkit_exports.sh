#!/bin/sh
# toolkit_exports.sh OURS [CUDA]
# runtime/'s stand-in for a toolkit library (OURS: libnvrtc.so.13, libnvJitLink.so.13) exports
# every symbol that the CUDA toolkit's library of that file name does, each at the same version
# node, and no others: a program linked against NVIDIA's library binds all of its symbols to
# ours. Skips (77) without the toolkit's library.
set -u
ours=$1 cuda=${2:-${CUDA_PATH:-/usr/local/cuda}}
[ -n "$cuda" ] || cuda=/usr/local/cuda
name=$(basename "$ours")
theirs=$cuda/lib64/$name
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
echo "PASS exports $name"
