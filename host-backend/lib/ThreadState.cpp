//===- ThreadState.cpp - the worker's thread-local state, in a library of its own ===//
//
// Initial-exec TLS: kernel code reads its state at every region, and the general model's
// __tls_get_addr was a tenth of a compiled workgroup's time. But initial-exec TLS places a
// library's whole TLS block in the static TLS a process sets aside at start (some 1.6 KB), and
// libcuda.so.1's, with LLVM's and lld's thread-locals, is larger: a program that dlopens it once
// running (NVIDIA's matrixMulDynlinkJIT, any Python binding) failed with "cannot allocate memory
// in static TLS block". Alone here (libptx2amd_host_tls.so), the two pointers take 16 bytes of it
// and the rest of the TLS stays dynamic.

#include "Workers.h"

namespace ptx2amd::host::workers {

__attribute__((visibility("default"),
               tls_model("initial-exec"))) constinit thread_local Worker *CurrentWorker = nullptr;
__attribute__((visibility("default"),
               tls_model("initial-exec"))) constinit thread_local LaneState *CurrentState = nullptr;

} // namespace ptx2amd::host::workers
