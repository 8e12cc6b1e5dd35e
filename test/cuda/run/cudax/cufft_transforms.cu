// cufft_transforms: NVIDIA's cuFFT (the toolkit's libcufft, linked as users link it) on our
// driver, beyond cufft_1d: double-precision Z2Z, C2R, batched C2C at a size that is no power of
// two (1000 = 2^3 5^3), a prime size (97), an R2C of 3 5 7 11 points and a 2D C2C of 48 x 64,
// each against a DFT in double precision (relative to the transform's largest magnitude). Each
// plan loads kernels of its own: label `long`.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cuda_runtime.h>
#include <cufft.h>
#include <vector>

static const char *kName = "cufft_transforms";

#include "../../check.h"
#include "measure.h"

using Cd = std::complex<double>;

/// The DFT of N points of X from First with stride Step, X_k = sum_j x_j e^(sign 2 pi i jk/n).
static std::vector<Cd> dft(const std::vector<Cd> &X, size_t First, size_t Step, size_t N,
                           int Sign) {
  std::vector<Cd> Y(N);
  for (size_t K = 0; K < N; ++K) {
    Cd Sum = 0;
    for (size_t J = 0; J < N; ++J) {
      double A = Sign * 2 * M_PI * double((J * K) % N) / double(N);
      Sum += X[First + J * Step] * Cd(std::cos(A), std::sin(A));
    }
    Y[K] = Sum;
  }
  return Y;
}

static double relative(const std::vector<Cd> &Got, const std::vector<Cd> &Want) {
  double Worst = 0, Scale = 1e-300;
  for (size_t I = 0; I < Want.size(); ++I) {
    Worst = std::max(Worst, std::abs(Got[I] - Want[I]));
    Scale = std::max(Scale, std::abs(Want[I]));
  }
  return Worst / Scale;
}

static std::vector<Cd> signal(size_t N, double Phase) {
  std::vector<Cd> X(N);
  for (size_t I = 0; I < N; ++I)
    X[I] =
        Cd(std::sin(0.37 * I + Phase) + 0.25 * std::cos(1.9 * I), std::cos(0.11 * I * Phase) - 0.5);
  return X;
}

// C2C of Batch transforms of N points each, single precision.
static int batchedC2C(int N, int Batch) {
  std::vector<Cd> X = signal(size_t(N) * Batch, 0.5);
  std::vector<cufftComplex> H(X.size());
  for (size_t I = 0; I < X.size(); ++I)
    H[I] = {float(X[I].real()), float(X[I].imag())};
  cufftComplex *D;
  CK(cudaMalloc(&D, H.size() * sizeof(cufftComplex)));
  CK(cudaMemcpy(D, H.data(), H.size() * sizeof(cufftComplex), cudaMemcpyHostToDevice));
  cufftHandle P;
  LIB(cufftPlan1d(&P, N, CUFFT_C2C, Batch));
  LIB(cufftExecC2C(P, D, D, CUFFT_FORWARD));
  CK(cudaMemcpy(H.data(), D, H.size() * sizeof(cufftComplex), cudaMemcpyDeviceToHost));
  double Worst = 0;
  for (int B = 0; B < Batch; ++B) {
    std::vector<Cd> Got(N);
    for (int I = 0; I < N; ++I)
      Got[I] = Cd(H[B * N + I].x, H[B * N + I].y);
    Worst = std::max(Worst, relative(Got, dft(X, size_t(B) * N, 1, N, -1)));
  }
  char What[64];
  snprintf(What, sizeof What, "C2C %d x %d", N, Batch);
  REPORT(What, Worst, 1e-5);
  LIB(cufftDestroy(P));
  CK(cudaFree(D));
  return 0;
}

int main() {
  if (batchedC2C(1000, 4) || batchedC2C(97, 1))
    return 1;

  { // Z2Z, 4096 points, 2 at once, inverse
    const int N = 4096, Batch = 2;
    std::vector<Cd> X = signal(size_t(N) * Batch, 1.5);
    cufftDoubleComplex *D;
    CK(cudaMalloc(&D, X.size() * sizeof(Cd)));
    CK(cudaMemcpy(D, X.data(), X.size() * sizeof(Cd), cudaMemcpyHostToDevice));
    cufftHandle P;
    LIB(cufftPlan1d(&P, N, CUFFT_Z2Z, Batch));
    LIB(cufftExecZ2Z(P, D, D, CUFFT_INVERSE));
    std::vector<Cd> Y(X.size());
    CK(cudaMemcpy(Y.data(), D, Y.size() * sizeof(Cd), cudaMemcpyDeviceToHost));
    double Worst = 0;
    for (int B = 0; B < Batch; ++B)
      Worst = std::max(Worst, relative(std::vector<Cd>(Y.begin() + B * N, Y.begin() + (B + 1) * N),
                                       dft(X, size_t(B) * N, 1, N, +1)));
    REPORT("Z2Z 4096 x 2 inverse", Worst, 1e-13);
    LIB(cufftDestroy(P));
    CK(cudaFree(D));
  }

  { // R2C of 1155 = 3 5 7 11 points: N/2+1 outputs
    const int N = 1155;
    std::vector<Cd> X = signal(N, 2.5);
    std::vector<float> In(N);
    for (int I = 0; I < N; ++I) {
      In[I] = float(X[I].real());
      X[I] = In[I];
    }
    float *DIn;
    cufftComplex *DOut;
    CK(cudaMalloc(&DIn, N * sizeof(float)));
    CK(cudaMalloc(&DOut, (N / 2 + 1) * sizeof(cufftComplex)));
    CK(cudaMemcpy(DIn, In.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    cufftHandle P;
    LIB(cufftPlan1d(&P, N, CUFFT_R2C, 1));
    LIB(cufftExecR2C(P, DIn, DOut));
    std::vector<cufftComplex> Out(N / 2 + 1);
    CK(cudaMemcpy(Out.data(), DOut, Out.size() * sizeof(cufftComplex), cudaMemcpyDeviceToHost));
    std::vector<Cd> Want = dft(X, 0, 1, N, -1), Got(Out.size());
    Want.resize(Out.size());
    for (size_t I = 0; I < Out.size(); ++I)
      Got[I] = Cd(Out[I].x, Out[I].y);
    REPORT("R2C 1155", relative(Got, Want), 1e-5);
    LIB(cufftDestroy(P));
    CK(cudaFree(DIn));
    CK(cudaFree(DOut));
  }

  { // C2R of 1024 points, 3 at once: the real signal from its half spectrum
    const int N = 1024, Batch = 3, Half = N / 2 + 1;
    std::vector<Cd> Real(size_t(N) * Batch);
    for (size_t I = 0; I < Real.size(); ++I)
      Real[I] = std::sin(0.05 * I) + 0.125 * std::cos(0.7 * I);
    std::vector<cufftComplex> Spectrum;
    for (int B = 0; B < Batch; ++B) {
      std::vector<Cd> S = dft(Real, size_t(B) * N, 1, N, -1);
      for (int K = 0; K < Half; ++K)
        Spectrum.push_back({float(S[K].real()), float(S[K].imag())});
    }
    cufftComplex *DIn;
    float *DOut;
    CK(cudaMalloc(&DIn, Spectrum.size() * sizeof(cufftComplex)));
    CK(cudaMalloc(&DOut, Real.size() * sizeof(float)));
    CK(cudaMemcpy(DIn, Spectrum.data(), Spectrum.size() * sizeof(cufftComplex),
                  cudaMemcpyHostToDevice));
    cufftHandle P;
    LIB(cufftPlan1d(&P, N, CUFFT_C2R, Batch));
    LIB(cufftExecC2R(P, DIn, DOut));
    std::vector<float> Out(Real.size());
    CK(cudaMemcpy(Out.data(), DOut, Out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    std::vector<Cd> Got(Out.size()), Want(Real.size());
    for (size_t I = 0; I < Out.size(); ++I) {
      Got[I] = Out[I];
      Want[I] = Real[I] * double(N); // unnormalised inverse
    }
    REPORT("C2R 1024 x 3", relative(Got, Want), 1e-5);
    LIB(cufftDestroy(P));
    CK(cudaFree(DIn));
    CK(cudaFree(DOut));
  }

  { // 2D C2C, 48 rows of 64 (row-major: the last dimension is contiguous)
    const int Rows = 48, Cols = 64;
    std::vector<Cd> X = signal(size_t(Rows) * Cols, 3.5);
    std::vector<cufftComplex> H(X.size());
    for (size_t I = 0; I < X.size(); ++I) {
      H[I] = {float(X[I].real()), float(X[I].imag())};
      X[I] = Cd(H[I].x, H[I].y);
    }
    cufftComplex *D;
    CK(cudaMalloc(&D, H.size() * sizeof(cufftComplex)));
    CK(cudaMemcpy(D, H.data(), H.size() * sizeof(cufftComplex), cudaMemcpyHostToDevice));
    cufftHandle P;
    LIB(cufftPlan2d(&P, Rows, Cols, CUFFT_C2C));
    LIB(cufftExecC2C(P, D, D, CUFFT_FORWARD));
    CK(cudaMemcpy(H.data(), D, H.size() * sizeof(cufftComplex), cudaMemcpyDeviceToHost));
    // Rows then columns.
    std::vector<Cd> T(X.size()), Want(X.size()), Got(X.size());
    for (int R = 0; R < Rows; ++R) {
      std::vector<Cd> Row = dft(X, size_t(R) * Cols, 1, Cols, -1);
      std::copy(Row.begin(), Row.end(), T.begin() + R * Cols);
    }
    for (int C = 0; C < Cols; ++C) {
      std::vector<Cd> Col = dft(T, C, Cols, Rows, -1);
      for (int R = 0; R < Rows; ++R)
        Want[R * Cols + C] = Col[R];
    }
    for (size_t I = 0; I < H.size(); ++I)
      Got[I] = Cd(H[I].x, H[I].y);
    REPORT("2D C2C 48 x 64", relative(Got, Want), 1e-5);
    LIB(cufftDestroy(P));
    CK(cudaFree(D));
  }
  printf("PASS %s\n", kName);
  return 0;
}
