// Shared by the test programs: CK(call) checks a CUDA runtime call, CU(call) a driver call,
// NVRTC(call) an NVRTC call, LIB(call) a CUDA-X library's call (cuBLAS, cuFFT, cuRAND,
// cuSPARSE, cuSOLVER: each status type says success with 0) and EXPECT(cond) a condition; when one
// fails, it prints the program's FAIL verdict (kName is the program's name) and returns 1 from
// main. Each macro needs only the header of the API it checks, where it is used.
#pragma once

#include <cstdio>

#define CK(call)                                                                                   \
  do {                                                                                             \
    cudaError_t err_ = (call);                                                                     \
    if (err_ != cudaSuccess) {                                                                     \
      printf("FAIL %s: %s (line %d): %s\n", kName, #call, __LINE__, cudaGetErrorString(err_));     \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

#define EXPECT(cond)                                                                               \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      printf("FAIL %s: %s (line %d)\n", kName, #cond, __LINE__);                                   \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

#define CU(call)                                                                                   \
  do {                                                                                             \
    CUresult r_ = (call);                                                                          \
    if (r_ != CUDA_SUCCESS) {                                                                      \
      const char *s_ = nullptr;                                                                    \
      cuGetErrorString(r_, &s_);                                                                   \
      printf("FAIL %s: %s (line %d): %d %s\n", kName, #call, __LINE__, int(r_), s_ ? s_ : "?");    \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

#define NVRTC(call)                                                                                \
  do {                                                                                             \
    nvrtcResult r_ = (call);                                                                       \
    if (r_ != NVRTC_SUCCESS) {                                                                     \
      printf("FAIL %s: %s (line %d): %s\n", kName, #call, __LINE__, nvrtcGetErrorString(r_));      \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

#define LIB(call)                                                                                  \
  do {                                                                                             \
    int s_ = int(call);                                                                            \
    if (s_ != 0) {                                                                                 \
      printf("FAIL %s: %s (line %d): status %d\n", kName, #call, __LINE__, s_);                    \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)
