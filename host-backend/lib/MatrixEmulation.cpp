// AMD's matrix instructions (llvm.amdgcn.mfma.*, llvm.amdgcn.wmma.*) on the host, as the CDNA,
// RDNA3 and RDNA4 ISAs document their operands, over the emulator's ds_bpermute (the same meeting
// of a wave's lanes that every cross-lane operation uses).
//
// v_mfma_f32_4x4x4{f16,bf16_1k} computes 16 independent 4x4x4 blocks per wave64 wave: block b
// lives in lanes 4b..4b+3; lane 4b + i holds row i of the block's A (k = 0..3 in its four
// elements), lane 4b + j column j of B (k = 0..3) and column j of C and D (rows 0..3 in its four
// f32 elements). Each D element is C plus the block's four products, summed exactly (in double:
// f16 and bf16 products are exact there) and rounded once to f32, denormals kept. CBSZ/ABID
// broadcasts and BLGP lane swizzles are not emulated (the translation never sets them).
#include "MatrixEmulation.h"

#include "llvm/IR/IntrinsicsAMDGPU.h"

using namespace llvm;

namespace ptx2amd::host {

bool isEmulatedMatrixIntrinsic(Intrinsic::ID ID) {
  return ID == Intrinsic::amdgcn_mfma_f32_4x4x4f16 ||
         ID == Intrinsic::amdgcn_mfma_f32_4x4x4bf16_1k ||
         ID == Intrinsic::amdgcn_wmma_f32_16x16x16_f16 ||
         ID == Intrinsic::amdgcn_wmma_f32_16x16x16_bf16;
}

namespace {

/// Element \p K of a vector of f16 (or bf16 in i16) bits \p Bits (an integer), as a double.
Value *halfElement(IRBuilder<> &B, Value *Bits, unsigned K, bool BF16) {
  Value *H = B.CreateTrunc(K ? B.CreateLShr(Bits, 16 * K) : Bits, B.getInt16Ty());
  if (BF16)
    return B.CreateFPExt(
        B.CreateBitCast(B.CreateShl(B.CreateZExt(H, B.getInt32Ty()), 16), B.getFloatTy()),
        B.getDoubleTy());
  return B.CreateFPExt(B.CreateBitCast(H, B.getHalfTy()), B.getDoubleTy());
}

/// v_wmma_f32_16x16x16_{f16,bf16} on wave32. RDNA3 (gfx11): lane l holds row l % 16 of A and
/// column l % 16 of B (k = 0..15 in its 16 elements; lanes 16-31 repeat lanes 0-15, which the
/// hardware requires: lanes 0-15 are read here), and C/D row 2v + l / 16 of column l % 16 in
/// element v. RDNA4 (gfx12, 8 elements a lane): lane l holds row l % 16 of A and column l % 16
/// of B with k = 8 (l / 16) + e in element e, and C/D row 8 (l / 16) + v of column l % 16 in
/// element v. Each D element is C plus its 16 products, summed exactly (in double) and rounded
/// once.
Value *wmma(CallInst *CI, IRBuilder<> &B, Value *LaneInWave,
            function_ref<Value *(Value *Address, Value *Data)> Bpermute, bool Rdna4) {
  bool BF16 = CI->getIntrinsicID() == Intrinsic::amdgcn_wmma_f32_16x16x16_bf16;
  Type *I32 = B.getInt32Ty(), *F64 = B.getDoubleTy();
  unsigned WordsPerLane = Rdna4 ? 4 : 8;
  auto *Words = FixedVectorType::get(I32, WordsPerLane);
  Value *A = B.CreateBitCast(CI->getArgOperand(0), Words);
  Value *Bv = B.CreateBitCast(CI->getArgOperand(1), Words);
  Value *C = CI->getArgOperand(2);
  // The 16 k elements of row or column \p Index (0..15) of operand \p V, as doubles: from lane
  // Index (gfx11), or k 0-7 from lane Index and k 8-15 from lane Index + 16 (gfx12).
  auto Fetch = [&](Value *V, Value *Index) {
    SmallVector<Value *, 16> E;
    for (unsigned Half = 0; Half < (Rdna4 ? 2u : 1u); ++Half) {
      Value *Address = B.CreateShl(Half ? B.CreateOr(Index, 16) : Index, 2);
      for (unsigned W = 0; W < WordsPerLane; ++W) {
        Value *Word = Bpermute(Address, B.CreateExtractElement(V, W));
        E.push_back(halfElement(B, Word, 0, BF16));
        E.push_back(halfElement(B, Word, 1, BF16));
      }
    }
    return E;
  };
  Value *Col = B.CreateAnd(LaneInWave, 15), *UpperHalf = B.CreateLShr(LaneInWave, 4);
  auto Column = Fetch(Bv, Col);
  Value *D = PoisonValue::get(CI->getType());
  for (unsigned V = 0; V < 8; ++V) {
    Value *RowOf = Rdna4 ? B.CreateOr(B.CreateShl(UpperHalf, 3), B.getInt32(V))
                         : B.CreateOr(B.getInt32(2 * V), UpperHalf);
    auto Row = Fetch(A, RowOf);
    Value *Sum = B.CreateFPExt(B.CreateExtractElement(C, V), F64), *Dot = nullptr;
    for (unsigned K = 0; K < 16; ++K) {
      Value *P = B.CreateFMul(Row[K], Column[K]);
      Dot = Dot ? B.CreateFAdd(Dot, P) : P;
    }
    D = B.CreateInsertElement(D, B.CreateFPTrunc(B.CreateFAdd(Sum, Dot), B.getFloatTy()), V);
  }
  return D;
}

} // namespace

Value *emulateMatrixIntrinsic(CallInst *CI, IRBuilder<> &B, Value *LaneInWave,
                              function_ref<Value *(Value *Address, Value *Data)> Bpermute) {
  Intrinsic::ID ID = CI->getIntrinsicID();
  if (!isEmulatedMatrixIntrinsic(ID))
    return nullptr;
  if (ID == Intrinsic::amdgcn_wmma_f32_16x16x16_f16 ||
      ID == Intrinsic::amdgcn_wmma_f32_16x16x16_bf16) {
    // gfx11's operands are 16 elements a lane, gfx12's 8.
    auto *AT = dyn_cast<FixedVectorType>(CI->getArgOperand(0)->getType());
    if (!AT || (AT->getNumElements() != 16 && AT->getNumElements() != 8))
      return nullptr;
    return wmma(CI, B, LaneInWave, Bpermute, /*Rdna4=*/AT->getNumElements() == 8);
  }
  // Broadcast and swizzle controls: only their defaults.
  for (unsigned K = 3; K < 6; ++K) {
    auto *Control = dyn_cast<ConstantInt>(CI->getArgOperand(K));
    if (!Control || !Control->isZero())
      return nullptr;
  }
  bool BF16 = ID == Intrinsic::amdgcn_mfma_f32_4x4x4bf16_1k;
  Type *I32 = B.getInt32Ty(), *I64 = B.getInt64Ty(), *F64 = B.getDoubleTy();
  auto AsI64 = [&](Value *V) { return B.CreateBitCast(V, I64); };
  auto Element = [&](Value *Bits, unsigned K) { return halfElement(B, Bits, K, BF16); };
  Value *A = AsI64(CI->getArgOperand(0)), *Bv = AsI64(CI->getArgOperand(1));
  Value *C = CI->getArgOperand(2);
  Value *Base = B.CreateAnd(LaneInWave, ~3u);
  Value *ALo = B.CreateTrunc(A, I32), *AHi = B.CreateTrunc(B.CreateLShr(A, 32), I32);
  Value *D = PoisonValue::get(CI->getType());
  for (unsigned Row = 0; Row < 4; ++Row) {
    // Row `Row` of this block's A, from lane 4b + Row.
    Value *Address = B.CreateShl(B.CreateOr(Base, Row), 2);
    Value *Lo = B.CreateZExt(Bpermute(Address, ALo), I64);
    Value *Hi = B.CreateZExt(Bpermute(Address, AHi), I64);
    Value *RowBits = B.CreateOr(Lo, B.CreateShl(Hi, 32));
    Value *Sum = B.CreateFPExt(B.CreateExtractElement(C, Row), F64);
    Value *Dot = nullptr;
    for (unsigned K = 0; K < 4; ++K) {
      Value *P = B.CreateFMul(Element(RowBits, K), Element(Bv, K));
      Dot = Dot ? B.CreateFAdd(Dot, P) : P;
    }
    Sum = B.CreateFAdd(Sum, Dot);
    D = B.CreateInsertElement(D, B.CreateFPTrunc(Sum, B.getFloatTy()), Row);
  }
  return D;
}

} // namespace ptx2amd::host
