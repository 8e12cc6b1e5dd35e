// bad_modules: a driver-API program that hands the driver malformed PTX — literals that overflow
// in every numeric field, modules cut short at each directive, nesting far past any limit, absurd
// sizes — and an absurd device heap. Each must fail with one of CUDA's error results at module
// load, function lookup or launch (never succeed, never take the process down); afterwards a good
// module still loads and runs, so the failures left nothing behind.
#include <cstdio>
#include <cstring>
#include <cuda.h>
#include <string>
#include <vector>

static const char *kName = "bad_modules";

#include "../../check.h"

static const char *kHeader = ".version 8.0\n.target sm_75\n.address_size 64\n";

// A kernel that stores its argument's value + 1 at its first argument.
static const char *kGoodKernel = ".visible .entry k(.param .u64 out, .param .u32 v)\n"
                                 "{\n"
                                 "  .reg .b32 %r<3>;\n"
                                 "  .reg .b64 %rd<3>;\n"
                                 "  ld.param.u64 %rd1, [out];\n"
                                 "  cvta.to.global.u64 %rd2, %rd1;\n"
                                 "  ld.param.u32 %r1, [v];\n"
                                 "  add.s32 %r2, %r1, 1;\n"
                                 "  st.global.u32 [%rd2], %r2;\n"
                                 "  ret;\n"
                                 "}\n";

static const char *kOverflow = "99999999999999999999";

struct Case {
  std::string Name, Ptx;
};

static std::vector<Case> badModules() {
  std::string Good = std::string(kHeader) + kGoodKernel;
  std::string O = kOverflow;
  std::vector<Case> Cases = {
      {"overflowing .version",
       ".version " + O + ".0\n.target sm_75\n.address_size 64\n" + kGoodKernel},
      {"overflowing .version minor",
       ".version 8." + O + "\n.target sm_75\n.address_size 64\n" + kGoodKernel},
      {"overflowing .target",
       ".version 8.0\n.target sm_" + O + "\n.address_size 64\n" + kGoodKernel},
      {"overflowing .address_size",
       ".version 8.0\n.target sm_75\n.address_size " + O + "\n" + kGoodKernel},
      {"overflowing .align",
       std::string(kHeader) + ".global .align " + O + " .b8 g[4];\n" + kGoodKernel},
      {"overflowing array dimension",
       std::string(kHeader) + ".global .b8 g[" + O + "];\n" + kGoodKernel},
      {"absurd array size",
       std::string(kHeader) + ".global .b8 g[4294967296][4294967296][4294967296];\n" + kGoodKernel},
      {"overflowing initializer",
       std::string(kHeader) + ".global .u32 g = " + O + ";\n" + kGoodKernel},
      {"overflowing register count", std::string(kHeader) +
                                         ".visible .entry k(.param .u64 out)\n{\n  .reg .b32 %r<" +
                                         O + ">;\n  ret;\n}\n"},
      {"overflowing .maxntid",
       std::string(kHeader) + ".visible .entry k() .maxntid " + O + ", 1, 1\n{\n  ret;\n}\n"},
      {"overflowing immediate", std::string(kHeader) +
                                    ".visible .entry k()\n{\n  .reg .b32 %r<2>;\n  mov.u32 %r1, " +
                                    O + ";\n  ret;\n}\n"},
      {"overflowing vector count",
       std::string(kHeader) + ".global .v" + O + " .f32 g;\n" + kGoodKernel},
      {"nesting past limits", std::string(kHeader) + ".visible .entry k()\n" +
                                  std::string(200000, '{') + std::string(200000, '}') + "\n"},
      // An ELF magic and then nothing an ELF writer makes (at least a header's 64 bytes).
      {"garbage after an ELF magic",
       "\x7f"
       "ELF\x02\x01\x01 this is not a module at all, whatever its first bytes say, not at all"},
  };
  // The good module cut short after each of its directives and inside its body.
  for (const char *Cut : {".target", ".address_size", ".visible .entry k(", ".param .u32 v)",
                          ".reg .b64", "add.s32 %r2"}) {
    size_t At = Good.find(Cut);
    Cases.push_back({std::string("cut at '") + Cut + "'", Good.substr(0, At + strlen(Cut) / 2)});
  }
  return Cases;
}

// Whether \p R is a failure CUDA gives for a bad module image.
static bool isImageError(CUresult R) {
  return R == CUDA_ERROR_INVALID_PTX || R == CUDA_ERROR_INVALID_IMAGE ||
         R == CUDA_ERROR_INVALID_SOURCE || R == CUDA_ERROR_NO_BINARY_FOR_GPU ||
         R == CUDA_ERROR_UNSUPPORTED_PTX_VERSION || R == CUDA_ERROR_NOT_FOUND;
}

// Loads \p Ptx and launches its kernel k: the first result that is not a success.
static CUresult firstFailure(const std::string &Ptx, CUdeviceptr Out) {
  CUmodule M;
  CUresult R = cuModuleLoadData(&M, Ptx.c_str());
  if (R != CUDA_SUCCESS)
    return R;
  CUfunction F;
  R = cuModuleGetFunction(&F, M, "k");
  if (R == CUDA_SUCCESS) {
    unsigned V = 41;
    void *Args[] = {&Out, &V};
    R = cuLaunchKernel(F, 1, 1, 1, 1, 1, 1, 0, nullptr, Args, nullptr);
    if (R == CUDA_SUCCESS)
      R = cuCtxSynchronize();
  }
  cuModuleUnload(M);
  return R;
}

static int runGood(CUdeviceptr Out, unsigned V) {
  CUmodule M;
  CU(cuModuleLoadData(&M, (std::string(kHeader) + kGoodKernel).c_str()));
  CUfunction F;
  CU(cuModuleGetFunction(&F, M, "k"));
  void *Args[] = {&Out, &V};
  CU(cuLaunchKernel(F, 1, 1, 1, 1, 1, 1, 0, nullptr, Args, nullptr));
  CU(cuCtxSynchronize());
  unsigned Got = 0;
  CU(cuMemcpyDtoH(&Got, Out, sizeof Got));
  EXPECT(Got == V + 1);
  CU(cuModuleUnload(M));
  return 0;
}

int main() {
  CU(cuInit(0));
  CUdevice Dev;
  CU(cuDeviceGet(&Dev, 0));
  CUcontext Ctx;
  CU(cuDevicePrimaryCtxRetain(&Ctx, Dev));
  CU(cuCtxSetCurrent(Ctx));
  CUdeviceptr Out;
  CU(cuMemAlloc(&Out, 4));
  if (runGood(Out, 1))
    return 1;

  unsigned Refused = 0;
  for (const Case &C : badModules()) {
    CUresult R = firstFailure(C.Ptx, Out);
    const char *Name = "?";
    cuGetErrorName(R, &Name);
    printf("%-32s -> %s\n", C.Name.c_str(), Name);
    EXPECT(isImageError(R));
    ++Refused;
  }

  // A heap larger than any device: the module that allocates cannot be loaded, and says so as
  // CUDA does, out of memory (at the limit, or when the module needs the heap).
  CUresult R = cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, size_t(1) << 50);
  if (R == CUDA_SUCCESS) {
    std::string Heap = std::string(kHeader) +
                       ".extern .func (.param .b64 p) malloc (.param .b64 n);\n"
                       ".visible .entry k(.param .u64 out, .param .u32 v)\n"
                       "{\n"
                       "  .reg .b64 %rd<3>;\n"
                       "  { .param .b64 n; .param .b64 p; st.param.b64 [n], 16;\n"
                       "    call.uni (p), malloc, (n); ld.param.b64 %rd1, [p]; }\n"
                       "  ld.param.u64 %rd2, [out];\n"
                       "  st.u64 [%rd2], %rd1;\n"
                       "  ret;\n"
                       "}\n";
    R = firstFailure(Heap, Out);
  }
  const char *Name = "?";
  cuGetErrorName(R, &Name);
  printf("%-32s -> %s\n", "a 1 PiB device heap", Name);
  EXPECT(R == CUDA_ERROR_OUT_OF_MEMORY);
  CU(cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 8 << 20));

  if (runGood(Out, 2))
    return 1;
  CU(cuMemFree(Out));
  CU(cuDevicePrimaryCtxRelease(Dev));
  printf("%u malformed modules refused with CUDA's errors\n", Refused);
  printf("PASS %s\n", kName);
  return 0;
}
