#!/usr/bin/env python3
"""Malformed PTX, one defect per module: every numeric field overflowing, absurd sizes, the good
module truncated inside each of its directives. Each goes through `ptx2amd compile` (the whole
pipeline): it must fail with exit status 1 and a located diagnostic (`NAME.ptx:LINE:COLUMN:` then
`error:`) or, for a defect inside a function, a warning that names the kernel it left out —
never a crash, never a silent success.

usage: malformed.py PTX2AMD OUTDIR
"""
import os
import re
import subprocess
import sys

HEADER = ".version 8.0\n.target sm_75\n.address_size 64\n"
KERNEL = (".visible .entry k(.param .u64 out, .param .u32 v)\n{\n  .reg .b32 %r<3>;\n"
          "  .reg .b64 %rd<3>;\n  ld.param.u64 %rd1, [out];\n  cvta.to.global.u64 %rd2, %rd1;\n"
          "  ld.param.u32 %r1, [v];\n  add.s32 %r2, %r1, 1;\n  st.global.u32 [%rd2], %r2;\n"
          "  ret;\n}\n")
O = "99999999999999999999"
GOOD = HEADER + KERNEL

CASES = {
    "version-major": f".version {O}.0\n.target sm_75\n.address_size 64\n" + KERNEL,
    "version-minor": f".version 8.{O}\n.target sm_75\n.address_size 64\n" + KERNEL,
    "target": f".version 8.0\n.target sm_{O}\n.address_size 64\n" + KERNEL,
    "address-size": f".version 8.0\n.target sm_75\n.address_size {O}\n" + KERNEL,
    "align": HEADER + f".global .align {O} .b8 g[4];\n" + KERNEL,
    "array-dimension": HEADER + f".global .b8 g[{O}];\n" + KERNEL,
    "array-size": HEADER + ".global .b8 g[4294967296][4294967296][4294967296];\n" + KERNEL,
    "initializer": HEADER + f".global .u32 g = {O};\n" + KERNEL,
    "vector-count": HEADER + f".global .v{O} .f32 g;\n" + KERNEL,
    "register-count": HEADER + f".visible .entry k()\n{{\n  .reg .b32 %r<{O}>;\n  ret;\n}}\n",
    "maxntid": HEADER + f".visible .entry k() .maxntid {O}, 1, 1\n{{\n  ret;\n}}\n",
    "minnctapersm": HEADER + f".visible .entry k() .minnctapersm {O}\n{{\n  ret;\n}}\n",
    "immediate": HEADER + f".visible .entry k()\n{{\n  .reg .b32 %r<2>;\n  mov.u32 %r1, {O};\n"
                          "  ret;\n}\n",
    "param-align": HEADER + f".visible .entry k(.param .align {O} .b8 p[4])\n{{\n  ret;\n}}\n",
    "local-size": HEADER + ".visible .entry k()\n{\n  .local .b8 big[18446744073709551615];\n"
                           "  ret;\n}\n",
}
for cut in (".target", ".address_size", ".visible .entry k(", ".param .u32 v)", ".reg .b64",
            "add.s32 %r2", "ret;"):
    at = GOOD.find(cut) + len(cut) // 2
    CASES["cut-" + re.sub(r"[^a-z0-9]+", "-", cut.strip(".")).strip("-")] = GOOD[:at]


def main():
    ptx2amd, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    bad = 0
    for name, text in sorted(CASES.items()):
        path = os.path.join(out, name + ".ptx")
        with open(path, "w") as f:
            f.write(text)
        run = subprocess.run([ptx2amd, "compile", "--arch", "gfx1100", path, "-o",
                              os.path.join(out, name + ".hsaco")], capture_output=True, text=True)
        located = re.search(re.escape(name) + r"\.ptx:\d+:\d+: (error|warning):", run.stderr)
        left_out = re.search(r"kernel 'k'", run.stderr)
        if run.returncode == 1 and (located or left_out):
            print(f"ok {name}: {run.stderr.strip().splitlines()[0]}")
        else:
            bad += 1
            print(f"BAD {name}: exit {run.returncode}: {run.stderr.strip()[:300]}")
    print(f"{len(CASES)} malformed modules, {bad} not refused cleanly")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
