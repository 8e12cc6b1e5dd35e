#!/usr/bin/env python3
"""`ptx2amd check` says of each kernel exactly what `ptx2amd compile` does with it: the kernels check
reports as in the code object are, for every input and target, the kernels (as a multiset of
names) of the code objects compile writes, code generation failures included.

usage: check-matches-compile.py PTX2AMD READELF TARGETS INPUT...
  TARGETS: comma-separated, e.g. gfx90a,gfx1100
"""
import collections
import json
import os
import subprocess
import sys
import tempfile


def checked(ptx2amd, target, path):
    """Kernel names in the code object per check --json, and all kernel names it lists."""
    run = subprocess.run([ptx2amd, "check", "--json", "--arch", target, path],
                         capture_output=True, text=True)
    if run.returncode not in (0, 1):
        sys.exit(f"check {path} failed ({run.returncode}): {run.stderr}")
    inside, listed = collections.Counter(), collections.Counter()
    for module in json.loads(run.stdout):
        for kernel in module.get("kernels", []):
            listed[kernel["name"]] += 1
            if kernel["in_code_object"]:
                inside[kernel["name"]] += 1
    return inside, listed


def compiled(ptx2amd, readelf, target, path, scratch):
    """Kernel names in the code objects compile writes (their `.kd` descriptors)."""
    out = os.path.join(scratch, target)
    os.makedirs(out)
    # Without -o, compile writes one code object per module into the current folder.
    run = subprocess.run([ptx2amd, "compile", "--arch", target, os.path.abspath(path)],
                         capture_output=True, text=True, cwd=out)
    if run.returncode not in (0, 1):
        sys.exit(f"compile {path} failed ({run.returncode}): {run.stderr}")
    names = collections.Counter()
    for name in sorted(os.listdir(out)):
        syms = subprocess.run([readelf, "--dyn-syms", "--wide", os.path.join(out, name)],
                              capture_output=True, text=True, check=True).stdout
        for line in syms.splitlines():
            fields = line.split()
            if len(fields) >= 8 and fields[7].endswith(".kd"):
                names[fields[7][:-3]] += 1
    return names


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    ptx2amd, readelf, targets, inputs = sys.argv[1], sys.argv[2], sys.argv[3].split(","), sys.argv[4:]
    failures = compared = 0
    for path in inputs:
        for target in targets:
            with tempfile.TemporaryDirectory() as scratch:
                inside, listed = checked(ptx2amd, target, path)
                got = compiled(ptx2amd, readelf, target, path, scratch)
            compared += sum(listed.values())
            if inside != got:
                failures += 1
                print(f"MISMATCH {os.path.basename(path)} [{target}]:")
                for name in sorted(set(inside) | set(got)):
                    if inside[name] != got[name]:
                        print(f"  {name}: check says {inside[name]} in the code object, "
                              f"compile wrote {got[name]}")
    print(f"{len(inputs)} inputs x {len(targets)} targets, {compared} kernels compared, "
          f"{failures} mismatches")
    if compared == 0:
        sys.exit("nothing was compared")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
