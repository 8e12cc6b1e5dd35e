// cusparse_spmm_spgemm: NVIDIA's cuSPARSE (the toolkit's libcusparse, linked as users link it)
// on our driver, beyond cusparse_spmv: C = alpha A B + beta C with a CSR A and a dense B
// (cusparseSpMM, column- and row-major B), and the sparse product C = A B of two CSR matrices
// (cusparseSpGEMM: work estimation, compute, copy), each against a CPU loop in double precision.
#include <cmath>
#include <cstdio>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <map>
#include <vector>

static const char *kName = "cusparse_spmm_spgemm";

#include "../../check.h"
#include "measure.h"

struct Csr {
  int Rows = 0, Cols = 0;
  std::vector<int> RowPtr, Col;
  std::vector<float> Val;
};

// About PerRow entries a row at pseudo-random columns, values exact in a few bits.
static Csr randomCsr(int Rows, int Cols, int PerRow, unsigned Seed) {
  Csr A;
  A.Rows = Rows;
  A.Cols = Cols;
  for (int I = 0; I < Rows; ++I) {
    A.RowPtr.push_back(int(A.Col.size()));
    for (int J = 0; J < Cols; ++J) {
      Seed = Seed * 1103515245u + 12345u;
      if ((Seed >> 8) % unsigned(Cols) < unsigned(PerRow)) {
        A.Col.push_back(J);
        A.Val.push_back(float(int((Seed >> 16) % 33) - 16) / 8.0f);
      }
    }
  }
  A.RowPtr.push_back(int(A.Col.size()));
  return A;
}

// The matrix on the device and its descriptor.
struct DeviceCsr {
  int *RowPtr = nullptr, *Col = nullptr;
  float *Val = nullptr;
  cusparseSpMatDescr_t Desc = nullptr;
};

static cusparseStatus_t toDevice(const Csr &A, DeviceCsr &D) {
  D.RowPtr = upload(A.RowPtr);
  D.Col = upload(A.Col);
  D.Val = upload(A.Val);
  if (!D.RowPtr || !D.Col || !D.Val)
    return CUSPARSE_STATUS_ALLOC_FAILED;
  return cusparseCreateCsr(&D.Desc, A.Rows, A.Cols, int64_t(A.Col.size()), D.RowPtr, D.Col, D.Val,
                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                           CUDA_R_32F);
}

static int spmm(cusparseHandle_t H, const Csr &A, const DeviceCsr &DA, cusparseOrder_t Order) {
  const int K = A.Cols, N = 37; // B is K x N, C is A.Rows x N
  const bool ColMajor = Order == CUSPARSE_ORDER_COL;
  const int Ldb = ColMajor ? K : N, Ldc = ColMajor ? A.Rows : N;
  auto idx = [&](int I, int J, int Ld) { return ColMajor ? I + J * Ld : I * Ld + J; };
  std::vector<float> B(size_t(K) * N), C0(size_t(A.Rows) * N);
  for (int I = 0; I < K; ++I)
    for (int J = 0; J < N; ++J)
      B[idx(I, J, Ldb)] = float((I * 5 + J * 3) % 17 - 8) / 4.0f;
  for (int I = 0; I < A.Rows; ++I)
    for (int J = 0; J < N; ++J)
      C0[idx(I, J, Ldc)] = float((I + J * 7) % 9 - 4);
  float *DB = upload(B), *DC = upload(C0);
  EXPECT(DB && DC);
  cusparseDnMatDescr_t MB, MC;
  LIB(cusparseCreateDnMat(&MB, K, N, Ldb, DB, CUDA_R_32F, Order));
  LIB(cusparseCreateDnMat(&MC, A.Rows, N, Ldc, DC, CUDA_R_32F, Order));
  const float Alpha = 1.5f, Beta = -0.25f;
  const auto Op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  size_t Bytes = 0;
  LIB(cusparseSpMM_bufferSize(H, Op, Op, &Alpha, DA.Desc, MB, &Beta, MC, CUDA_R_32F,
                              CUSPARSE_SPMM_ALG_DEFAULT, &Bytes));
  void *Buffer = nullptr;
  CK(cudaMalloc(&Buffer, Bytes + 1));
  LIB(cusparseSpMM(H, Op, Op, &Alpha, DA.Desc, MB, &Beta, MC, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT,
                   Buffer));
  std::vector<float> C(C0.size());
  CK(cudaMemcpy(C.data(), DC, C.size() * sizeof(float), cudaMemcpyDeviceToHost));
  double Worst = 0;
  for (int I = 0; I < A.Rows; ++I)
    for (int J = 0; J < N; ++J) {
      double Sum = 0, Mag = std::fabs(Beta * C0[idx(I, J, Ldc)]);
      for (int P = A.RowPtr[I]; P < A.RowPtr[I + 1]; ++P) {
        double T = double(A.Val[P]) * B[idx(A.Col[P], J, Ldb)];
        Sum += T;
        Mag += std::fabs(Alpha * T);
      }
      double Want = Alpha * Sum + Beta * C0[idx(I, J, Ldc)];
      Worst = std::fmax(Worst, std::fabs(C[idx(I, J, Ldc)] - Want) / (Mag + 1e-30));
    }
  printf("spmm %s-major: relative error %.2g\n", ColMajor ? "column" : "row", Worst);
  EXPECT(Worst < 1e-6);
  LIB(cusparseDestroyDnMat(MB));
  LIB(cusparseDestroyDnMat(MC));
  for (void *P : {(void *)DB, (void *)DC, Buffer})
    CK(cudaFree(P));
  return 0;
}

static int spgemm(cusparseHandle_t H, const Csr &A, const DeviceCsr &DA, const Csr &B,
                  const DeviceCsr &DB) {
  const float Alpha = 1.0f, Beta = 0.0f;
  const auto Op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  DeviceCsr DC;
  CK(cudaMalloc(&DC.RowPtr, (A.Rows + 1) * sizeof(int)));
  LIB(cusparseCreateCsr(&DC.Desc, A.Rows, B.Cols, 0, DC.RowPtr, nullptr, nullptr,
                        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                        CUDA_R_32F));
  cusparseSpGEMMDescr_t G;
  LIB(cusparseSpGEMM_createDescr(&G));
  size_t Bytes1 = 0, Bytes2 = 0;
  void *Buffer1 = nullptr, *Buffer2 = nullptr;
  LIB(cusparseSpGEMM_workEstimation(H, Op, Op, &Alpha, DA.Desc, DB.Desc, &Beta, DC.Desc, CUDA_R_32F,
                                    CUSPARSE_SPGEMM_DEFAULT, G, &Bytes1, nullptr));
  CK(cudaMalloc(&Buffer1, Bytes1 + 1));
  LIB(cusparseSpGEMM_workEstimation(H, Op, Op, &Alpha, DA.Desc, DB.Desc, &Beta, DC.Desc, CUDA_R_32F,
                                    CUSPARSE_SPGEMM_DEFAULT, G, &Bytes1, Buffer1));
  LIB(cusparseSpGEMM_compute(H, Op, Op, &Alpha, DA.Desc, DB.Desc, &Beta, DC.Desc, CUDA_R_32F,
                             CUSPARSE_SPGEMM_DEFAULT, G, &Bytes2, nullptr));
  CK(cudaMalloc(&Buffer2, Bytes2 + 1));
  LIB(cusparseSpGEMM_compute(H, Op, Op, &Alpha, DA.Desc, DB.Desc, &Beta, DC.Desc, CUDA_R_32F,
                             CUSPARSE_SPGEMM_DEFAULT, G, &Bytes2, Buffer2));
  int64_t Rows = 0, Cols = 0, Nnz = 0;
  LIB(cusparseSpMatGetSize(DC.Desc, &Rows, &Cols, &Nnz));
  EXPECT(Rows == A.Rows && Cols == B.Cols);
  CK(cudaMalloc(&DC.Col, Nnz * sizeof(int) + 1));
  CK(cudaMalloc(&DC.Val, Nnz * sizeof(float) + 1));
  LIB(cusparseCsrSetPointers(DC.Desc, DC.RowPtr, DC.Col, DC.Val));
  LIB(cusparseSpGEMM_copy(H, Op, Op, &Alpha, DA.Desc, DB.Desc, &Beta, DC.Desc, CUDA_R_32F,
                          CUSPARSE_SPGEMM_DEFAULT, G));
  std::vector<int> RowPtr(A.Rows + 1), Col(Nnz);
  std::vector<float> Val(Nnz);
  CK(cudaMemcpy(RowPtr.data(), DC.RowPtr, RowPtr.size() * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(Col.data(), DC.Col, Nnz * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(Val.data(), DC.Val, Nnz * sizeof(float), cudaMemcpyDeviceToHost));
  // The CPU's product, row by row: every structural entry, and nothing else, with its value.
  int64_t WantNnz = 0;
  double Worst = 0;
  EXPECT(RowPtr[0] == 0 && RowPtr[A.Rows] == Nnz);
  for (int I = 0; I < A.Rows; ++I) {
    std::map<int, std::pair<double, double>> Row; // column: sum, magnitude
    for (int P = A.RowPtr[I]; P < A.RowPtr[I + 1]; ++P)
      for (int Q = B.RowPtr[A.Col[P]]; Q < B.RowPtr[A.Col[P] + 1]; ++Q) {
        double T = double(A.Val[P]) * B.Val[Q];
        auto &E = Row[B.Col[Q]];
        E.first += T;
        E.second += std::fabs(T);
      }
    WantNnz += int64_t(Row.size());
    EXPECT(RowPtr[I + 1] - RowPtr[I] == int(Row.size()));
    for (int P = RowPtr[I]; P < RowPtr[I + 1]; ++P) {
      auto E = Row.find(Col[P]);
      EXPECT(E != Row.end());
      Worst = std::fmax(Worst, std::fabs(Val[P] - E->second.first) / (E->second.second + 1e-30));
    }
  }
  printf("spgemm %d x %d times %d x %d: %lld entries (%lld expected), relative error %.2g\n",
         A.Rows, A.Cols, B.Rows, B.Cols, (long long)Nnz, (long long)WantNnz, Worst);
  EXPECT(Nnz == WantNnz && Worst < 1e-6);
  LIB(cusparseSpGEMM_destroyDescr(G));
  LIB(cusparseDestroySpMat(DC.Desc));
  for (void *P : {(void *)DC.RowPtr, (void *)DC.Col, (void *)DC.Val, Buffer1, Buffer2})
    CK(cudaFree(P));
  return 0;
}

int main() {
  cusparseHandle_t H;
  LIB(cusparseCreate(&H));
  Csr A = randomCsr(300, 250, 9, 7), B = randomCsr(250, 280, 6, 11);
  DeviceCsr DA, DB;
  LIB(toDevice(A, DA));
  LIB(toDevice(B, DB));
  if (spmm(H, A, DA, CUSPARSE_ORDER_COL) || spmm(H, A, DA, CUSPARSE_ORDER_ROW) ||
      spgemm(H, A, DA, B, DB))
    return 1;
  for (const DeviceCsr *D : {&DA, &DB}) {
    LIB(cusparseDestroySpMat(D->Desc));
    for (void *P : {(void *)D->RowPtr, (void *)D->Col, (void *)D->Val})
      CK(cudaFree(P));
  }
  LIB(cusparseDestroy(H));
  printf("PASS %s\n", kName);
  return 0;
}
