//===- EntryPoints.cpp - the runtime API's entry points that the table makes ===//
//
// For each line of RuntimeEntryPoints.def that is not implemented in an area's file: a body that
// returns cudaErrorNotSupported and makes it the thread's last error (after the sticky error, as
// every runtime call), with the name in cudaGetErrorString's text and in the log; and for each
// SAME line, the function it names. gen-entry-points admits only names that return cudaError_t
// here, so a body without parameters is right for each: the caller's arguments are left unread.

#include "EntryPoints.h"
#include "Runtime.h"

using namespace ptx2amd::runtime;

#define CUDART_NONE(Name)                                                                          \
  extern "C" cudaError_t Name() {                                                                  \
    static std::atomic<bool> Logged{false};                                                        \
    return guarded([] { return notSupported(#Name, Logged); });                                    \
  }
// Every SAME line is a per-thread-default-stream variant: its null stream is the thread's
// per-thread default stream.
#define CUDART_SAME(Name, Target) PTX2AMD_PER_THREAD_ENTRY(Name, Target)
#include "RuntimeEntryPoints.def"
