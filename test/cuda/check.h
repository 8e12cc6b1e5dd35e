// Shared by the test programs: CK(call) checks a CUDA runtime call and EXPECT(cond) a condition;
// when either fails, it prints the program's FAIL verdict (kName is the program's name) and
// returns 1 from main.
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
