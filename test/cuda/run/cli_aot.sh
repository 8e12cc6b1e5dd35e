#!/usr/bin/env bash
# `ptx2amd aot` on project programs for both wave sizes: after it, their runs translate nothing
# (every lookup a cache hit); a second aot translates nothing; an aot interrupted after its
# first kernels resumes where it stopped; --json is JSON with the same counts; code objects for
# GPUs the machine lacks (--device hsa) are translated, and a second time found.
# usage: cli_aot.sh PTX2AMD PROGRAM_DIR WORK_DIR
set -euo pipefail
ptx=$1 bin=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL cli_aot: $*"; exit 1; }
programs=("$bin/saxpy" "$bin/saxpy.static" "$bin/cub_scan" "$bin/runtime_api.static")

# runtime_api holds a kernel that cannot be translated ('pmevent'): aot names it and exits 1.
set +e
"$ptx" aot --cache "$work/cache" --arch gfx90a,gfx1100 "${programs[@]}" >"$work/first"
rc=$?
set -e
cat "$work/first"
[ "$rc" = 1 ] || fail "aot exited $rc"
[ "$(grep -c "failed: .*kernel '_Z11unavailablePj' .*'pmevent' is not supported yet" "$work/first")" = 2 ] ||
  fail "the kernel that cannot be translated is not named"
for target in gfx90a gfx1100; do
  grep -q "^$target on ptx2amd host ($target): 4 files, 4 modules, [0-9]* kernels: [1-9][0-9]* translated, 0 already in the cache, 1 failed" \
    "$work/first" || fail "first aot for $target"
  for program in "${programs[@]}"; do
    PTX2AMD_LOG=info PTX2AMD_CACHE_DIR=$work/cache "$ptx" run --device host --arch "$target" \
      "$program" >"$work/out" 2>"$work/log" || fail "$program on $target after aot"
    grep -q '^PASS ' "$work/out" || fail "$program on $target: no PASS line"
    grep -q 'cache hit' "$work/log" || fail "$program on $target: no cache hit"
    ! grep -E 'cache miss|translated ' "$work/log" || fail "$program on $target translated"
  done
done

"$ptx" aot --cache "$work/cache" --arch gfx90a,gfx1100 "${programs[@]}" >"$work/second" || true
[ "$(grep -c ' 0 translated, [1-9][0-9]* already in the cache, 1 failed' "$work/second")" = 2 ] ||
  fail "the second aot translated: $(cat "$work/second")"

# Interrupted (SIGTERM: a script's background job ignores SIGINT) once its first translations
# are in the cache, then resumed: more programs, one kernel at a time.
more=("${programs[@]}" "$bin/textures" "$bin/graphs" "$bin/device_heap" "$bin/grid_sync")
"$ptx" aot --cache "$work/resume" --jobs 1 --arch gfx1100 "${more[@]}" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 3000); do
  [ "$(find "$work/resume" -name '*.p2ac' 2>/dev/null | wc -l)" -ge 3 ] && break
  sleep 0.01
done
kill -TERM "$pid" 2>/dev/null || true
wait "$pid" || true
"$ptx" aot --cache "$work/resume" --arch gfx1100 --json "${more[@]}" >"$work/resumed.json" || true
"$ptx" aot --cache "$work/all" --arch gfx1100 --json "${more[@]}" >"$work/all.json" || true
python3 - "$work/resumed.json" "$work/all.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["targets"][0]
total = json.load(open(sys.argv[2]))["targets"][0]["kernels"]
assert r["kernels"] == total, (r["kernels"], total)
assert r["translated"] + r["cached"] + len(r["failed"]) == total and len(r["failed"]) == 1, r
assert r["cached"] >= 1, "nothing was kept from the interrupted run"
print(f"resumed: {r['cached']} of {total} kernels from the interrupted run, "
      f"{r['translated']} translated")
PY
{ "$ptx" aot --cache "$work/resume" --arch gfx1100 "${more[@]}" || true; } | grep -q ' 0 translated, ' ||
  fail "after resuming, an aot still translated"
# Code objects for GPUs this machine lacks: translated only, into a cache to copy; again, nothing.
for round in 1 2; do
  "$ptx" aot --device hsa --arch gfx942,gfx1201 --cache "$work/gpu" "${programs[@]}" >"$work/gpu.$round" || true
done
[ "$(grep -c 'code objects (translation only): 4 files, 4 modules, [0-9]* kernels: [1-9][0-9]* translated, 0 already in the cache, 1 failed' "$work/gpu.1")" = 2 ] ||
  fail "aot for GPUs: $(cat "$work/gpu.1")"
[ "$(grep -c ' 0 translated, [1-9][0-9]* already in the cache, 1 failed' "$work/gpu.2")" = 2 ] ||
  fail "the second aot for GPUs translated: $(cat "$work/gpu.2")"
echo "PASS cli_aot"
