// curand_generators: NVIDIA's cuRAND (the toolkit's libcurand, linked as users link it) on our
// driver: every device generator CUDA 13 has for the host API (XORWOW, MRG32k3a, Philox4x32-10,
// MTGP32, Sobol32) and each distribution (uniform, normal, log-normal, Poisson) give the numbers
// of cuRAND's host generator (curandCreateGeneratorHost) of the same type, seed and ordering: bit
// for bit, but for the approximate functions' last bits in normal and log-normal ones. cuRAND's
// modules carry module variables (its precalculated skip-ahead matrices), so each is translated
// whole: minutes cold, label `long`.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include <curand.h>
#include <vector>

static const char *kName = "curand_generators";

#include "../../check.h"

enum class Dist { Uniform, Normal, LogNormal, Poisson };

// N numbers of distribution D from generator type T on the device and on the host; 0 when they
// are the same bits.
static int compare(curandRngType_t T, const char *TName, Dist D, size_t N) {
  const char *DName[] = {"uniform", "normal", "log-normal", "poisson"};
  curandGenerator_t Dev, Host;
  LIB(curandCreateGenerator(&Dev, T));
  LIB(curandCreateGeneratorHost(&Host, T));
  if (T == CURAND_RNG_QUASI_SOBOL32) {
    LIB(curandSetQuasiRandomGeneratorDimensions(Dev, 4));
    LIB(curandSetQuasiRandomGeneratorDimensions(Host, 4));
  } else {
    LIB(curandSetPseudoRandomGeneratorSeed(Dev, 20261207ull));
    LIB(curandSetPseudoRandomGeneratorSeed(Host, 20261207ull));
  }
  const size_t Bytes = N * 4; // float or unsigned
  void *DOut = nullptr;
  CK(cudaMalloc(&DOut, Bytes));
  std::vector<unsigned char> Got(Bytes), Want(Bytes);
  auto Generate = [&](curandGenerator_t G, void *Out) {
    switch (D) {
    case Dist::Uniform:
      return curandGenerateUniform(G, static_cast<float *>(Out), N);
    case Dist::Normal:
      return curandGenerateNormal(G, static_cast<float *>(Out), N, 1.5f, 2.0f);
    case Dist::LogNormal:
      return curandGenerateLogNormal(G, static_cast<float *>(Out), N, 0.25f, 0.5f);
    case Dist::Poisson:
      return curandGeneratePoisson(G, static_cast<unsigned *>(Out), N, 4.5);
    }
    return CURAND_STATUS_INTERNAL_ERROR;
  };
  LIB(Generate(Dev, DOut));
  LIB(Generate(Host, Want.data()));
  CK(cudaMemcpy(Got.data(), DOut, Bytes, cudaMemcpyDeviceToHost));
  // Uniform and Poisson numbers are the host's bits. Normal and log-normal ones come from the
  // device's approximate logarithm, exponential and reciprocal square root (lg2.approx,
  // ex2.approx, rsqrt.approx), which no two implementations round alike: a normal number within
  // 2^-17 of the distribution's scale (|mean| + 5 standard deviations), a log-normal one (the
  // exponential of a normal one) within 2^-17 of itself.
  size_t Differ = 0;
  double Worst = 0;
  for (size_t I = 0; I < N; ++I) {
    Differ += std::memcmp(&Got[I * 4], &Want[I * 4], 4) != 0;
    if (D == Dist::Normal || D == Dist::LogNormal) {
      float G, W;
      std::memcpy(&G, &Got[I * 4], 4);
      std::memcpy(&W, &Want[I * 4], 4);
      double Scale = D == Dist::Normal ? 1.5 + 5 * 2.0 : std::fabs(double(W));
      Worst = std::max(Worst, std::fabs(double(G) - double(W)) / Scale);
    }
  }
  printf("%-10s %-10s %zu numbers: %zu differ from the host generator's (by %.2g of the scale)\n",
         TName, DName[int(D)], N, Differ, Worst);
  if (D == Dist::Normal || D == Dist::LogNormal)
    EXPECT(Worst <= 1.0 / (1 << 17));
  else
    EXPECT(Differ == 0);
  LIB(curandDestroyGenerator(Dev));
  LIB(curandDestroyGenerator(Host));
  CK(cudaFree(DOut));
  return 0;
}

int main() {
  const struct {
    curandRngType_t Type;
    const char *Name;
  } Generators[] = {{CURAND_RNG_PSEUDO_XORWOW, "XORWOW"},
                    {CURAND_RNG_PSEUDO_MRG32K3A, "MRG32k3a"},
                    {CURAND_RNG_PSEUDO_PHILOX4_32_10, "Philox"},
                    {CURAND_RNG_PSEUDO_MTGP32, "MTGP32"},
                    {CURAND_RNG_QUASI_SOBOL32, "Sobol32"}};
  for (const auto &G : Generators)
    for (Dist D : {Dist::Uniform, Dist::Normal, Dist::LogNormal, Dist::Poisson})
      if (compare(G.Type, G.Name, D, 100000))
        return 1;
  printf("PASS %s\n", kName);
  return 0;
}
