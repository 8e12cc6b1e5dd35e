// device_faults: a kernel that fails while it runs (a trap, a failed assertion, a store to a wild
// address, an endless loop that the watchdog stops) gives CUDA's error for that kind of failure,
// sticky as CUDA's are: the call that meets it (a copy from a symbol, a synchronisation, a copy,
// a stream's synchronisation) and every later one return it, through the runtime API and the
// driver API alike. cudaGetErrorString and cuGetErrorString keep CUDA's texts, which programs
// print and compare; the reason, naming the kernel, is one "ptx2amd:" line on stderr.
//
// A sticky error ends a process's use of the device, so the program runs itself once a case
// (argument: the case's name) and checks each run's output, stderr included.
#include <cassert>
#include <cstdio>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>
#include <string>
#include <unistd.h>

static const char *kName = "device_faults";

#include "../check.h"

__device__ int symbol;

extern "C" __global__ void traps() { __trap(); }
extern "C" __global__ void asserts(int v) { assert(v == 0); }
extern "C" __global__ void stores_wild(int *p) { *p = 1; }
extern "C" __global__ void spins(volatile int *flag) {
  while (*flag == 0) {
  }
}

// A user-space address that nothing maps (past the program, its heap and its libraries).
static int *const kWild = reinterpret_cast<int *>(0x100000000000ull);

struct Case {
  const char *Name;
  cudaError_t Code;
  const char *CodeName;
  CUresult Result;
  const char *ResultName;
  const char *Text;   ///< CUDA's, for both APIs
  const char *Reason; ///< what the stderr line says beyond the kernel's name
};

static const Case kCases[] = {
    {"traps", cudaErrorLaunchFailure, "cudaErrorLaunchFailure", CUDA_ERROR_LAUNCH_FAILED,
     "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure", "trapped"},
    {"asserts", cudaErrorAssert, "cudaErrorAssert", CUDA_ERROR_ASSERT, "CUDA_ERROR_ASSERT",
     "device-side assert triggered", "Assertion `v == 0' failed"},
    {"stores_wild", cudaErrorIllegalAddress, "cudaErrorIllegalAddress", CUDA_ERROR_ILLEGAL_ADDRESS,
     "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered", "100000000000"},
    {"spins", cudaErrorLaunchTimeout, "cudaErrorLaunchTimeout", CUDA_ERROR_LAUNCH_TIMEOUT,
     "CUDA_ERROR_LAUNCH_TIMEOUT", "the launch timed out and was terminated", "no progress"},
};

using CtxSynchronize = CUresult (*)();
using GetErrorText = CUresult (*)(CUresult, const char **);

// One case, in a process of its own: the kernel fails, and every call after it sees so.
static int runCase(const Case &c) {
  // The driver's entry points, taken before the failure makes every runtime call return it.
  CtxSynchronize ctxSynchronize = nullptr;
  GetErrorText getErrorName = nullptr, getErrorString = nullptr;
  cudaDriverEntryPointQueryResult found;
  CK(cudaGetDriverEntryPointByVersion("cuCtxSynchronize", (void **)&ctxSynchronize, 12000,
                                      cudaEnableDefault, &found));
  CK(cudaGetDriverEntryPointByVersion("cuGetErrorName", (void **)&getErrorName, 12000,
                                      cudaEnableDefault, &found));
  CK(cudaGetDriverEntryPointByVersion("cuGetErrorString", (void **)&getErrorString, 12000,
                                      cudaEnableDefault, &found));
  EXPECT(ctxSynchronize && getErrorName && getErrorString);
  int *d = nullptr;
  CK(cudaMalloc(&d, sizeof(int)));
  CK(cudaMemset(d, 0, sizeof(int)));
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  CK(cudaDeviceSynchronize());

  // The launch succeeds; the failure comes with the first call that waits for the kernel, each
  // case through another kind of call.
  int h = 0;
  cudaError_t first = cudaSuccess;
  if (!strcmp(c.Name, "traps")) {
    traps<<<1, 1>>>();
    EXPECT(cudaGetLastError() == cudaSuccess);
    // NVIDIA's binomialOptions met its kernel's failure here ("invalid value" before).
    first = cudaMemcpyFromSymbol(&h, symbol, sizeof h);
  } else if (!strcmp(c.Name, "asserts")) {
    asserts<<<1, 1>>>(1);
    EXPECT(cudaGetLastError() == cudaSuccess);
    first = cudaDeviceSynchronize();
  } else if (!strcmp(c.Name, "stores_wild")) {
    stores_wild<<<1, 1>>>(kWild);
    EXPECT(cudaGetLastError() == cudaSuccess);
    first = cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
  } else {
    spins<<<1, 1, 0, s>>>(d);
    EXPECT(cudaGetLastError() == cudaSuccess);
    first = cudaStreamSynchronize(s);
  }
  printf("%s: first call %s\n", c.Name, cudaGetErrorName(first));
  EXPECT(first == c.Code);

  // Sticky: every later call returns it, a copy, a synchronisation, an allocation.
  EXPECT(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost) == c.Code);
  EXPECT(cudaDeviceSynchronize() == c.Code);
  int *more = nullptr;
  EXPECT(cudaMalloc(&more, sizeof(int)) == c.Code);
  EXPECT(cudaGetLastError() == c.Code);
  EXPECT(strcmp(cudaGetErrorName(c.Code), c.CodeName) == 0);
  EXPECT(strcmp(cudaGetErrorString(c.Code), c.Text) == 0);

  // The driver API shares it, with CUDA's names and texts.
  CUresult r = ctxSynchronize();
  const char *name = nullptr, *text = nullptr;
  EXPECT(getErrorName(r, &name) == CUDA_SUCCESS && getErrorString(r, &text) == CUDA_SUCCESS);
  printf("%s: cuCtxSynchronize %d %s: %s\n", c.Name, int(r), name, text);
  EXPECT(r == c.Result);
  EXPECT(strcmp(name, c.ResultName) == 0);
  EXPECT(strcmp(text, c.Text) == 0);
  printf("%s: %s, %s: %s\n", c.Name, cudaGetErrorName(c.Code), c.ResultName, c.Text);
  printf("case %s passed\n", c.Name);
  return 0;
}

// Runs the program on case \p c with stderr captured: the checks above passed, and the stderr
// line names the kernel and the reason, once.
static int checkCase(const std::string &self, const Case &c) {
  // The watchdog stops the endless loop after a second rather than the default 5.
  std::string cmd = std::string(!strcmp(c.Name, "spins") ? "PTX2AMD_HOST_WATCHDOG_MS=1000 " : "") +
                    "'" + self + "' " + c.Name + " 2>&1";
  FILE *p = popen(cmd.c_str(), "r");
  EXPECT(p != nullptr);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0)
    out.append(buf, n);
  int status = pclose(p);
  // As it is: run.sh reads the device, translation and cache lines of the runs.
  fputs(out.c_str(), stdout);
  EXPECT(status == 0);
  EXPECT(out.find(std::string("case ") + c.Name + " passed\n") != std::string::npos);
  const std::string line = std::string("ptx2amd: ") + c.Text + ": kernel '" + c.Name + "'";
  size_t at = out.find(line);
  EXPECT(at != std::string::npos);
  EXPECT(out.find(line, at + 1) == std::string::npos);
  // The reason follows, on that line or (an assertion's text) on the next ones.
  EXPECT(out.find(c.Reason, at) != std::string::npos);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1) {
    for (const Case &c : kCases)
      if (!strcmp(argv[1], c.Name))
        return runCase(c);
    printf("FAIL %s: no case '%s'\n", kName, argv[1]);
    return 1;
  }
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  EXPECT(n > 0);
  self[n] = '\0';
  fflush(stdout);
  for (const Case &c : kCases)
    if (checkCase(self, c))
      return 1;
  printf("PASS %s\n", kName);
  return 0;
}
