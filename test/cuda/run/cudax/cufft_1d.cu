// cufft_1d: NVIDIA's cuFFT (the toolkit's libcufft, linked as users link it) on our driver: a
// 1D complex-to-complex FFT of 256 points, forward and back, and a real-to-complex FFT of 1000
// points, each against a naive DFT in double precision. cuFFT loads every kernel as a module of
// its own (cuModuleLoadData) and takes it through a private export table (FUNCTION_INTERNALS),
// after asking another for its context's identity (CONTEXT_STREAM_INTERNALS).
#include <cmath>
#include <complex>
#include <cstdio>
#include <cuda_runtime.h>
#include <cufft.h>
#include <vector>

static const char *kName = "cufft_1d";

#include "../../check.h"

/// X's DFT, X_k = sum_j x_j e^(sign 2 pi i jk/n), in double precision.
static std::vector<std::complex<double>> dft(const std::vector<std::complex<double>> &X, int Sign) {
  const size_t N = X.size();
  std::vector<std::complex<double>> Y(N);
  for (size_t K = 0; K < N; ++K) {
    std::complex<double> Sum = 0;
    for (size_t J = 0; J < N; ++J) {
      // The angle reduced modulo n first: exact, however large jk grows.
      double A = Sign * 2 * M_PI * double((J * K) % N) / double(N);
      Sum += X[J] * std::complex<double>(std::cos(A), std::sin(A));
    }
    Y[K] = Sum;
  }
  return Y;
}

/// Largest |got - want| over the largest |want|: float FFTs of these sizes are good to ~1e-6.
template <typename Got>
static double relativeError(const Got &G, const std::vector<std::complex<double>> &W, size_t N) {
  double Err = 0, Scale = 0;
  for (size_t I = 0; I < N; ++I) {
    Err = std::fmax(Err, std::abs(std::complex<double>(G[I].x, G[I].y) - W[I]));
    Scale = std::fmax(Scale, std::abs(W[I]));
  }
  return Err / Scale;
}

int main() {
  // C2C, 256 points: forward, then the inverse of that (unnormalised: n times the input).
  {
    const int N = 256;
    std::vector<cufftComplex> X(N);
    std::vector<std::complex<double>> Ref(N);
    for (int I = 0; I < N; ++I) {
      X[I].x = std::cos(0.1f * I) + 0.01f * I;
      X[I].y = std::sin(0.3f * I) - 0.5f;
      Ref[I] = {X[I].x, X[I].y};
    }
    cufftComplex *D = nullptr;
    CK(cudaMalloc(&D, N * sizeof(cufftComplex)));
    CK(cudaMemcpy(D, X.data(), N * sizeof(cufftComplex), cudaMemcpyHostToDevice));
    cufftHandle Plan;
    LIB(cufftPlan1d(&Plan, N, CUFFT_C2C, 1));
    LIB(cufftExecC2C(Plan, D, D, CUFFT_FORWARD));
    std::vector<cufftComplex> Y(N);
    CK(cudaMemcpy(Y.data(), D, N * sizeof(cufftComplex), cudaMemcpyDeviceToHost));
    std::vector<std::complex<double>> Want = dft(Ref, -1);
    double Err = relativeError(Y, Want, N);
    printf("C2C %d forward: relative error %.3g\n", N, Err);
    EXPECT(Err < 1e-5);
    LIB(cufftExecC2C(Plan, D, D, CUFFT_INVERSE));
    CK(cudaMemcpy(Y.data(), D, N * sizeof(cufftComplex), cudaMemcpyDeviceToHost));
    for (auto &V : Ref)
      V *= N;
    Err = relativeError(Y, Ref, N);
    printf("C2C %d inverse: relative error %.3g\n", N, Err);
    EXPECT(Err < 1e-5);
    LIB(cufftDestroy(Plan));
    CK(cudaFree(D));
  }
  // R2C, 1000 points (2^3 5^3: not a power of two): the n/2+1 non-redundant outputs.
  {
    const int N = 1000, Out = N / 2 + 1;
    std::vector<float> X(N);
    std::vector<std::complex<double>> Ref(N);
    for (int I = 0; I < N; ++I) {
      X[I] = std::sin(0.05f * I) + 0.25f * std::cos(1.7f * I) + (I % 7) * 0.125f;
      Ref[I] = X[I];
    }
    float *In = nullptr;
    cufftComplex *Y = nullptr;
    CK(cudaMalloc(&In, N * sizeof(float)));
    CK(cudaMalloc(&Y, Out * sizeof(cufftComplex)));
    CK(cudaMemcpy(In, X.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    cufftHandle Plan;
    LIB(cufftPlan1d(&Plan, N, CUFFT_R2C, 1));
    LIB(cufftExecR2C(Plan, In, Y));
    std::vector<cufftComplex> H(Out);
    CK(cudaMemcpy(H.data(), Y, Out * sizeof(cufftComplex), cudaMemcpyDeviceToHost));
    double Err = relativeError(H, dft(Ref, -1), Out);
    printf("R2C %d: relative error %.3g\n", N, Err);
    EXPECT(Err < 1e-5);
    LIB(cufftDestroy(Plan));
    CK(cudaFree(In));
    CK(cudaFree(Y));
  }
  printf("PASS %s\n", kName);
  return 0;
}
