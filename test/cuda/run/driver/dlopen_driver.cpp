// dlopen_driver: a program that loads the driver itself once running, as NVIDIA's
// matrixMulDynlinkJIT and language bindings do: dlopen("libcuda.so.1", RTLD_NOW) from a process
// that linked no CUDA library, then cuInit, cuDeviceGetCount and cuDeviceGetName through dlsym.
// libcuda.so.1's thread-locals must not all need static TLS: a late dlopen has only the little a
// process sets aside ("cannot allocate memory in static TLS block").
#include <cstdio>
#include <dlfcn.h>

static const char *kName = "dlopen_driver";

int main() {
  void *Driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!Driver) {
    std::printf("FAIL %s: dlopen: %s\n", kName, dlerror());
    return 1;
  }
  using Init = int (*)(unsigned);
  using Count = int (*)(int *);
  using Name = int (*)(char *, int, int);
  auto CuInit = reinterpret_cast<Init>(dlsym(Driver, "cuInit"));
  auto CuCount = reinterpret_cast<Count>(dlsym(Driver, "cuDeviceGetCount"));
  auto CuName = reinterpret_cast<Name>(dlsym(Driver, "cuDeviceGetName"));
  if (!CuInit || !CuCount || !CuName) {
    std::printf("FAIL %s: dlsym: %s\n", kName, dlerror());
    return 1;
  }
  int Devices = 0;
  char DeviceName[256] = {};
  int R = CuInit(0);
  if (!R)
    R = CuCount(&Devices);
  if (!R && Devices > 0)
    R = CuName(DeviceName, sizeof DeviceName, 0);
  if (R || Devices < 1) {
    std::printf("FAIL %s: driver calls returned %d (%d devices)\n", kName, R, Devices);
    return 1;
  }
  std::printf("%d device(s): %s\nPASS %s\n", Devices, DeviceName, kName);
  return 0;
}
