// cublas_level2: NVIDIA's cuBLAS level 2 (the toolkit's libcublas, linked as users link it) on
// our driver: gemv in single and double precision, both transposes, ger, symv, trmv, trsv and
// gbmv, each against a CPU loop in double precision (relative to the sum of the products'
// magnitudes). At compute capability 8.0 and above cuBLAS runs most gemv shapes with cuBLASLt's
// gemvx kernels, which the toolkit carries as SASS alone: there a gemv must fail cleanly
// (CUBLAS_STATUS_EXECUTION_FAILED, every later call unharmed); at 7.5 it runs libcublas's own
// PTX kernels and must be right.
#include <cmath>
#include <cstdio>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <functional>
#include <vector>

static const char *kName = "cublas_level2";

#include "../../check.h"
#include "measure.h"

static double value(int I, int Seed) {
  return double(int((I * 7919 + Seed * 104729) % 201) - 100) / 64;
}

int main() {
  const int N = 200; // not a multiple of any tile
  cudaDeviceProp Prop;
  CK(cudaGetDeviceProperties(&Prop, 0));
  const int Cc = Prop.major * 10 + Prop.minor;
  std::vector<float> A(N * N), X(N), Y0(N);
  std::vector<double> DAh(N * N), DXh(N), DY0(N);
  for (int I = 0; I < N * N; ++I)
    DAh[I] = A[I] = float(value(I, 1));
  for (int I = 0; I < N; ++I) {
    DXh[I] = X[I] = float(value(I, 2));
    DY0[I] = Y0[I] = float(value(I, 3));
  }
  float *DA = upload(A), *DX = upload(X), *DY = upload(Y0);
  double *DDA = upload(DAh), *DDX = upload(DXh), *DDY = upload(DY0);
  EXPECT(DA && DX && DY && DDA && DDX && DDY);
  cublasHandle_t H;
  LIB(cublasCreate(&H));
  auto at = [&](bool T, int I, int J) { return T ? DAh[J + I * N] : DAh[I + J * N]; };
  auto GemvWant = [&](bool T, double Alpha, double Beta) {
    return [&, T, Alpha, Beta](int I, double &Sum, double &Mag) {
      for (int J = 0; J < N; ++J) {
        double P = Alpha * at(T, I, J) * DXh[J];
        Sum += P;
        Mag += std::fabs(P);
      }
      Sum += Beta * DY0[I];
      Mag += std::fabs(Beta * DY0[I]);
    };
  };

  // gemv: y = alpha op(A) x + beta y
  for (cublasOperation_t T : {CUBLAS_OP_N, CUBLAS_OP_T}) {
    const double Alpha = 1.25, Beta = -0.5;
    const char *Op = T == CUBLAS_OP_N ? "N" : "T";
    // Whether gemv ran: at 8.0 and above it may fail on cuBLASLt's SASS-only gemvx.
    auto Ran = [&](const char *What, cublasStatus_t S) {
      if (S != CUBLAS_STATUS_SUCCESS && Cc >= 80 && S == CUBLAS_STATUS_EXECUTION_FAILED) {
        printf("%s at %d.%d: status %d (cuBLASLt's SASS-only gemvx)\n", What, Prop.major,
               Prop.minor, int(S));
        return false;
      }
      return true;
    };
    char What[32];
    CK(cudaMemcpy(DDY, DY0.data(), N * sizeof(double), cudaMemcpyHostToDevice));
    cublasStatus_t S = cublasDgemv(H, T, N, N, &Alpha, DDA, N, DDX, 1, &Beta, DDY, 1);
    snprintf(What, sizeof What, "dgemv %s", Op);
    if (Ran(What, S)) {
      LIB(S);
      auto DY2 = download(DDY, N);
      REPORT(What,
             worst(
                 N, [&](int I) { return DY2[I]; }, GemvWant(T, Alpha, Beta)),
             1e-14);
    }
    CK(cudaGetLastError());

    const float SAlpha = float(Alpha), SBeta = float(Beta);
    CK(cudaMemcpy(DY, Y0.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    S = cublasSgemv(H, T, N, N, &SAlpha, DA, N, DX, 1, &SBeta, DY, 1);
    snprintf(What, sizeof What, "sgemv %s", Op);
    if (Ran(What, S)) {
      LIB(S);
      auto SY = download(DY, N);
      REPORT(What,
             worst(
                 N, [&](int I) { return double(SY[I]); }, GemvWant(T, Alpha, Beta)),
             1e-5);
    }
    CK(cudaGetLastError());
  }

  // ger: A += alpha x y^T
  {
    const float Alpha = 0.75f;
    float *DG = upload(A);
    EXPECT(DG);
    CK(cudaMemcpy(DY, Y0.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    LIB(cublasSger(H, N, N, &Alpha, DX, 1, DY, 1, DG, N));
    auto G = download(DG, N * N);
    const std::vector<double> &Y = DY0;
    REPORT("sger",
           worst(
               N * N, [&](int K) { return double(G[K]); },
               [&](int K, double &Sum, double &Mag) {
                 double P = Alpha * double(X[K % N]) * Y[K / N];
                 Sum = DAh[K] + P;
                 Mag = std::fabs(DAh[K]) + std::fabs(P);
               }),
           1e-6);
    CK(cudaFree(DG));
  }

  // symv (the lower triangle holds the matrix), trmv and trsv (upper, not unit)
  auto sym = [&](int I, int J) { return I >= J ? DAh[I + J * N] : DAh[J + I * N]; };
  auto upper = [&](int I, int J) {
    return J < I ? 0.0 : J == I ? 4.0 + DAh[I + I * N] : DAh[I + J * N] / N;
  };
  {
    const float Alpha = -1.5f, Beta = 0.25f;
    CK(cudaMemcpy(DY, Y0.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    LIB(cublasSsymv(H, CUBLAS_FILL_MODE_LOWER, N, &Alpha, DA, N, DX, 1, &Beta, DY, 1));
    auto Y = download(DY, N);
    REPORT("ssymv",
           worst(
               N, [&](int I) { return double(Y[I]); },
               [&](int I, double &Sum, double &Mag) {
                 for (int J = 0; J < N; ++J) {
                   double P = Alpha * sym(I, J) * DXh[J];
                   Sum += P;
                   Mag += std::fabs(P);
                 }
                 Sum += Beta * DY0[I];
                 Mag += std::fabs(Beta * DY0[I]);
               }),
           1e-5);
  }
  std::vector<float> U(N * N);
  for (int I = 0; I < N; ++I)
    for (int J = 0; J < N; ++J)
      U[I + J * N] = float(upper(I, J));
  float *DU = upload(U);
  EXPECT(DU);
  {
    CK(cudaMemcpy(DY, X.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    LIB(cublasStrmv(H, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, N, DU, N, DY, 1));
    auto Y = download(DY, N);
    REPORT("strmv",
           worst(
               N, [&](int I) { return double(Y[I]); },
               [&](int I, double &Sum, double &Mag) {
                 for (int J = I; J < N; ++J) {
                   double P = double(U[I + J * N]) * DXh[J];
                   Sum += P;
                   Mag += std::fabs(P);
                 }
               }),
           1e-5);
    // trsv solves U z = x: U z must give x back
    CK(cudaMemcpy(DY, X.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    LIB(cublasStrsv(H, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, N, DU, N, DY, 1));
    auto Z = download(DY, N);
    REPORT("strsv",
           worst(
               N,
               [&](int I) {
                 double S = 0;
                 for (int J = I; J < N; ++J)
                   S += double(U[I + J * N]) * Z[J];
                 return S;
               },
               [&](int I, double &Sum, double &Mag) {
                 Sum = DXh[I];
                 Mag = std::fabs(DXh[I]) + 1;
               }),
           1e-4);
  }

  // gbmv: a band of 2 sub- and 3 superdiagonals, in band storage (KL + KU + 1 rows)
  {
    const int KL = 2, KU = 3, Ld = KL + KU + 1;
    std::vector<float> Band(Ld * N);
    auto band = [&](int I, int J) { return (J - I > KU || I - J > KL) ? 0.0 : DAh[I + J * N]; };
    for (int J = 0; J < N; ++J)
      for (int I = std::max(0, J - KU); I <= std::min(N - 1, J + KL); ++I)
        Band[KU + I - J + J * Ld] = float(band(I, J));
    float *DB = upload(Band);
    EXPECT(DB);
    const float Alpha = 2.0f, Beta = 1.0f;
    CK(cudaMemcpy(DY, Y0.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    LIB(cublasSgbmv(H, CUBLAS_OP_T, N, N, KL, KU, &Alpha, DB, Ld, DX, 1, &Beta, DY, 1));
    auto Y = download(DY, N);
    REPORT("sgbmv T",
           worst(
               N, [&](int I) { return double(Y[I]); },
               [&](int I, double &Sum, double &Mag) {
                 for (int J = 0; J < N; ++J) {
                   double P = Alpha * band(J, I) * DXh[J];
                   Sum += P;
                   Mag += std::fabs(P);
                 }
                 Sum += Beta * DY0[I];
                 Mag += std::fabs(Beta * DY0[I]);
               }),
           1e-5);
    CK(cudaFree(DB));
  }

  LIB(cublasDestroy(H));
  for (void *P :
       {(void *)DA, (void *)DX, (void *)DY, (void *)DDA, (void *)DDX, (void *)DDY, (void *)DU})
    CK(cudaFree(P));
  printf("PASS %s\n", kName);
  return 0;
}
