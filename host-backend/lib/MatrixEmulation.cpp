// AMD's matrix instructions (llvm.amdgcn.mfma.*) on the host, as the CDNA ISA documents their
// operands, over the emulator's ds_bpermute (the same meeting of a wave's lanes that every
// cross-lane operation uses).
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
  return ID == Intrinsic::amdgcn_mfma_f32_4x4x4f16 || ID == Intrinsic::amdgcn_mfma_f32_4x4x4bf16_1k;
}

Value *emulateMatrixIntrinsic(CallInst *CI, IRBuilder<> &B, Value *LaneInWave,
                              function_ref<Value *(Value *Address, Value *Data)> Bpermute) {
  Intrinsic::ID ID = CI->getIntrinsicID();
  if (!isEmulatedMatrixIntrinsic(ID))
    return nullptr;
  // Broadcast and swizzle controls: only their defaults.
  for (unsigned K = 3; K < 6; ++K) {
    auto *Control = dyn_cast<ConstantInt>(CI->getArgOperand(K));
    if (!Control || !Control->isZero())
      return nullptr;
  }
  bool BF16 = ID == Intrinsic::amdgcn_mfma_f32_4x4x4bf16_1k;
  Type *I32 = B.getInt32Ty(), *I64 = B.getInt64Ty(), *F64 = B.getDoubleTy();
  auto AsI64 = [&](Value *V) { return B.CreateBitCast(V, I64); };
  // Element K (0..3) of a 64-bit operand as a double.
  auto Element = [&](Value *Bits, unsigned K) {
    Value *H = B.CreateTrunc(B.CreateLShr(Bits, 16 * K), B.getInt16Ty());
    if (BF16)
      return B.CreateFPExt(B.CreateBitCast(B.CreateShl(B.CreateZExt(H, I32), 16), B.getFloatTy()),
                           F64);
    return B.CreateFPExt(B.CreateBitCast(H, B.getHalfTy()), F64);
  };
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
