//===- ProcAddress.cpp - cuGetProcAddress: the driver's functions by name ===//
//
// Programs and libraries (the static runtime, NVRTC users, frameworks) find driver functions by
// their base name ("cuMemAlloc") and the CUDA version they were built against; the answer is the
// variant whose ABI was current at that version (cuMemAlloc_v2 from 3.2, cuMemAlloc before),
// or its per-thread-default-stream variant (_ptds/_ptsz) when the flags ask for one and it
// exists. Every name of DriverEntryPoints.def is found, implemented or not: a program that
// resolves all it may need at start-up (the static runtime does) starts, and what it calls that
// is not implemented answers CUDA_ERROR_NOT_SUPPORTED.

#include "Driver.h"
#include "DriverGraphs.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cassert>
#include <iterator>

// The table's own entry points (DriverEntryPoints.cpp); the implemented ones are in Driver.h
// and DriverGraphs.h.
#define CU_NONE(Name, Base, Variant, Version, PerThread) extern "C" CUresult Name();
#define CU_SAME(Name, Base, Variant, Version, PerThread, Target) extern "C" CUresult Name();
#include "DriverEntryPoints.def"

namespace {

struct ProcEntry {
  llvm::StringRef Base;
  int Version; ///< from which this variant is the base name's
  bool PerThread;
  void *Fn;
};

// Sorted by base name (the .def's order).
const ProcEntry Procs[] = {
#define CU_IMPL(Name, Base, Variant, Version, PerThread)                                           \
  {#Base, Version, PerThread != 0, reinterpret_cast<void *>(&Name)},
#define CU_SAME(Name, Base, Variant, Version, PerThread, Target)                                   \
  {#Base, Version, PerThread != 0, reinterpret_cast<void *>(&Name)},
#define CU_NONE(Name, Base, Variant, Version, PerThread)                                           \
  {#Base, Version, PerThread != 0, reinterpret_cast<void *>(&Name)},
#include "DriverEntryPoints.def"
};

constexpr uint64_t PerThreadDefaultStream = 2; // CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM

CUdriverProcAddressQueryResult findProc(llvm::StringRef Name, int CudaVersion, uint64_t Flags,
                                        void *&Fn) {
  Fn = nullptr;
  // A per-thread name asks for the per-thread variant (cuMemcpy_ptds as cuMemcpy with flag 2).
  bool PerThread = Flags & PerThreadDefaultStream;
  if (Name.consume_back("_ptds") || Name.consume_back("_ptsz"))
    PerThread = true;
  auto ByBase = [](const ProcEntry &A, const ProcEntry &B) { return A.Base < B.Base; };
  [[maybe_unused]] static const bool Sorted =
      std::is_sorted(std::begin(Procs), std::end(Procs), ByBase);
  assert(Sorted && "DriverEntryPoints.def is sorted by base name");
  auto [First, Last] = std::equal_range(std::begin(Procs), std::end(Procs),
                                        ProcEntry{Name, 0, false, nullptr}, ByBase);
  if (First == Last)
    return CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  // The newest variant of each kind at the version asked for; the default-stream one when no
  // per-thread variant exists at that version (as CUDA's driver falls back). A version newer
  // than ours is answered as ours, where CUDA's driver refuses it (CUDA_ERROR_INVALID_VALUE):
  // programs built by a newer toolkit keep finding what exists.
  const ProcEntry *Default = nullptr, *ThreadVariant = nullptr;
  for (const ProcEntry *E = First; E != Last; ++E) {
    if (E->Version > CudaVersion)
      continue;
    const ProcEntry *&Best = E->PerThread ? ThreadVariant : Default;
    if (!Best || E->Version > Best->Version)
      Best = E;
  }
  const ProcEntry *Found = PerThread && ThreadVariant ? ThreadVariant : Default;
  if (!Found)
    return CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
  Fn = Found->Fn;
  return CU_GET_PROC_ADDRESS_SUCCESS;
}

} // namespace

extern "C" {

CUresult cuGetProcAddress_v2(const char *Symbol, void **Fn, int CudaVersion, uint64_t Flags,
                             CUdriverProcAddressQueryResult *Status) {
  if (!Symbol || !Fn)
    return CUDA_ERROR_INVALID_VALUE;
  CUdriverProcAddressQueryResult S = findProc(Symbol, CudaVersion, Flags, *Fn);
  if (Status)
    *Status = S;
  return S == CU_GET_PROC_ADDRESS_SUCCESS ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

CUresult cuGetProcAddress(const char *Symbol, void **Fn, int CudaVersion, uint64_t Flags) {
  return cuGetProcAddress_v2(Symbol, Fn, CudaVersion, Flags, nullptr);
}

} // extern "C"
