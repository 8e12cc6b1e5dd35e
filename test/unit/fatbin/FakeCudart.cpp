//===- FakeCudart.cpp - a minimal stand-in for cudart's registration ABI --===//
//
// kernels.o, rdc_a.o, rdc_b.o and rdc_dlink.o (built by nvcc) are linked into
// fatbin_tests. Their constructors register their fatbins at start-up; these
// definitions capture the wrapper pointers so that the tests can read them the
// way the runtime loader will. Nothing is ever launched.
//
//===----------------------------------------------------------------------===//
#include "FakeCudart.h"

#include <cstddef>

namespace fbtest {
static std::vector<const void *> &wrappers() {
  static std::vector<const void *> W;
  return W;
}
const std::vector<const void *> &registeredWrappers() { return wrappers(); }
} // namespace fbtest

extern "C" {
static void *FakeHandle[4];

void **__cudaRegisterFatBinary(void *FatCubin) {
  fbtest::wrappers().push_back(FatCubin);
  return FakeHandle;
}
void __cudaRegisterFatBinaryEnd(void **) {}
void __cudaUnregisterFatBinary(void **) {}
void __cudaRegisterFunction(void **, const char *, char *, const char *, int, void *, void *,
                            void *, void *, int *) {}
void __cudaRegisterVar(void **, char *, char *, const char *, int, size_t, int, int) {}
void __cudaRegisterManagedVar(void **, void **, char *, const char *, int, size_t, int, int) {}
char __cudaInitModule(void **) { return 0; }
unsigned __cudaPushCallConfiguration(...) { return 0; }
int __cudaPopCallConfiguration(void *, void *, void *, void *) { return 0; }
int __cudaLaunchKernel(...) { return 1; }
int __cudaGetKernel(void **, const void *) { return 1; }
}
