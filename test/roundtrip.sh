#!/usr/bin/env bash
# Printer round trip: for each PTX file, the IR printed as PTX must read back to the same SSA IR,
# and printing it as PTX again must give the same text. Usage: roundtrip.sh PTX2AMD OUTDIR FILE...
set -euo pipefail
tool=$1 out=$2
shift 2
mkdir -p "$out"
status=0
for f in "$@"; do
  b=$out/$(basename "$f")
  "$tool" dump-ir --ptx "$f" -o "$b.1.ptx"
  "$tool" dump-ir --ptx "$b.1.ptx" -o "$b.2.ptx"
  "$tool" dump-ir "$f" | tail -n +2 > "$b.0.ssa"
  "$tool" dump-ir "$b.1.ptx" | tail -n +2 > "$b.1.ssa"
  if ! cmp -s "$b.0.ssa" "$b.1.ssa"; then
    echo "the PTX printed for $f reads back to different IR:"
    diff "$b.0.ssa" "$b.1.ssa" | head -20
    status=1
  fi
  if ! cmp -s "$b.1.ptx" "$b.2.ptx"; then
    echo "round trip differs for $f:"
    diff "$b.1.ptx" "$b.2.ptx" | head -20
    status=1
  fi
done
exit $status
