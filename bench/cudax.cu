// One CUDA-X library call timed on our driver, beside the same operation as a plain C++ loop:
// built with nvcc against the toolkit's libraries (bench/CMakeLists.txt), run by bench/cudax
// with a cold and then a warm JIT cache. Prints, one per line:
//   first: <ms>   the process's first call (the library's set-up, translation when cold)
//   steady: <ms>  the same call again, the median of five
//   loop: <ms>    the plain C++ loop on one core
// and exits 1 when the library's result disagrees with the loop's.
// Usage: cudax-bench sgemm|fft|spmv|getrf|curand
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cufft.h>
#include <curand.h>
#include <cusolverDn.h>
#include <cusparse.h>
#include <functional>
#include <vector>

namespace {

double msSince(std::chrono::steady_clock::time_point Start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - Start)
      .count();
}

/// Times \p Call (which returns 0 on success, and waits for the device) once, then five more
/// times; times \p Loop once. Prints the figures; false when a call failed.
bool measure(const std::function<int()> &Call, const std::function<void()> &Loop) {
  auto Start = std::chrono::steady_clock::now();
  if (Call())
    return false;
  std::printf("first: %.3f\n", msSince(Start));
  std::vector<double> Times;
  for (int I = 0; I < 5; ++I) {
    Start = std::chrono::steady_clock::now();
    if (Call())
      return false;
    Times.push_back(msSince(Start));
  }
  std::sort(Times.begin(), Times.end());
  std::printf("steady: %.3f\n", Times[2]);
  Start = std::chrono::steady_clock::now();
  Loop();
  std::printf("loop: %.3f\n", msSince(Start));
  return true;
}

template <typename T> T *deviceCopy(const std::vector<T> &H) {
  T *D = nullptr;
  cudaMalloc(&D, H.size() * sizeof(T) + 1);
  cudaMemcpy(D, H.data(), H.size() * sizeof(T), cudaMemcpyHostToDevice);
  return D;
}

template <typename T> std::vector<T> hostCopy(const T *D, size_t N) {
  std::vector<T> H(N);
  cudaMemcpy(H.data(), D, N * sizeof(T), cudaMemcpyDeviceToHost);
  return H;
}

bool close(const std::vector<float> &A, const std::vector<float> &B, double Tolerance) {
  double Worst = 0, Scale = 1e-30;
  for (size_t I = 0; I < A.size(); ++I) {
    Worst = std::max(Worst, double(std::fabs(A[I] - B[I])));
    Scale = std::max(Scale, double(std::fabs(B[I])));
  }
  if (Worst / Scale > Tolerance)
    std::fprintf(stderr, "result differs from the loop's: %g relative\n", Worst / Scale);
  return Worst / Scale <= Tolerance;
}

int sgemm() { // 256 x 256 x 256
  const int N = 256;
  std::vector<float> A(N * N), B(N * N), C(N * N);
  for (int I = 0; I < N * N; ++I) {
    A[I] = float(I % 7) * 0.5f - 1.0f;
    B[I] = float(I % 5) * 0.25f;
  }
  float *DA = deviceCopy(A), *DB = deviceCopy(B), *DC = deviceCopy(C);
  cublasHandle_t H = nullptr;
  const float One = 1, Zero = 0;
  auto Call = [&] {
    if (!H && cublasCreate(&H))
      return 1;
    int S = cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &One, DA, N, DB, N, &Zero, DC, N);
    return S | cudaDeviceSynchronize();
  };
  auto Loop = [&] {
    for (int J = 0; J < N; ++J)
      for (int K = 0; K < N; ++K)
        for (int I = 0; I < N; ++I)
          C[I + J * N] += A[I + K * N] * B[K + J * N];
  };
  if (!measure(Call, Loop))
    return 2;
  return close(hostCopy(DC, N * N), C, 1e-5) ? 0 : 1;
}

int fft() { // complex-to-complex, 4096 points, forward
  const int N = 4096;
  std::vector<std::complex<float>> X(N);
  for (int I = 0; I < N; ++I)
    X[I] = {std::sin(0.01f * I), std::cos(0.003f * I)};
  auto *DX = deviceCopy(X);
  std::complex<float> *DY = nullptr;
  cudaMalloc(&DY, N * sizeof(*DY));
  cufftHandle Plan = 0;
  bool Planned = false;
  auto Call = [&] {
    if (!Planned && cufftPlan1d(&Plan, N, CUFFT_C2C, 1))
      return 1;
    Planned = true;
    int S = cufftExecC2C(Plan, reinterpret_cast<cufftComplex *>(DX),
                         reinterpret_cast<cufftComplex *>(DY), CUFFT_FORWARD);
    return S | cudaDeviceSynchronize();
  };
  // The loop: an iterative radix-2 FFT, as a program without a library would write it.
  std::vector<std::complex<float>> Y;
  auto Loop = [&] {
    Y = X;
    for (int I = 1, J = 0; I < N; ++I) {
      int Bit = N >> 1;
      for (; J & Bit; Bit >>= 1)
        J ^= Bit;
      J ^= Bit;
      if (I < J)
        std::swap(Y[I], Y[J]);
    }
    for (int Len = 2; Len <= N; Len <<= 1) {
      std::complex<float> W = std::polar(1.0f, float(-2 * M_PI / Len));
      for (int I = 0; I < N; I += Len) {
        std::complex<float> T = 1;
        for (int K = 0; K < Len / 2; ++K, T *= W) {
          std::complex<float> U = Y[I + K], V = Y[I + K + Len / 2] * T;
          Y[I + K] = U + V;
          Y[I + K + Len / 2] = U - V;
        }
      }
    }
  };
  if (!measure(Call, Loop))
    return 2;
  std::vector<float> Got, Want;
  for (const auto &V : hostCopy(DY, N))
    Got.insert(Got.end(), {V.real(), V.imag()});
  for (const auto &V : Y)
    Want.insert(Want.end(), {V.real(), V.imag()});
  return close(Got, Want, 1e-4) ? 0 : 1;
}

int spmv() { // 100000 x 100000 CSR, five diagonals
  const int N = 100000;
  std::vector<int> RowPtr, Cols;
  std::vector<float> Values, X(N), Y(N);
  for (int I = 0; I < N; ++I) {
    RowPtr.push_back(int(Cols.size()));
    for (int J = std::max(0, I - 2); J <= std::min(N - 1, I + 2); ++J) {
      Cols.push_back(J);
      Values.push_back(float((I + 3 * J) % 9) - 4.0f);
    }
    X[I] = float(I % 13) * 0.5f;
  }
  RowPtr.push_back(int(Cols.size()));
  int *DR = deviceCopy(RowPtr), *DC = deviceCopy(Cols);
  float *DV = deviceCopy(Values), *DX = deviceCopy(X), *DY = deviceCopy(Y);
  cusparseHandle_t H = nullptr;
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t VX, VY;
  void *Buffer = nullptr;
  const float One = 1, Zero = 0;
  auto Call = [&] {
    if (!H) {
      size_t Bytes = 0;
      if (cusparseCreate(&H) ||
          cusparseCreateCsr(&A, N, N, int64_t(Cols.size()), DR, DC, DV, CUSPARSE_INDEX_32I,
                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F) ||
          cusparseCreateDnVec(&VX, N, DX, CUDA_R_32F) ||
          cusparseCreateDnVec(&VY, N, DY, CUDA_R_32F) ||
          cusparseSpMV_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, A, VX, &Zero, VY,
                                  CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &Bytes) ||
          cudaMalloc(&Buffer, Bytes + 1))
        return 1;
    }
    int S = cusparseSpMV(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, A, VX, &Zero, VY, CUDA_R_32F,
                         CUSPARSE_SPMV_ALG_DEFAULT, Buffer);
    return S | cudaDeviceSynchronize();
  };
  auto Loop = [&] {
    for (int I = 0; I < N; ++I) {
      float Sum = 0;
      for (int K = RowPtr[I]; K < RowPtr[I + 1]; ++K)
        Sum += Values[K] * X[Cols[K]];
      Y[I] = Sum;
    }
  };
  if (!measure(Call, Loop))
    return 2;
  return close(hostCopy(DY, N), Y, 1e-5) ? 0 : 1;
}

int getrf() { // LU with partial pivoting of 256 x 256, checked by L U = P A
  const int N = 256;
  std::vector<float> A(N * N);
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < N; ++I)
      A[I + J * N] = float((I * 37 + J * 11) % 23) / 4.0f - 2.75f + (I == J ? 8.0f : 0.0f);
  float *DA = deviceCopy(A), *Work = nullptr;
  int *Pivots = nullptr, *Info = nullptr;
  cudaMalloc(&Pivots, N * sizeof(int));
  cudaMalloc(&Info, sizeof(int));
  cusolverDnHandle_t H = nullptr;
  auto Call = [&] {
    int Lwork = 0;
    if (!H && (cusolverDnCreate(&H) || cusolverDnSgetrf_bufferSize(H, N, N, DA, N, &Lwork) ||
               cudaMalloc(&Work, (Lwork + 1) * sizeof(float))))
      return 1;
    cudaMemcpy(DA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice);
    int S = cusolverDnSgetrf(H, N, N, DA, N, Work, Pivots, Info);
    return S | cudaDeviceSynchronize();
  };
  std::vector<float> LU;
  std::vector<int> Perm(N);
  auto Loop = [&] { // Doolittle with partial pivoting, in place, column-major
    LU = A;
    for (int K = 0; K < N; ++K) {
      int P = K;
      for (int I = K + 1; I < N; ++I)
        if (std::fabs(LU[I + K * N]) > std::fabs(LU[P + K * N]))
          P = I;
      Perm[K] = P + 1;
      if (P != K)
        for (int J = 0; J < N; ++J)
          std::swap(LU[K + J * N], LU[P + J * N]);
      for (int I = K + 1; I < N; ++I)
        LU[I + K * N] /= LU[K + K * N];
      for (int J = K + 1; J < N; ++J)
        for (int I = K + 1; I < N; ++I)
          LU[I + J * N] -= LU[I + K * N] * LU[K + J * N];
    }
  };
  if (!measure(Call, Loop))
    return 2;
  return close(hostCopy(DA, N * N), LU, 1e-4) ? 0 : 1;
}

int curand() { // 2^22 uniform floats from XORWOW, bit for bit the host generator's
  const size_t N = size_t(1) << 22;
  float *D = nullptr;
  cudaMalloc(&D, N * sizeof(float));
  curandGenerator_t G = nullptr;
  auto Call = [&] {
    if (!G && (curandCreateGenerator(&G, CURAND_RNG_PSEUDO_XORWOW) ||
               curandSetPseudoRandomGeneratorSeed(G, 1234)))
      return 1;
    return curandGenerateUniform(G, D, N) | cudaDeviceSynchronize();
  };
  std::vector<float> Host(N);
  curandGenerator_t HG = nullptr;
  auto Loop = [&] {
    curandCreateGeneratorHost(&HG, CURAND_RNG_PSEUDO_XORWOW);
    curandSetPseudoRandomGeneratorSeed(HG, 1234);
    curandGenerateUniform(HG, Host.data(), N);
  };
  if (!measure(Call, Loop))
    return 2;
  // The device's sixth batch is the host generator's sixth: compare the host's first with a
  // fresh device generator's.
  curandDestroyGenerator(G);
  G = nullptr;
  if (Call())
    return 2;
  return hostCopy(D, N) == Host ? 0 : 1;
}

} // namespace

int main(int Argc, char **Argv) {
  const char *Op = Argc > 1 ? Argv[1] : "";
  const std::pair<const char *, int (*)()> Ops[] = {
      {"sgemm", sgemm}, {"fft", fft}, {"spmv", spmv}, {"getrf", getrf}, {"curand", curand}};
  for (const auto &[Name, Run] : Ops)
    if (!std::strcmp(Op, Name))
      return Run();
  std::fprintf(stderr, "usage: cudax-bench sgemm|fft|spmv|getrf|curand\n");
  return 2;
}
