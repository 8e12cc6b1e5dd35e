// cublas_level3: NVIDIA's cuBLAS and cuBLASLt (the toolkit's, linked as users link them) on our
// driver, beyond cublas_gemm: trsm, syrk, dgemm and hgemm in every transpose pair,
// cublasGemmEx with f16 and with bf16 inputs, strided-batched and batched sgemm and a
// cublasLtMatmul, each against a CPU loop in double precision (relative to the sum of the
// products' magnitudes). cublasSgemv is not here: cuBLASLt runs it (in most shapes) with a kernel
// it carries as SASS only (CUBLAS_STATUS_EXECUTION_FAILED). Many kernels translate cold: label
// `long`.
#include <cmath>
#include <cstdio>
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <functional>
#include <vector>

static const char *kName = "cublas_level3";

#include "../../check.h"
#include "measure.h"

static float value(int I, int Seed) { return float(int((I * 2654435761u + Seed) % 17) - 8) / 8; }

int main() {
  const int N = 96;
  cublasHandle_t H;
  LIB(cublasCreate(&H));
  std::vector<float> A(N * N), B(N * N);
  for (int I = 0; I < N * N; ++I) {
    A[I] = value(I, 1);
    B[I] = value(I, 2);
  }
  float *DA = upload(A), *DB = upload(B), *DC = upload(std::vector<float>(N * N));
  const float One = 1, Zero = 0;
  auto at = [&](const std::vector<float> &M, bool T, int I, int K) {
    return double(T ? M[K + I * N] : M[I + K * N]);
  };

  // C = A A^T, lower triangle
  LIB(cublasSsyrk(H, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, N, N, &One, DA, N, &Zero, DC, N));
  auto C = download(DC, N * N);
  double E = 0;
  for (int J = 0; J < N; ++J)
    for (int I = J; I < N; ++I) {
      double S = 0, M = 0;
      for (int K = 0; K < N; ++K) {
        S += at(A, false, I, K) * at(A, false, J, K);
        M += std::fabs(at(A, false, I, K) * at(A, false, J, K));
      }
      E = std::fmax(E, std::fabs(C[I + J * N] - S) / (M + 1e-30));
    }
  REPORT("ssyrk lower", E, 1e-6);

  // Solve L X = B for L the unit lower triangle of A (scaled down to keep X small).
  std::vector<float> L(N * N);
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < N; ++I)
      L[I + J * N] = I > J ? A[I + J * N] / 16 : (I == J ? 1 : 0);
  float *DL = upload(L), *DS = upload(B);
  LIB(cublasStrsm(H, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, N, N,
                  &One, DL, N, DS, N));
  auto S = download(DS, N * N);
  REPORT("strsm left lower unit",
         worst(
             [&](int I, int J) {
               double Sum = 0;
               for (int K = 0; K < N; ++K)
                 Sum += double(L[I + K * N]) * S[K + J * N];
               return Sum;
             },
             [&](int I, int J, double &W, double &M) {
               W = B[I + J * N];
               M = std::fabs(W) + 1;
             },
             N, N),
         1e-5);

  // dgemm in every transpose pair
  std::vector<double> DAh(N * N), DBh(N * N);
  for (int I = 0; I < N * N; ++I) {
    DAh[I] = value(I, 4);
    DBh[I] = value(I, 5) / 3;
  }
  double *DDA = upload(DAh), *DDB = upload(DBh), *DDC = upload(std::vector<double>(N * N));
  const double DOne = 1, DZero = 0;
  for (cublasOperation_t TA : {CUBLAS_OP_N, CUBLAS_OP_T})
    for (cublasOperation_t TB : {CUBLAS_OP_N, CUBLAS_OP_T}) {
      LIB(cublasDgemm(H, TA, TB, N, N, N, &DOne, DDA, N, DDB, N, &DZero, DDC, N));
      auto DC2 = download(DDC, N * N);
      auto dat = [&](const std::vector<double> &M, bool T, int I, int K) {
        return T ? M[K + I * N] : M[I + K * N];
      };
      char What[32];
      snprintf(What, sizeof What, "dgemm %c%c", TA ? 'T' : 'N', TB ? 'T' : 'N');
      REPORT(What,
             worst([&](int I, int J) { return DC2[I + J * N]; },
                   [&](int I, int J, double &Sum, double &M) {
                     for (int K = 0; K < N; ++K) {
                       double P = dat(DAh, TA, I, K) * dat(DBh, TB, K, J);
                       Sum += P;
                       M += std::fabs(P);
                     }
                   },
                   N, N),
             1e-14);
    }

  // hgemm, and cublasGemmEx with f16 and bf16 inputs into f32 (the inputs are exact in 8 bits)
  std::vector<__half> HA(N * N), HB(N * N);
  std::vector<__nv_bfloat16> BA(N * N), BB(N * N);
  for (int I = 0; I < N * N; ++I) {
    HA[I] = __float2half(A[I]);
    HB[I] = __float2half(B[I]);
    BA[I] = __float2bfloat16(A[I]);
    BB[I] = __float2bfloat16(B[I]);
  }
  __half *DHA = upload(HA), *DHB = upload(HB), *DHC = upload(std::vector<__half>(N * N));
  __nv_bfloat16 *DBA = upload(BA), *DBB = upload(BB);
  auto GemmWant = [&](bool TA, bool TB) {
    return [&, TA, TB](int I, int J, double &Sum, double &M) {
      for (int K = 0; K < N; ++K) {
        double P = at(A, TA, I, K) * at(B, TB, K, J);
        Sum += P;
        M += std::fabs(P);
      }
    };
  };
  const __half HOne = __float2half(1), HZero = __float2half(0);
  // hgemm adds in half precision (11 bits), in an order each kernel chooses (NN comes out exact,
  // NT 3e-3 off): about twice sqrt(N) roundings of 2^-11, relative to the products' magnitudes.
  const double HalfSumBound = 2 * std::sqrt(double(N)) * std::ldexp(1.0, -11);
  for (cublasOperation_t TA : {CUBLAS_OP_N, CUBLAS_OP_T})
    for (cublasOperation_t TB : {CUBLAS_OP_N, CUBLAS_OP_T}) {
      LIB(cublasHgemm(H, TA, TB, N, N, N, &HOne, DHA, N, DHB, N, &HZero, DHC, N));
      auto HC = download(DHC, N * N);
      char What[32];
      snprintf(What, sizeof What, "hgemm %c%c", TA ? 'T' : 'N', TB ? 'T' : 'N');
      REPORT(What,
             worst([&](int I, int J) { return double(__half2float(HC[I + J * N])); },
                   GemmWant(TA, TB), N, N),
             HalfSumBound);
    }
  LIB(cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &One, DHA, CUDA_R_16F, N, DHB, CUDA_R_16F,
                   N, &Zero, DC, CUDA_R_32F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  C = download(DC, N * N);
  REPORT("gemmEx f16 -> f32 NN",
         worst([&](int I, int J) { return C[I + J * N]; }, GemmWant(false, false), N, N), 1e-5);
  LIB(cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_T, N, N, N, &One, DBA, CUDA_R_16BF, N, DBB,
                   CUDA_R_16BF, N, &Zero, DC, CUDA_R_32F, N, CUBLAS_COMPUTE_32F,
                   CUBLAS_GEMM_DEFAULT));
  C = download(DC, N * N);
  REPORT("gemmEx bf16 -> f32 NT",
         worst([&](int I, int J) { return C[I + J * N]; }, GemmWant(false, true), N, N), 1e-5);

  // 4 products of 32 x 32 matrices: strided, then through pointer arrays
  const int M = 32, Count = 4, Stride = M * M;
  auto BatchWant = [&](int Batch) {
    return [&, Batch](int I, int J, double &Sum, double &Mag) {
      for (int K = 0; K < M; ++K) {
        double P = double(A[Batch * Stride + I + K * M]) * B[Batch * Stride + K + J * M];
        Sum += P;
        Mag += std::fabs(P);
      }
    };
  };
  LIB(cublasSgemmStridedBatched(H, CUBLAS_OP_N, CUBLAS_OP_N, M, M, M, &One, DA, M, Stride, DB, M,
                                Stride, &Zero, DC, M, Stride, Count));
  C = download(DC, Count * Stride);
  for (int Batch = 0; Batch < Count; ++Batch)
    REPORT(
        "sgemm strided batched",
        worst([&](int I, int J) { return C[Batch * Stride + I + J * M]; }, BatchWant(Batch), M, M),
        1e-6);
  std::vector<float *> PA, PB, PC;
  for (int Batch = 0; Batch < Count; ++Batch) {
    PA.push_back(DA + Batch * Stride);
    PB.push_back(DB + Batch * Stride);
    PC.push_back(DC + Batch * Stride);
  }
  float **DPA = upload(PA), **DPB = upload(PB), **DPC = upload(PC);
  CK(cudaMemset(DC, 0, Count * Stride * sizeof(float)));
  LIB(cublasSgemmBatched(H, CUBLAS_OP_N, CUBLAS_OP_N, M, M, M, &One, DPA, M, DPB, M, &Zero, DPC, M,
                         Count));
  C = download(DC, Count * Stride);
  for (int Batch = 0; Batch < Count; ++Batch)
    REPORT(
        "sgemm batched",
        worst([&](int I, int J) { return C[Batch * Stride + I + J * M]; }, BatchWant(Batch), M, M),
        1e-6);

  // cuBLASLt: D = A B
  cublasLtHandle_t Lt;
  LIB(cublasLtCreate(&Lt));
  cublasLtMatmulDesc_t Desc;
  LIB(cublasLtMatmulDescCreate(&Desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasLtMatrixLayout_t LA, LB, LC;
  LIB(cublasLtMatrixLayoutCreate(&LA, CUDA_R_32F, N, N, N));
  LIB(cublasLtMatrixLayoutCreate(&LB, CUDA_R_32F, N, N, N));
  LIB(cublasLtMatrixLayoutCreate(&LC, CUDA_R_32F, N, N, N));
  LIB(cublasLtMatmul(Lt, Desc, &One, DA, LA, DB, LB, &Zero, DC, LC, DC, LC, nullptr, nullptr, 0,
                     0));
  CK(cudaDeviceSynchronize());
  C = download(DC, N * N);
  REPORT("cublasLtMatmul f32 NN",
         worst([&](int I, int J) { return C[I + J * N]; }, GemmWant(false, false), N, N), 1e-6);
  LIB(cublasLtMatrixLayoutDestroy(LA));
  LIB(cublasLtMatrixLayoutDestroy(LB));
  LIB(cublasLtMatrixLayoutDestroy(LC));
  LIB(cublasLtMatmulDescDestroy(Desc));
  LIB(cublasLtDestroy(Lt));
  LIB(cublasDestroy(H));
  printf("PASS %s\n", kName);
  return 0;
}
