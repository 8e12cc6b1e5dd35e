#!/usr/bin/env bash
# The PTX that `dump-ir --ptx` prints must be accepted by NVIDIA's ptxas whenever the input is.
# Usage: ptxas-check.sh PTX2AMD PTXAS OUTDIR FILE...
set -uo pipefail
tool=$1 ptxas=$2 out=$3
shift 3
mkdir -p "$out"
status=0 checked=0
for f in "$@"; do
  arch=$(grep -m1 '^\.target' "$f" | sed 's/\.target//; s/,.*//; s/[[:space:]]//g')
  [ -n "$arch" ] || continue
  "$ptxas" -arch="$arch" "$f" -o /dev/null >/dev/null 2>&1 || continue # input not valid for ptxas
  b=$out/$(basename "$f")
  if ! "$tool" dump-ir --ptx "$f" -o "$b" 2>/dev/null; then
    echo "FAIL: $f: dump-ir --ptx failed"
    status=1
    continue
  fi
  if ! err=$("$ptxas" -arch="$arch" "$b" -o /dev/null 2>&1); then
    echo "FAIL: ptxas rejects the PTX printed for $f:"
    echo "$err" | head -5
    status=1
  fi
  checked=$((checked + 1))
done
echo "ptxas accepted the printed PTX of $checked files"
[ "$checked" -gt 0 ] || status=1
exit $status
