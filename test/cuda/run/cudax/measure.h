// Shared by the cudax programs: device copies of host vectors and back, and the largest error of
// a result against a CPU reference relative to the magnitudes summed (the bound of any summation
// order's rounding), printed and checked by REPORT. Include after check.h (EXPECT) and kName.
#pragma once

#include <cmath>
#include <cstdio>
#include <cuda_runtime.h>
#include <functional>
#include <vector>

template <typename T> static T *upload(const std::vector<T> &H) {
  T *D = nullptr;
  if (cudaMalloc(&D, H.size() * sizeof(T) + 1) != cudaSuccess ||
      cudaMemcpy(D, H.data(), H.size() * sizeof(T), cudaMemcpyHostToDevice) != cudaSuccess)
    return nullptr;
  return D;
}

template <typename T> static std::vector<T> download(const T *D, size_t N) {
  std::vector<T> H(N);
  cudaMemcpy(H.data(), D, N * sizeof(T), cudaMemcpyDeviceToHost);
  return H;
}

// max |got - want| / mag over M x N column-major results, Want/Mag given per element.
static double worst(const std::function<double(int, int)> &Got,
                    const std::function<void(int, int, double &, double &)> &Want, int M, int N) {
  double W = 0;
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I) {
      double Sum = 0, Mag = 0;
      Want(I, J, Sum, Mag);
      W = std::fmax(W, std::fabs(Got(I, J) - Sum) / (Mag + 1e-30));
    }
  return W;
}

// The same over N results in a row.
static double worst(int N, const std::function<double(int)> &Got,
                    const std::function<void(int, double &, double &)> &Want) {
  return worst([&](int I, int) { return Got(I); },
               [&](int I, int, double &Sum, double &Mag) { Want(I, Sum, Mag); }, N, 1);
}

#define REPORT(what, err, bound)                                                                   \
  do {                                                                                             \
    double e_ = (err);                                                                             \
    printf("%-34s relative error %.2g\n", what, e_);                                               \
    EXPECT(e_ < (bound));                                                                          \
  } while (0)
