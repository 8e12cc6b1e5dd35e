// cusparse_spmv: NVIDIA's cuSPARSE (the toolkit's libcusparse, linked as users link it) on our
// driver: y = alpha A x + beta y with the generic API (cusparseSpMV) on a 2000 x 2000 CSR matrix
// of five diagonals and on a random sparse one, against a CPU loop in double precision. Its
// SpMV modules carry no module variables: each kernel is translated alone, at its first launch.
#include <cmath>
#include <cstdio>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <vector>

static const char *kName = "cusparse_spmv";

#include "../../check.h"

struct Csr {
  int Rows = 0;
  std::vector<int> RowPtr, Cols;
  std::vector<float> Values;
};

// Five diagonals, or about PerRow entries a row at pseudo-random columns.
static Csr makeMatrix(int N, bool Banded, int PerRow) {
  Csr A;
  A.Rows = N;
  unsigned Seed = 12345;
  for (int I = 0; I < N; ++I) {
    A.RowPtr.push_back(int(A.Cols.size()));
    for (int J = 0; J < N; ++J) {
      bool Take = Banded ? std::abs(I - J) <= 2 : false;
      if (!Banded) {
        Seed = Seed * 1103515245u + 12345u;
        Take = (Seed >> 8) % unsigned(N) < unsigned(PerRow) || I == J;
      }
      if (Take) {
        A.Cols.push_back(J);
        A.Values.push_back(float(int((I * 31 + J * 17) % 41) - 20) / 8.0f);
      }
    }
  }
  A.RowPtr.push_back(int(A.Cols.size()));
  return A;
}

static int spmv(cusparseHandle_t H, const Csr &A, float Alpha, float Beta) {
  const int N = A.Rows, Nnz = int(A.Cols.size());
  std::vector<float> X(N), Y0(N);
  for (int I = 0; I < N; ++I) {
    X[I] = 0.5f + float(I % 11) * 0.125f;
    Y0[I] = float(I % 7) - 3.0f;
  }
  int *RowPtr, *Cols;
  float *Values, *DX, *DY;
  CK(cudaMalloc(&RowPtr, (N + 1) * sizeof(int)));
  CK(cudaMalloc(&Cols, Nnz * sizeof(int)));
  CK(cudaMalloc(&Values, Nnz * sizeof(float)));
  CK(cudaMalloc(&DX, N * sizeof(float)));
  CK(cudaMalloc(&DY, N * sizeof(float)));
  CK(cudaMemcpy(RowPtr, A.RowPtr.data(), (N + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(Cols, A.Cols.data(), Nnz * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(Values, A.Values.data(), Nnz * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(DX, X.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(DY, Y0.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  cusparseSpMatDescr_t M;
  cusparseDnVecDescr_t VX, VY;
  LIB(cusparseCreateCsr(&M, N, N, Nnz, RowPtr, Cols, Values, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  LIB(cusparseCreateDnVec(&VX, N, DX, CUDA_R_32F));
  LIB(cusparseCreateDnVec(&VY, N, DY, CUDA_R_32F));
  size_t Bytes = 0;
  LIB(cusparseSpMV_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &Alpha, M, VX, &Beta, VY,
                              CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &Bytes));
  void *Buffer = nullptr;
  CK(cudaMalloc(&Buffer, Bytes + 1));
  LIB(cusparseSpMV(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &Alpha, M, VX, &Beta, VY, CUDA_R_32F,
                   CUSPARSE_SPMV_ALG_DEFAULT, Buffer));
  std::vector<float> Y(N);
  CK(cudaMemcpy(Y.data(), DY, N * sizeof(float), cudaMemcpyDeviceToHost));
  double Worst = 0;
  for (int I = 0; I < N; ++I) {
    double Sum = 0, Mag = 0;
    for (int K = A.RowPtr[I]; K < A.RowPtr[I + 1]; ++K) {
      Sum += double(A.Values[K]) * X[A.Cols[K]];
      Mag += std::fabs(double(A.Values[K]) * X[A.Cols[K]]);
    }
    double Want = Alpha * Sum + Beta * double(Y0[I]);
    double Scale = std::fabs(Alpha) * Mag + std::fabs(Beta * double(Y0[I])) + 1e-30;
    Worst = std::fmax(Worst, std::fabs(Y[I] - Want) / Scale);
  }
  printf("spmv %d x %d, %d entries: relative error %.2g\n", N, N, Nnz, Worst);
  EXPECT(Worst < 1e-6);
  LIB(cusparseDestroySpMat(M));
  LIB(cusparseDestroyDnVec(VX));
  LIB(cusparseDestroyDnVec(VY));
  for (void *P : {(void *)RowPtr, (void *)Cols, (void *)Values, (void *)DX, (void *)DY, Buffer})
    CK(cudaFree(P));
  return 0;
}

int main() {
  cusparseHandle_t H;
  LIB(cusparseCreate(&H));
  if (spmv(H, makeMatrix(2000, /*Banded=*/true, 0), 1.0f, 0.0f) ||
      spmv(H, makeMatrix(2000, /*Banded=*/false, 12), -0.75f, 0.5f))
    return 1;
  LIB(cusparseDestroy(H));
  printf("PASS %s\n", kName);
  return 0;
}
