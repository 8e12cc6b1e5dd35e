#!/usr/bin/env python3
"""Every row of the driver's proc-address table, as a program reaches it: for each
`PFN_<name>_v<version>[_ptds|_ptsz]` typedef of the toolkit's cudaTypedefs.h, cuGetProcAddress_v2
of our libcuda.so.1 resolves <name> at <version> (per-thread flavour for _ptds/_ptsz) to an
exported function of that name's family, in that flavour; and the versions of one name resolve to
distinct variants, later versions to later variants (a PFN version exists because the ABI changed).

usage: proc-address-rows.py LIBCUDA CUDATYPEDEFS_H
"""
import collections
import ctypes
import os
import re
import sys

PER_THREAD, LEGACY = 1 << 1, 1 << 0


class DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


def main():
    # libcuda.so.1 has initial-exec TLS, as a library programs link is built: loaded at start-up
    # (as a program loads it), not dlopen'ed late.
    if os.environ.get("LD_PRELOAD") != sys.argv[1]:
        os.execve(sys.executable, [sys.executable] + sys.argv,
                  dict(os.environ, LD_PRELOAD=sys.argv[1]))
    lib = ctypes.CDLL(sys.argv[1])
    libc = ctypes.CDLL(None)
    libc.dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(DlInfo)]
    get = lib.cuGetProcAddress_v2
    get.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_int,
                    ctypes.c_uint64, ctypes.POINTER(ctypes.c_int)]
    rows = sorted(set(re.findall(r"\bPFN_(cu\w+?)_v(\d+)(_ptds|_ptsz)?\b",
                                 open(sys.argv[2]).read())))
    bad = []
    variants = collections.defaultdict(list)  # (name, flavour) -> [(version, symbol)]
    for name, version, flavour in rows:
        fn, status = ctypes.c_void_p(), ctypes.c_int(-1)
        flags = PER_THREAD if flavour else LEGACY
        r = get(name.encode(), ctypes.byref(fn), int(version), flags, ctypes.byref(status))
        info = DlInfo()
        symbol = ""
        if fn.value and libc.dladdr(fn, ctypes.byref(info)) and info.dli_sname:
            symbol = info.dli_sname.decode()
        family = re.sub(r"(_v\d+)?(_ptds|_ptsz)?$", "", symbol)
        row = f"PFN_{name}_v{version}{flavour}"
        if r != 0 or status.value != 0 or not fn.value:
            bad.append(f"{row}: result {r}, status {status.value}")
        elif family != name:
            bad.append(f"{row}: resolves to {symbol or hex(fn.value)}")
        elif bool(flavour) != symbol.endswith(("_ptds", "_ptsz")):
            bad.append(f"{row}: resolves to {symbol}, not the {flavour or 'default'} flavour")
        else:
            variants[(name, flavour)].append((int(version), symbol))

    def variant(symbol):
        m = re.search(r"_v(\d+)(_ptds|_ptsz)?$", symbol)
        return int(m.group(1)) if m else 1

    for (name, flavour), seen in variants.items():
        seen.sort()
        numbers = [variant(s) for _, s in seen]
        if len(set(numbers)) != len(numbers) or numbers != sorted(numbers):
            bad.append(f"{name}{flavour}: versions resolve to "
                       + ", ".join(f"v{v}->{s}" for v, s in seen))
    for line in bad:
        print("BAD", line)
    print(f"{len(rows)} PFN typedefs of cudaTypedefs.h resolved, {len(bad)} wrong")
    sys.exit(1 if bad or not rows else 0)


if __name__ == "__main__":
    main()
