// dynamic_shared: the host side shared by the program (dynamic_shared.cu) and the host backend's
// test (test/host/ProgramsMemoryTest.cpp): the inputs, the reference of each kernel and the check of
// every output. Plain C++ (host code only), compiled by nvcc's host compiler, clang (CUDA and HIP)
// and g++.
#pragma once

#include <cstddef>
#include <cstdio>

namespace dynamic_shared {
inline const char *kName = "dynamic_shared";

// static_and_dynamic's static array, in ints.
constexpr int kFixed = 256;

inline int in_at(int i) { return (i * 37) % 2001 - 1000; }
inline float fin_at(int i) { return (float)((i * 13) % 999) * 0.25f - 50.0f; }

// carve's dynamic shared memory: ni ints, then nf floats from the next 16-byte boundary.
inline size_t carve_bytes(int ni, int nf) {
  return ((size_t)ni * sizeof(int) + 15) / 16 * 16 + (size_t)nf * sizeof(float);
}

// carve: block b holds in[b*ni...] and fin[b*nf...] in shared memory and writes
// iout[b*ni + j] = s[ni-1-j] * 3 + s[j*7 % ni] and fout[b*nf + j] = f[nf-1-j] * 0.5 + s[j % ni].
inline int check_carve(int ni, int nf, int blocks, const int *iout, const float *fout) {
  for (int b = 0; b < blocks; ++b) {
    const int ib = b * ni, fb = b * nf;
    for (int j = 0; j < ni; ++j) {
      const int want = in_at(ib + ni - 1 - j) * 3 + in_at(ib + j * 7 % ni);
      if (iout[ib + j] != want) {
        printf("FAIL %s: carve %d+%d: iout[%d] = %d, want %d\n", kName, ni, nf, ib + j,
               iout[ib + j], want);
        return 1;
      }
    }
    for (int j = 0; j < nf; ++j) {
      const float want = fin_at(fb + nf - 1 - j) * 0.5f + (float)in_at(ib + j % ni);
      if (fout[fb + j] != want) {
        printf("FAIL %s: carve %d+%d: fout[%d] = %g, want %g\n", kName, ni, nf, fb + j,
               fout[fb + j], want);
        return 1;
      }
    }
  }
  return 0;
}

// static_and_dynamic: block b fills its static array with j*5 + b and n dynamic words with
// j ^ (b << 16), then writes out[b*n + j] = dyn[n-1-j] + fixed[j % kFixed].
inline int check_static_dynamic(int n, int blocks, const int *out) {
  for (int b = 0; b < blocks; ++b)
    for (int j = 0; j < n; ++j) {
      const int want = ((n - 1 - j) ^ (b << 16)) + (j % kFixed) * 5 + b;
      if (out[b * n + j] != want) {
        printf("FAIL %s: static_and_dynamic %d words: out[%d] = %d, want %d\n", kName, n, b * n + j,
               out[b * n + j], want);
        return 1;
      }
    }
  return 0;
}

// big: block b fills `words` words with j * 2654435761 + b; thread t folds the words
// words-1-j, for j = t, t + block, ..., as acc = acc * 31 + word.
inline int check_big(int words, int blocks, int block, const unsigned *out) {
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < block; ++t) {
      unsigned want = 0;
      for (int j = t; j < words; j += block)
        want = want * 31u + ((unsigned)(words - 1 - j) * 2654435761u + (unsigned)b);
      if (out[b * block + t] != want) {
        printf("FAIL %s: big %d words: block %d thread %d = %u, want %u\n", kName, words, b, t,
               out[b * block + t], want);
        return 1;
      }
    }
  return 0;
}
} // namespace dynamic_shared
