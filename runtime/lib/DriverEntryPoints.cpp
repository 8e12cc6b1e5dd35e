//===- DriverEntryPoints.cpp - the driver API's entry points that the table makes ===//
//
// For each line of DriverEntryPoints.def that is not implemented in an area's file: a body that
// returns CUDA_ERROR_NOT_SUPPORTED (after CUDA_ERROR_NOT_INITIALIZED before cuInit and the
// sticky error, as every driver call), with the name in cuGetErrorString's text and in the log;
// and for each SAME line, the function it names. Every driver function returns CUresult, so a
// body without parameters is right for any signature: the caller's arguments are left unread.

#include "Driver.h"
#include "EntryPoints.h"

using namespace ptx2amd::runtime;

#define CU_NONE(Name, Base, Variant, Version, PerThread)                                           \
  extern "C" CUresult Name() {                                                                     \
    static std::atomic<bool> Logged{false};                                                        \
    return driverCall([] { return notSupported(#Name, Logged); });                                 \
  }
// A per-thread variant's null stream is the thread's per-thread default stream.
#define CU_SAME(Name, Base, Variant, Version, PerThread, Target)                                   \
  PTX2AMD_SAME_OR_PER_THREAD_##PerThread(Name, Target)
#define PTX2AMD_SAME_OR_PER_THREAD_0(Name, Target) PTX2AMD_SAME_ENTRY(Name, Target)
#define PTX2AMD_SAME_OR_PER_THREAD_1(Name, Target) PTX2AMD_PER_THREAD_ENTRY(Name, Target)
#include "DriverEntryPoints.def"
