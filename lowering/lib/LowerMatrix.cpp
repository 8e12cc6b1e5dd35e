// Matrix instructions on 32-lane warps: mma.sync, wmma.load/store/mma, ldmatrix, stmatrix and
// movmatrix, as an exact target-independent sequence. Each lane gathers the A and B elements its
// accumulators need from the other lanes of its warp (ds_bpermute inside the lane's half of a
// wave64 wave, as shfl.sync does) and accumulates them with FMAs in k order, so every target runs
// them, bit for bit the same.
//
// The mma.sync fragments (PTX ISA "Matrix fragments for mma.mMnNkK") of every shape with N = 8
// except m8n8k4.f16 share one pattern, with g = %laneid >> 2, t = %laneid % 4 and E the elements
// of one register (32 / element bits; f64 and b1 count one per register, a b1 "element" is a
// 32-bit chunk of k):
//   A register j, element e: row g + 8 * (j & 1) and k = (j >> 1) * 4E + t * E + e for M = 16;
//                            row g and k = j * 4E + t * E + e for M = 8;
//   B register j, element e: column g, k = j * 4E + t * E + e;
//   C/D element i:           row g + 8 * (i >> 1), column 2t + (i & 1).
// So a lane's rows of A come from the four lanes of its group, its columns of B from the lanes of
// groups 2t and 2t + 1.
//
// The wmma fragments are ours to choose (PTX leaves them unspecified): they are tiles of the
// mma.sync fragments above (m16n8k16 for f16/bf16 and s8/u8, m16n8k8 for tf32, m8n8k4 for f64),
// A by 16-row blocks (8 rows for m8n32k16: the M = 8 pattern), B by 8-column blocks, C by both;
// where PTX gives a fragment more registers than its elements fill (f16 A/B), the tiles repeat.
// wmma.load/store read and write each lane's own elements with the stride and layout given.
#include "FunctionLowerer.h"

#include "ptx2amd/ptx-ir/Printer.h"

#include <fmt/format.h>

#include <array>
#include <map>
#include <optional>

using namespace llvm;

namespace ptx2amd::lowering {
using ir::Mod;
using ir::Opcode;
using ir::Type;

namespace {

/// The shape modifier of a matrix instruction as {m, n, k} (0 when absent).
std::array<unsigned, 3> shapeOf(const ir::Instruction &I) {
  for (const ir::Modifier &M : I.Mods)
    if (M.Id == Mod::Shape)
      return {M.Value >> 20, (M.Value >> 10) & 1023, M.Value & 1023};
  return {0, 0, 0};
}

bool hasWord(const ir::Instruction &I, std::string_view W) {
  for (const ir::Modifier &M : I.Mods)
    if (M.Id == Mod::Extra && ir::modifierSpelling(M) == W)
      return true;
  return false;
}

/// Elements of one 32-bit fragment register (one for f64, and for b1, whose unit is a 32-bit
/// chunk of k).
unsigned perRegister(Type T) {
  unsigned Bits = ir::typeBits(T);
  return Bits >= 32 || T == Type::B1 ? 1 : 32 / Bits;
}

bool isIntegerInput(Type T) {
  return T == Type::S8 || T == Type::U8 || T == Type::S4 || T == Type::U4 || T == Type::B1;
}

/// The lane-level matrix operations of one instruction.
class Matrix {
public:
  explicit Matrix(FunctionLowerer &L) : L(L), B(L.B) {
    Lane = L.laneId();
    Group = B.CreateLShr(Lane, 2);
    Thread = B.CreateAnd(Lane, 3);
    if (L.S.Target.WaveSize == 64)
      Half = B.CreateAnd(L.laneInWave(), 32);
  }

  /// \p V | \p C, for bits \p C that are clear in V.
  Value *with(Value *V, unsigned C) { return C ? B.CreateOr(V, C) : V; }

  /// \p V + \p C.
  Value *plus(Value *V, unsigned C) { return C ? B.CreateAdd(V, B.getInt32(C)) : V; }

  /// The ds_bpermute byte address of lane \p Src (0..31) of this lane's warp.
  Value *laneAddress(Value *Src) { return B.CreateShl(Half ? B.CreateOr(Half, Src) : Src, 2); }

  /// \p V (32 or 64 bits) as held by the lane at \p Address (laneAddress).
  Value *shuffle(Value *V, Value *Address) {
    llvm::Type *T = V->getType();
    auto Move = [&](Value *W) {
      return L.intrinsic(Intrinsic::amdgcn_ds_bpermute, {}, {Address, W});
    };
    if (T->getPrimitiveSizeInBits() == 32)
      return L.convert(Move(L.convert(V, B.getInt32Ty())), T);
    Value *I = L.convert(V, B.getInt64Ty());
    Value *Lo = Move(B.CreateTrunc(I, B.getInt32Ty()));
    Value *Hi = Move(B.CreateTrunc(B.CreateLShr(I, 32), B.getInt32Ty()));
    Value *R = B.CreateOr(B.CreateZExt(Lo, B.getInt64Ty()),
                          B.CreateShl(B.CreateZExt(Hi, B.getInt64Ty()), 32));
    return L.convert(R, T);
  }

  /// The accumulation type of an input element type.
  llvm::Type *accType(Type In) {
    if (In == Type::F64)
      return B.getDoubleTy();
    if (isIntegerInput(In))
      return B.getInt32Ty();
    return B.getFloatTy();
  }

  /// Element \p E of fragment register \p R (i32, or f64/i64 for f64) as an accumulation value.
  Value *element(Value *R, Type T, unsigned E) {
    switch (T) {
    case Type::F64:
      return L.convert(R, B.getDoubleTy());
    case Type::F32:
      return L.convert(R, B.getFloatTy());
    case Type::TF32: // the low 13 mantissa bits are not part of a tf32 value
      return B.CreateBitCast(B.CreateAnd(L.convert(R, B.getInt32Ty()), 0xffffe000u),
                             B.getFloatTy());
    case Type::B1:
    case Type::S32:
      return L.convert(R, B.getInt32Ty());
    default:
      break;
    }
    unsigned Bits = ir::typeBits(T);
    Value *I = L.convert(R, B.getInt32Ty());
    if (E)
      I = B.CreateLShr(I, E * Bits);
    Value *Narrow = B.CreateTrunc(I, B.getIntNTy(Bits));
    switch (T) {
    case Type::F16:
      return B.CreateFPExt(B.CreateBitCast(Narrow, B.getHalfTy()), B.getFloatTy());
    case Type::BF16:
      return B.CreateBitCast(B.CreateShl(B.CreateZExt(Narrow, B.getInt32Ty()), 16), B.getFloatTy());
    case Type::S8:
    case Type::S4:
      return B.CreateSExt(Narrow, B.getInt32Ty());
    case Type::U8:
    case Type::U4:
      return B.CreateZExt(Narrow, B.getInt32Ty());
    case Type::E4M3:
    case Type::E5M2:
      return L.fp8ToFloat(Narrow, T == Type::E5M2);
    default:
      L.fail(fmt::format("matrix elements of type .{} are not supported yet", ir::typeName(T)));
    }
  }

  /// A's elements of this lane's rows (g, and g + 8 when \p M is 16) in k order, gathered from
  /// the four lanes of its group.
  std::array<std::vector<Value *>, 2> gatherA(ArrayRef<Value *> Regs, Type T, unsigned M) {
    unsigned E = perRegister(T);
    std::array<std::vector<Value *>, 2> Rows;
    unsigned K = (M == 16 ? Regs.size() / 2 : Regs.size()) * 4 * E;
    Rows[0].resize(K);
    if (M == 16)
      Rows[1].resize(K);
    Value *Base = B.CreateAnd(Lane, ~3u);
    for (unsigned Src = 0; Src < 4; ++Src) {
      Value *Address = laneAddress(with(Base, Src));
      for (unsigned J = 0; J < Regs.size(); ++J) {
        Value *V = shuffle(Regs[J], Address);
        unsigned Row = M == 16 ? J & 1 : 0, Block = M == 16 ? J >> 1 : J;
        for (unsigned El = 0; El < E; ++El)
          Rows[Row][Block * 4 * E + Src * E + El] = element(V, T, El);
      }
    }
    return Rows;
  }

  /// B's elements of this lane's columns 2t + \p Column in k order, gathered from the four lanes
  /// of group 2t + Column.
  std::vector<Value *> gatherB(ArrayRef<Value *> Regs, Type T, unsigned Column) {
    unsigned E = perRegister(T);
    std::vector<Value *> Col(Regs.size() * 4 * E);
    Value *First = B.CreateShl(Thread, 1);
    Value *Base = B.CreateShl(with(First, Column), 2);
    for (unsigned Src = 0; Src < 4; ++Src) {
      Value *Address = laneAddress(with(Base, Src));
      for (unsigned J = 0; J < Regs.size(); ++J) {
        Value *V = shuffle(Regs[J], Address);
        for (unsigned El = 0; El < E; ++El)
          Col[J * 4 * E + Src * E + El] = element(V, T, El);
      }
    }
    return Col;
  }

  /// How the products of one instruction are formed and summed.
  struct Arithmetic {
    Type A = Type::F16, B = Type::F16;
    bool Saturate = false; ///< integer .satfinite: the exact sum clamped to 32 bits
    bool Xor = false;      ///< b1: popc(a ^ b) rather than popc(a & b)
  };

  /// C + the dot product of \p Row and \p Col, in k order.
  Value *dot(Value *C, ArrayRef<Value *> Row, ArrayRef<Value *> Col, const Arithmetic &Ar) {
    if (Row.size() != Col.size())
      L.fail("internal error: matrix fragments of different depths");
    if (!isIntegerInput(Ar.A)) {
      Value *Acc = C;
      for (size_t K = 0; K < Row.size(); ++K)
        Acc = L.intrinsic(Intrinsic::fma, {Acc->getType()}, {Row[K], Col[K], Acc});
      return Acc;
    }
    // Integer products are exact; with .satfinite the sum is kept in 64 bits and clamped.
    llvm::Type *SumTy = Ar.Saturate ? B.getInt64Ty() : B.getInt32Ty();
    Value *Acc = Ar.Saturate ? B.CreateSExt(C, SumTy) : C;
    for (size_t K = 0; K < Row.size(); ++K) {
      Value *P;
      if (Ar.A == Type::B1)
        P = L.intrinsic(Intrinsic::ctpop, {B.getInt32Ty()},
                        {Ar.Xor ? B.CreateXor(Row[K], Col[K]) : B.CreateAnd(Row[K], Col[K])});
      else
        P = B.CreateMul(Row[K], Col[K]);
      Acc = B.CreateAdd(Acc, Ar.Saturate ? B.CreateSExt(P, SumTy) : P);
    }
    if (!Ar.Saturate)
      return Acc;
    Acc = L.intrinsic(Intrinsic::smax, {SumTy}, {Acc, B.getInt64(INT32_MIN)});
    Acc = L.intrinsic(Intrinsic::smin, {SumTy}, {Acc, B.getInt64(INT32_MAX)});
    return B.CreateTrunc(Acc, B.getInt32Ty());
  }

  /// One mma tile of N = 8: D = A * B + C for this lane's elements of C (4 for M = 16, rows g
  /// and g + 8; 2 for M = 8), all in the accumulation type.
  std::vector<Value *> tile(const std::array<std::vector<Value *>, 2> &A, ArrayRef<Value *> BRegs,
                            ArrayRef<Value *> C, unsigned M, const Arithmetic &Ar) {
    std::array<std::vector<Value *>, 2> Cols = {gatherB(BRegs, Ar.B, 0), gatherB(BRegs, Ar.B, 1)};
    std::vector<Value *> D;
    for (unsigned I = 0; I < (M == 16 ? 4u : 2u); ++I)
      D.push_back(dot(C[I], A[I >> 1], Cols[I & 1], Ar));
    return D;
  }

  /// Whether the target has the CDNA matrix unit (gfx908, gfx90a, gfx94x, gfx950).
  bool hasMfma() const {
    unsigned V = L.S.Target.IsaVersion;
    return V >= 9008 && V < 10000;
  }

  /// One m16n8k8/m16n8k16 tile with f16 or bf16 inputs on gfx9's matrix unit: D = A * B + C
  /// for this lane's four elements of C (f32). v_mfma_f32_4x4x4 computes 16 4x4x4 blocks a
  /// wave, block b in lanes 4b..4b+3, so the eight blocks of a warp lie in its own lanes and the
  /// two warps of a wave stay apart. Block b = 2 rb + cb of a warp computes D^T = B^T A^T for D
  /// rows 4rb..4rb+3, columns 4cb..4cb+3, one MFMA per 4 of k: its A operand in lane 4b + i is
  /// B[4kc..4kc+3][4cb + i], its B operand in lane 4b + j is A[4rb + j][4kc..4kc+3], and lane
  /// 4b + j ends with D[4rb + j][4cb + v] in element v. C is added after the products.
  std::vector<Value *> mfmaTile(ArrayRef<Value *> ARegs, ArrayRef<Value *> BRegs,
                                ArrayRef<Value *> C, Type In) {
    unsigned K = ARegs.size() * 4; // 2 registers: k8, 4: k16
    Value *Block = B.CreateLShr(Lane, 2), *I = B.CreateAnd(Lane, 3);
    Value *RowBlock = B.CreateLShr(Block, 1), *ColBlock = B.CreateAnd(Block, 1);
    // A rows 8..15 (row blocks 2 and 3) are in the odd A registers.
    Value *LowerRows = B.CreateICmpNE(B.CreateAnd(RowBlock, 2), B.getInt32(0));
    Value *BSource = B.CreateShl(B.CreateOr(B.CreateShl(ColBlock, 2), I), 2);
    Value *ASource = B.CreateShl(B.CreateOr(B.CreateShl(B.CreateAnd(RowBlock, 1), 2), I), 2);
    bool BF16 = In == Type::BF16;
    auto *Operand = FixedVectorType::get(BF16 ? B.getInt16Ty() : B.getHalfTy(), 4);
    auto *Result = FixedVectorType::get(B.getFloatTy(), 4);
    Value *Acc = Constant::getNullValue(Result);
    auto Pack = [&](Value *Lo, Value *Hi) {
      Value *V = B.CreateInsertElement(PoisonValue::get(FixedVectorType::get(B.getInt32Ty(), 2)),
                                       Lo, uint64_t(0));
      return B.CreateBitCast(B.CreateInsertElement(V, Hi, 1), Operand);
    };
    for (unsigned Kc = 0; Kc < K / 4; ++Kc) {
      unsigned Pair = 2 * (Kc & 1); // the thread of the group that holds k = 4kc, 4kc + 1
      Value *B0 = laneAddress(with(BSource, Pair)), *B1 = laneAddress(with(BSource, Pair + 1));
      Value *AOp = Pack(shuffle(BRegs[Kc >> 1], B0), shuffle(BRegs[Kc >> 1], B1));
      Value *A0 = laneAddress(with(ASource, Pair)), *A1 = laneAddress(with(ASource, Pair + 1));
      Value *Upper = ARegs[2 * (Kc >> 1)], *Lower = ARegs[2 * (Kc >> 1) + 1];
      Value *Lo = B.CreateSelect(LowerRows, shuffle(Lower, A0), shuffle(Upper, A0));
      Value *Hi = B.CreateSelect(LowerRows, shuffle(Lower, A1), shuffle(Upper, A1));
      Intrinsic::ID ID =
          BF16 ? Intrinsic::amdgcn_mfma_f32_4x4x4bf16_1k : Intrinsic::amdgcn_mfma_f32_4x4x4f16;
      Acc = L.intrinsic(ID, {},
                        {AOp, Pack(Lo, Hi), Acc, B.getInt32(0), B.getInt32(0), B.getInt32(0)});
    }
    // Element e of the fragment, D[g + 8 (e >> 1)][2t + (e & 1)]: lane
    // 8 (g >> 2) + 16 (e >> 1) + 4 (t >> 1) + (g & 3), element 2 (t & 1) + (e & 1).
    Value *Base =
        B.CreateOr(B.CreateShl(B.CreateLShr(Group, 2), 3),
                   B.CreateOr(B.CreateShl(B.CreateLShr(Thread, 1), 2), B.CreateAnd(Group, 3)));
    Value *OddThread = B.CreateICmpNE(B.CreateAnd(Thread, 1), B.getInt32(0));
    std::vector<Value *> D;
    for (unsigned E = 0; E < 4; ++E) {
      Value *Address = laneAddress(with(Base, 16 * (E >> 1)));
      Value *V0 = shuffle(B.CreateExtractElement(Acc, uint64_t(E & 1)), Address);
      Value *V1 = shuffle(B.CreateExtractElement(Acc, uint64_t(2 + (E & 1))), Address);
      D.push_back(B.CreateFAdd(C[E], B.CreateSelect(OddThread, V1, V0)));
    }
    return D;
  }

  /// Whether the target has RDNA3's WMMA (gfx11, wave32).
  bool hasWmma11() const {
    unsigned V = L.S.Target.IsaVersion;
    return V >= 11000 && V < 12000 && L.S.Target.WaveSize == 32;
  }

  /// One m16n8k16 tile with f16 or bf16 inputs on gfx11's v_wmma_f32_16x16x16: D = A * B + C
  /// for this lane's four elements of C (f32). The WMMA's A in lane l is row l % 16 of A (all 16
  /// k; lanes 16-31 repeat lanes 0-15), its B column l % 16 (B's columns 0-7, repeated for 8-15),
  /// and lane l ends with D[2v + l / 16][l % 16] in element v. C is added after the products.
  std::vector<Value *> wmmaTile(ArrayRef<Value *> ARegs, ArrayRef<Value *> BRegs,
                                ArrayRef<Value *> C, Type In) {
    Value *Row8 = B.CreateAnd(Lane, 7);
    Value *LowerRows = B.CreateICmpNE(B.CreateAnd(Lane, 8), B.getInt32(0));
    Value *Source = B.CreateShl(Row8, 2);
    auto *Words = FixedVectorType::get(B.getInt32Ty(), 8);
    Value *AOp = PoisonValue::get(Words), *BOp = PoisonValue::get(Words);
    for (unsigned P = 0; P < 8; ++P) { // k = 2p and 2p + 1
      Value *Address = laneAddress(with(Source, P & 3));
      Value *Upper = shuffle(ARegs[2 * (P >> 2)], Address);
      Value *Lower = shuffle(ARegs[2 * (P >> 2) + 1], Address);
      AOp = B.CreateInsertElement(AOp, B.CreateSelect(LowerRows, Lower, Upper), P);
      BOp = B.CreateInsertElement(BOp, shuffle(BRegs[P >> 2], Address), P);
    }
    bool BF16 = In == Type::BF16;
    auto *Operand = FixedVectorType::get(BF16 ? B.getInt16Ty() : B.getHalfTy(), 16);
    auto *Result = FixedVectorType::get(B.getFloatTy(), 8);
    Intrinsic::ID ID =
        BF16 ? Intrinsic::amdgcn_wmma_f32_16x16x16_bf16 : Intrinsic::amdgcn_wmma_f32_16x16x16_f16;
    Value *Acc = L.intrinsic(ID, {Result, Operand},
                             {B.CreateBitCast(AOp, Operand), B.CreateBitCast(BOp, Operand),
                              Constant::getNullValue(Result)});
    // Element e of the fragment, D[g + 8 (e >> 1)][2t + (e & 1)]: lane 2t + (e & 1) + 16 (g & 1),
    // element (g >> 1) + 4 (e >> 1).
    Value *Base = B.CreateOr(B.CreateShl(Thread, 1), B.CreateShl(B.CreateAnd(Group, 1), 4));
    Value *Pick = B.CreateLShr(Group, 1);
    std::vector<Value *> D;
    for (unsigned E = 0; E < 4; ++E) {
      Value *Address = laneAddress(with(Base, E & 1));
      Value *V = nullptr;
      for (unsigned J = 0; J < 4; ++J) {
        Value *Got = shuffle(B.CreateExtractElement(Acc, uint64_t(4 * (E >> 1) + J)), Address);
        V = J ? B.CreateSelect(B.CreateICmpEQ(Pick, B.getInt32(J)), Got, V) : Got;
      }
      D.push_back(B.CreateFAdd(C[E], V));
    }
    return D;
  }

  /// Whether the target has RDNA4's WMMA (gfx12, wave32).
  bool hasWmma12() const {
    unsigned V = L.S.Target.IsaVersion;
    return V >= 12000 && V < 13000 && L.S.Target.WaveSize == 32;
  }

  /// The same tile on gfx12's v_wmma_f32_16x16x16, whose operands are 8 elements a lane: lane l
  /// holds row l % 16 of its first operand and column l % 16 of its second, k = 8 (l / 16) + e
  /// in element e, and ends with D[8 (l / 16) + e][l % 16] in element e. Fed B^T and A^T, it
  /// computes D^T, so that lane l holds D[l % 16][8 (l / 16) + e]: each fragment element then
  /// comes from one lane of the warp's first half (columns 8-15 of the WMMA tile repeat 0-7 and
  /// are not read). C is added after the products.
  std::vector<Value *> wmmaTile12(ArrayRef<Value *> ARegs, ArrayRef<Value *> BRegs,
                                  ArrayRef<Value *> C, Type In) {
    Value *Row8 = B.CreateAnd(Lane, 7);
    Value *LowerRows = B.CreateICmpNE(B.CreateAnd(Lane, 8), B.getInt32(0));
    Value *HighK = B.CreateICmpNE(B.CreateAnd(Lane, 16), B.getInt32(0)); // k 8..15
    Value *Source = B.CreateShl(Row8, 2);
    auto *Words = FixedVectorType::get(B.getInt32Ty(), 4);
    Value *AOp = PoisonValue::get(Words), *BOp = PoisonValue::get(Words);
    for (unsigned W = 0; W < 4; ++W) { // k = 8 (l / 16) + 2w and + 1: thread w of the group
      Value *Address = laneAddress(with(Source, W));
      auto Rows = [&](unsigned Reg) { // A row l % 16 from register pair Reg (k 0-7) / Reg + 2
        return B.CreateSelect(LowerRows, shuffle(ARegs[Reg + 1], Address),
                              shuffle(ARegs[Reg], Address));
      };
      AOp = B.CreateInsertElement(AOp, B.CreateSelect(HighK, Rows(2), Rows(0)), W);
      BOp = B.CreateInsertElement(
          BOp, B.CreateSelect(HighK, shuffle(BRegs[1], Address), shuffle(BRegs[0], Address)), W);
    }
    bool BF16 = In == Type::BF16;
    auto *Operand = FixedVectorType::get(BF16 ? B.getInt16Ty() : B.getHalfTy(), 8);
    auto *Result = FixedVectorType::get(B.getFloatTy(), 8);
    Intrinsic::ID ID =
        BF16 ? Intrinsic::amdgcn_wmma_f32_16x16x16_bf16 : Intrinsic::amdgcn_wmma_f32_16x16x16_f16;
    Value *Acc = L.intrinsic(ID, {Result, Operand},
                             {B.CreateBitCast(BOp, Operand), B.CreateBitCast(AOp, Operand),
                              Constant::getNullValue(Result)});
    // Element e of the fragment, D[g + 8 (e >> 1)][2t + (e & 1)]: lane g + 8 (e >> 1), element
    // 2t + (e & 1).
    std::vector<Value *> D;
    for (unsigned E = 0; E < 4; ++E) {
      Value *Address = laneAddress(with(Group, 8 * (E >> 1)));
      Value *V = nullptr;
      for (unsigned J = 0; J < 4; ++J) {
        Value *Got = shuffle(B.CreateExtractElement(Acc, uint64_t(2 * J + (E & 1))), Address);
        V = J ? B.CreateSelect(B.CreateICmpEQ(Thread, B.getInt32(J)), Got, V) : Got;
      }
      D.push_back(B.CreateFAdd(C[E], V));
    }
    return D;
  }

  /// Whether wmmaTile (gfx11) or wmmaTile12 (gfx12) computes a tile of \p M rows and depth \p K
  /// of these inputs.
  bool wmmaTileFits(unsigned M, unsigned K, const Arithmetic &Ar) const {
    return (hasWmma11() || hasWmma12()) && M == 16 && K == 16 && Ar.A == Ar.B &&
           (Ar.A == Type::F16 || Ar.A == Type::BF16);
  }

  /// The WMMA tile of this target's generation.
  std::vector<Value *> wmmaTileOfTarget(ArrayRef<Value *> ARegs, ArrayRef<Value *> BRegs,
                                        ArrayRef<Value *> C, Type In) {
    return hasWmma12() ? wmmaTile12(ARegs, BRegs, C, In) : wmmaTile(ARegs, BRegs, C, In);
  }

  /// Whether mfmaTile computes a tile of \p M rows of these inputs.
  bool mfmaTileFits(unsigned M, const Arithmetic &Ar) const {
    return hasMfma() && M == 16 && Ar.A == Ar.B && (Ar.A == Type::F16 || Ar.A == Type::BF16);
  }

  FunctionLowerer &L;
  IRBuilder<> &B;
  Value *Lane, *Group, *Thread, *Half = nullptr;
};

/// The registers of a vector operand (or of a single register).
SmallVector<const ir::Operand *, 8> registersOf(const ir::Operand &O) {
  SmallVector<const ir::Operand *, 8> R;
  if (O.K == ir::Operand::Vector)
    for (const ir::Operand &E : O.Elements)
      R.push_back(&E);
  else
    R.push_back(&O);
  return R;
}

/// The 32-bit (64-bit for f64) register type of fragments of element type \p T.
Type registerType(Type T) { return T == Type::F64 ? Type::F64 : Type::B32; }

} // namespace

// ---- accumulators: element values of C fragments, and D fragments from them ----
namespace {

/// The elements of an accumulator fragment (f16 two per register) as accumulation values.
std::vector<Value *> accumulators(FunctionLowerer &L, Matrix &X, const ir::Operand &O, Type T,
                                  llvm::Type *Acc) {
  std::vector<Value *> Elems;
  for (const ir::Operand *R : registersOf(O)) {
    Value *V = L.get(*R, registerType(T));
    if (T == Type::F16) {
      for (unsigned E = 0; E < 2; ++E)
        Elems.push_back(X.element(V, Type::F16, E));
    } else if (T == Type::S32) {
      Elems.push_back(L.convert(V, Acc));
    } else {
      Value *F = X.element(V, T, 0);
      Elems.push_back(F->getType() == Acc ? F : L.B.CreateFPExt(F, Acc));
    }
  }
  return Elems;
}

/// Writes accumulation values into the registers of a D fragment of type \p T.
void defineAccumulators(FunctionLowerer &L, const ir::Operand &O, Type T, ArrayRef<Value *> Elems) {
  auto Regs = registersOf(O);
  IRBuilder<> &B = L.B;
  if (T == Type::F16) {
    if (Elems.size() != 2 * Regs.size())
      L.fail("wrong number of accumulator registers");
    for (size_t J = 0; J < Regs.size(); ++J) {
      Value *Lo = B.CreateBitCast(B.CreateFPTrunc(Elems[2 * J], B.getHalfTy()), B.getInt16Ty());
      Value *Hi = B.CreateBitCast(B.CreateFPTrunc(Elems[2 * J + 1], B.getHalfTy()), B.getInt16Ty());
      Value *W = B.CreateOr(B.CreateZExt(Lo, B.getInt32Ty()),
                            B.CreateShl(B.CreateZExt(Hi, B.getInt32Ty()), 16));
      L.def(*Regs[J], W);
    }
    return;
  }
  if (Elems.size() != Regs.size())
    L.fail("wrong number of accumulator registers");
  for (size_t J = 0; J < Regs.size(); ++J) {
    Value *V = Elems[J];
    if (T == Type::F32 && V->getType()->isDoubleTy())
      V = B.CreateFPTrunc(V, B.getFloatTy());
    L.def(*Regs[J], V);
  }
}

} // namespace

namespace {

/// mma.sync.aligned.m8n8k4.alayout.blayout.dtype.f16.f16.ctype: four independent 8x8x4 products,
/// product q on lanes 4q..4q+3 (rows or columns 0-3) and 16+4q..16+4q+3 (4-7). With h = 4 for
/// the high lanes: row-major A holds row L % 4 + h (k = element), column-major A column L % 4 of
/// rows h..h+3; column-major B holds column L % 4 + h, row-major B row L % 4 of columns h..h+3;
/// f16 C/D row L % 4 + h, columns 0-7; f32 C/D element i at row (L & 1) + (i & 2) + h, column
/// (i & 4) + (L & 2) + (i & 1).
void quadPairMma(FunctionLowerer &L, const ir::Instruction &I) {
  Type DT = I.Types[0], CT = I.Types[3];
  // D and C of different types have different layouts: not supported yet.
  if (I.Types[1] != Type::F16 || I.Types[2] != Type::F16 || DT != CT ||
      (DT != Type::F16 && DT != Type::F32))
    L.unsupported();
  IRBuilder<> &B = L.B;
  Matrix X(L);
  auto Regs = [&](const ir::Operand &O) {
    std::vector<Value *> R;
    for (const ir::Operand *E : registersOf(O))
      R.push_back(L.get(*E, Type::B32));
    return R;
  };
  std::vector<Value *> A = Regs(I.Operands[1]), Bs = Regs(I.Operands[2]);
  if (A.size() != 2 || Bs.size() != 2)
    L.fail("'mma.m8n8k4' with f16 inputs takes 2 A and 2 B registers");
  std::vector<Value *> C = accumulators(L, X, I.Operands[3], CT, B.getFloatTy());
  if (C.size() != 8)
    L.fail("'mma.m8n8k4' takes 8 accumulator elements");
  // The first layout suffix is A's, the second B's (each .row or .col).
  bool RowA = false, RowB = false;
  unsigned Layouts = 0;
  for (const ir::Modifier &M : I.Mods)
    if (M.Id == Mod::Row || M.Id == Mod::Col)
      (Layouts++ == 0 ? RowA : RowB) = M.Id == Mod::Row;
  if (Layouts != 2)
    L.unsupported();
  Value *Quad = B.CreateAnd(X.Lane, 12), *High = B.CreateAnd(X.Lane, 16);
  // Element \p E (0..3, a value) of the two registers \p R of lane \p Src, widened to f32.
  auto Fetch = [&](ArrayRef<Value *> R, Value *Src, Value *E) {
    Value *Address = X.laneAddress(Src);
    Value *Lo = X.shuffle(R[0], Address), *Hi = X.shuffle(R[1], Address);
    Value *W = B.CreateSelect(B.CreateICmpUGE(E, B.getInt32(2)), Hi, Lo);
    Value *H = B.CreateLShr(W, B.CreateShl(B.CreateAnd(E, 1), 4));
    return X.element(H, Type::F16, 0);
  };
  // A[r][k] and B[k][c] of this lane's product (r, c values; k a constant).
  auto AAt = [&](Value *Row, unsigned K) {
    Value *Half = B.CreateShl(B.CreateLShr(Row, 2), 4);
    if (RowA)
      return Fetch(A, B.CreateOr(B.CreateOr(Quad, B.CreateAnd(Row, 3)), Half), B.getInt32(K));
    return Fetch(A, B.CreateOr(B.CreateOr(Quad, B.getInt32(K)), Half), B.CreateAnd(Row, 3));
  };
  auto BAt = [&](unsigned K, Value *Col) {
    Value *Half = B.CreateShl(B.CreateLShr(Col, 2), 4);
    if (!RowB)
      return Fetch(Bs, B.CreateOr(B.CreateOr(Quad, B.CreateAnd(Col, 3)), Half), B.getInt32(K));
    return Fetch(Bs, B.CreateOr(B.CreateOr(Quad, B.getInt32(K)), Half), B.CreateAnd(Col, 3));
  };
  Value *H4 = B.CreateLShr(High, 2); // 4 for the high lanes
  std::map<unsigned, std::array<Value *, 4>> ARows, BCols;
  std::vector<Value *> D(8);
  for (unsigned E = 0; E < 8; ++E) {
    // The element's row and column: a lane part and a constant part (the cache key).
    Value *Row, *Col;
    unsigned RowKey, ColKey;
    if (DT == Type::F32) {
      Row = X.with(B.CreateOr(B.CreateAnd(X.Lane, 1), H4), E & 2);
      Col = X.with(B.CreateAnd(X.Lane, 2), (E & 4) | (E & 1));
      RowKey = E & 2, ColKey = (E & 4) | (E & 1);
    } else {
      Row = B.CreateOr(X.Thread, H4);
      Col = B.getInt32(E);
      RowKey = 0, ColKey = E;
    }
    auto &Ar = ARows[RowKey];
    auto &Bc = BCols[ColKey];
    Value *Acc = C[E];
    for (unsigned K = 0; K < 4; ++K) {
      if (!Ar[K])
        Ar[K] = AAt(Row, K);
      if (!Bc[K])
        Bc[K] = BAt(K, Col);
      Acc = L.intrinsic(Intrinsic::fma, {Acc->getType()}, {Ar[K], Bc[K], Acc});
    }
    D[E] = Acc;
  }
  defineAccumulators(L, I.Operands[0], DT, D);
}

} // namespace

/// mma.sync.aligned.shape.alayout.blayout[.satfinite].dtype.atype.btype.ctype d, a, b, c.
void FunctionLowerer::mma(const ir::Instruction &I) {
  auto [M, N, K] = shapeOf(I);
  if (I.has(Mod::Sp) || I.Types.size() != 4 || I.Operands.size() != 4 || N != 8)
    unsupported();
  Type DT = I.Types[0], AT = I.Types[1], BT = I.Types[2], CT = I.Types[3];
  if (M == 8 && K == 4 && AT == Type::F16)
    return quadPairMma(*this, I);
  // f8 (e4m3, e5m2, mixed) in the m16n8k32 layout of s8; the f6 and f4 kinds not yet.
  auto IsF8 = [](Type T) { return T == Type::E4M3 || T == Type::E5M2; };
  if (!I.has(Mod::Row) || !I.has(Mod::Col) || (M != 8 && M != 16) || ir::typeBits(AT) == 6 ||
      AT == Type::E2M1 || IsF8(AT) != IsF8(BT) || (IsF8(AT) && (M != 16 || K != 32)))
    unsupported();
  Matrix X(*this);
  Matrix::Arithmetic Ar{AT, BT, I.has(Mod::Satfinite) && isIntegerInput(AT), I.has(Mod::Xor)};
  if (AT == Type::B1 && !I.has(Mod::Popc))
    unsupported();
  auto Regs = [&](const ir::Operand &O, Type T) {
    std::vector<Value *> R;
    for (const ir::Operand *E : registersOf(O))
      R.push_back(get(*E, registerType(T)));
    return R;
  };
  std::vector<Value *> A = Regs(I.Operands[1], AT), Bs = Regs(I.Operands[2], BT);
  // Each fragment must fill the shape exactly (b1 counts 32-bit chunks of k).
  unsigned E = perRegister(AT), KUnits = AT == Type::B1 ? K / 32 : K;
  if (A.size() * 32 * E != M * KUnits || Bs.size() * 32 * E != 8 * KUnits)
    fail(fmt::format("'{}' takes {} A and {} B registers", ir::instructionName(I),
                     M * KUnits / (32 * E), 8 * KUnits / (32 * E)));
  llvm::Type *Acc = X.accType(AT);
  std::vector<Value *> C = accumulators(*this, X, I.Operands[3], CT, Acc);
  if (C.size() != M / 4)
    fail(fmt::format("'{}' takes {} accumulator elements", ir::instructionName(I), M / 4));
  auto D = X.mfmaTileFits(M, Ar) && K >= 8 ? X.mfmaTile(A, Bs, C, AT)
           : X.wmmaTileFits(M, K, Ar)      ? X.wmmaTileOfTarget(A, Bs, C, AT)
                                           : X.tile(X.gatherA(A, AT, M), Bs, C, M, Ar);
  defineAccumulators(*this, I.Operands[0], DT, D);
}

// ---- wmma ----
namespace {

/// A wmma shape and type as tiles of one mma.sync form (see the top of the file).
struct WmmaForm {
  unsigned M = 0, N = 0, K = 0;
  Type In = Type::F16; ///< the A/B element type
  unsigned TileM = 16; ///< rows of an A tile (8 for m8n32k16)
  unsigned ARegs = 0;  ///< registers of one A tile
  unsigned BRegs = 0;  ///< registers of one B tile (k x 8)
  unsigned Elems() const { return perRegister(In); }
};

std::optional<WmmaForm> wmmaForm(std::array<unsigned, 3> Shape, Type In) {
  WmmaForm W;
  W.M = Shape[0], W.N = Shape[1], W.K = Shape[2];
  W.In = In;
  W.TileM = W.M == 8 ? 8 : 16;
  bool Half = In == Type::F16 || In == Type::BF16, Byte = In == Type::S8 || In == Type::U8;
  bool K16 = (W.M == 16 && W.N == 16) || (W.M == 32 && W.N == 8) || (W.M == 8 && W.N == 32);
  if ((Half || Byte) && W.K == 16 && K16) {
  } else if (In == Type::TF32 && W.M == 16 && W.N == 16 && W.K == 8) {
  } else if (In == Type::F64 && W.M == 8 && W.N == 8 && W.K == 4) {
  } else {
    return std::nullopt;
  }
  unsigned E = W.Elems();
  W.ARegs = W.TileM * W.K / (32 * E);
  W.BRegs = 8 * W.K / (32 * E);
  return W;
}

} // namespace

/// wmma.load.{a,b,c}, wmma.store.d and wmma.mma (the fragment layouts are at the top of the file).
void FunctionLowerer::wmma(const ir::Instruction &I) {
  auto Shape = shapeOf(I);
  bool Load = I.has(Mod::Load), Store = I.has(Mod::Store), Mma = I.has(Mod::Mma);
  if (Mma) {
    // .dtype.ctype for f16 inputs; .dtype.atype.btype.ctype otherwise.
    if (I.Operands.size() != 4 || (I.Types.size() != 2 && I.Types.size() != 4) || I.has(Mod::Sp))
      unsupported();
    Type DT = I.Types[0], CT = I.Types.back();
    Type AT = I.Types.size() == 4 ? I.Types[1] : Type::F16;
    Type BT = I.Types.size() == 4 ? I.Types[2] : Type::F16;
    auto W = wmmaForm(Shape, AT);
    if (!W)
      unsupported();
    Matrix X(*this);
    Matrix::Arithmetic Ar{AT, BT, I.has(Mod::Satfinite) && isIntegerInput(AT), false};
    auto Regs = [&](const ir::Operand &O, Type T) {
      std::vector<Value *> R;
      for (const ir::Operand *E : registersOf(O))
        R.push_back(get(*E, registerType(T)));
      return R;
    };
    std::vector<Value *> A = Regs(I.Operands[1], AT), Bs = Regs(I.Operands[2], BT);
    unsigned RowTiles = W->M / W->TileM, ColTiles = W->N / 8;
    if (A.size() < RowTiles * W->ARegs || Bs.size() < ColTiles * W->BRegs)
      fail(fmt::format("'{}' takes {} A and {} B registers", ir::instructionName(I),
                       RowTiles * W->ARegs, ColTiles * W->BRegs));
    llvm::Type *Acc = X.accType(AT);
    std::vector<Value *> C = accumulators(*this, X, I.Operands[3], CT, Acc);
    unsigned PerTile = W->TileM / 4;
    if (C.size() != RowTiles * ColTiles * PerTile)
      fail(fmt::format("'{}' takes {} accumulator elements", ir::instructionName(I),
                       RowTiles * ColTiles * PerTile));
    std::vector<Value *> D(C.size());
    bool Mfma = X.mfmaTileFits(W->TileM, Ar), Wmma = X.wmmaTileFits(W->TileM, W->K, Ar);
    for (unsigned R = 0; R < RowTiles; ++R) {
      ArrayRef<Value *> ARegs = ArrayRef(A).slice(R * W->ARegs, W->ARegs);
      std::array<std::vector<Value *>, 2> ATile;
      if (!Mfma && !Wmma)
        ATile = X.gatherA(ARegs, AT, W->TileM);
      for (unsigned Cb = 0; Cb < ColTiles; ++Cb) {
        unsigned First = (R * ColTiles + Cb) * PerTile;
        ArrayRef<Value *> BRegs = ArrayRef(Bs).slice(Cb * W->BRegs, W->BRegs);
        ArrayRef<Value *> CTile = ArrayRef(C).slice(First, PerTile);
        auto DT0 = Mfma   ? X.mfmaTile(ARegs, BRegs, CTile, AT)
                   : Wmma ? X.wmmaTileOfTarget(ARegs, BRegs, CTile, AT)
                          : X.tile(ATile, BRegs, CTile, W->TileM, Ar);
        std::copy(DT0.begin(), DT0.end(), D.begin() + First);
      }
    }
    defineAccumulators(*this, I.Operands[0], DT, D);
    return;
  }
  if (!Load && !Store)
    unsupported();
  // wmma.load.{a,b,c}.sync.aligned.layout.shape[.ss].type r, [p][, stride];
  // wmma.store.d.sync.aligned.layout.shape[.ss].type [p], r[, stride];
  char Role = Store ? 'd' : I.has(Mod::A) ? 'a' : I.has(Mod::B) ? 'b' : hasWord(I, "c") ? 'c' : 0;
  if (!Role || I.Types.size() != 1 || (I.Operands.size() != 2 && I.Operands.size() != 3) ||
      (I.has(Mod::Row) == I.has(Mod::Col)))
    unsupported();
  Type T = I.Types[0];
  bool Acc = Role == 'c' || Role == 'd';
  // The input type names the shape's form; accumulators are f16, f32, s32 or f64.
  Type FormIn = Acc ? (T == Type::S32   ? Type::S8
                       : T == Type::F64 ? Type::F64
                       : Shape[2] == 8  ? Type::TF32
                                        : Type::F16)
                    : T;
  auto W = wmmaForm(Shape, FormIn);
  if (!W)
    unsupported();
  const ir::Operand &Frag = I.Operands[Store ? 1 : 0], &Addr = I.Operands[Store ? 0 : 1];
  auto Regs = registersOf(Frag);
  bool RowMajor = I.has(Mod::Row);
  unsigned Rows = Role == 'a' ? W->M : Role == 'b' ? W->K : W->M;
  unsigned Cols = Role == 'a' ? W->K : Role == 'b' ? W->N : W->N;
  Value *Stride =
      I.Operands.size() == 3 ? get(I.Operands[2], Type::U32) : B.getInt32(RowMajor ? Cols : Rows);
  unsigned AS = spaceOf(I);
  if (AS == ~0u)
    unsupported();
  Value *Base = address(Addr, AS);
  unsigned Bits = T == Type::TF32 ? 32 : ir::typeBits(T);
  unsigned PerReg = T == Type::TF32 ? 1 : perRegister(T);
  Matrix X(*this);
  // The element (reg J, element E) of this lane: its row and column in the whole matrix.
  auto Position = [&](unsigned J, unsigned E) -> std::pair<Value *, Value *> {
    unsigned Ep = W->Elems();
    if (Role == 'a') {
      unsigned Tiles = W->M / W->TileM, Tile = (J / W->ARegs) % Tiles, R = J % W->ARegs;
      unsigned RowOff = W->TileM == 16 ? 8 * (R & 1) : 0, Block = W->TileM == 16 ? R >> 1 : R;
      Value *Row = X.plus(X.Group, Tile * W->TileM + RowOff);
      Value *Col = X.plus(B.CreateMul(X.Thread, B.getInt32(Ep)), Block * 4 * Ep + E);
      return {Row, Col};
    }
    if (Role == 'b') {
      unsigned Tiles = W->N / 8, Tile = (J / W->BRegs) % Tiles, R = J % W->BRegs;
      Value *Row = X.plus(B.CreateMul(X.Thread, B.getInt32(Ep)), R * 4 * Ep + E);
      Value *Col = X.plus(X.Group, Tile * 8);
      return {Row, Col};
    }
    // Accumulators: element index I of the fragment, tiles row-block major.
    unsigned Index = J * PerReg + E, PerTile = W->TileM / 4, Tile = Index / PerTile;
    unsigned In = Index % PerTile, ColTiles = W->N / 8;
    unsigned RowTile = Tile / ColTiles, ColTile = Tile % ColTiles;
    Value *Row = X.plus(X.Group, RowTile * W->TileM + 8 * (In >> 1));
    Value *Col = X.plus(B.CreateShl(X.Thread, 1), ColTile * 8 + (In & 1));
    return {Row, Col};
  };
  llvm::Type *ElemTy = B.getIntNTy(Bits);
  auto ElementPointer = [&](unsigned J, unsigned E) {
    auto [Row, Col] = Position(J, E);
    Value *Index = RowMajor ? B.CreateAdd(B.CreateMul(Row, Stride), Col)
                            : B.CreateAdd(B.CreateMul(Col, Stride), Row);
    Value *Offset = B.CreateMul(B.CreateZExt(Index, B.getInt64Ty()), B.getInt64(Bits / 8));
    return B.CreateGEP(B.getInt8Ty(), Base, Offset);
  };
  Type RegT = registerType(T);
  llvm::Type *RegTy = B.getIntNTy(T == Type::F64 ? 64 : 32);
  for (unsigned J = 0; J < Regs.size(); ++J) {
    if (Store) {
      Value *R = convert(get(*Regs[J], RegT), RegTy);
      for (unsigned E = 0; E < PerReg; ++E) {
        Value *V = B.CreateTrunc(E ? B.CreateLShr(R, E * Bits) : R, ElemTy);
        B.CreateAlignedStore(V, ElementPointer(J, E), Align(Bits / 8));
      }
      continue;
    }
    Value *R = nullptr;
    for (unsigned E = 0; E < PerReg; ++E) {
      Value *V =
          B.CreateZExt(B.CreateAlignedLoad(ElemTy, ElementPointer(J, E), Align(Bits / 8)), RegTy);
      R = E ? B.CreateOr(R, B.CreateShl(V, E * Bits)) : V;
    }
    def(*Regs[J], R);
  }
}

// ---- ldmatrix, stmatrix, movmatrix: 8x8 b16 matrices, row addresses from lanes 8i..8i+7 ----

/// ldmatrix.sync.aligned.m8n8.{x1,x2,x4}[.trans][.ss].b16 d, [p]; and stmatrix [p], d: lane L
/// holds elements (row L / 4, columns 2 (L % 4) and + 1) of matrix i in register i, row r of
/// matrix i at the address given by lane 8i + r; .trans transposes each matrix.
void FunctionLowerer::matrixMove(const ir::Instruction &I) {
  auto [M, N, K] = shapeOf(I);
  bool Store = I.Op == Opcode::Stmatrix, Trans = I.has(Mod::Trans);
  if (I.Op == Opcode::Movmatrix) {
    // movmatrix.sync.aligned.m8n8.trans.b16 d, a: d holds (row L / 4, column 2 (L % 4) + j) of
    // the transpose, element (2 (L % 4) + j, L / 4) of a: lane (2 (L % 4) + j) * 4 + L / 8.
    if (M != 8 || N != 8 || !Trans || I.Operands.size() != 2)
      unsupported();
    Matrix X(*this);
    Value *A = get(I.Operands[1], Type::B32);
    Value *Shift = B.CreateShl(B.CreateAnd(X.Group, 1), 4);
    Value *R = nullptr;
    for (unsigned J = 0; J < 2; ++J) {
      Value *Src =
          B.CreateOr(B.CreateShl(X.with(B.CreateShl(X.Thread, 1), J), 2), B.CreateLShr(X.Group, 1));
      Value *H = B.CreateAnd(B.CreateLShr(X.shuffle(A, X.laneAddress(Src)), Shift), 0xffff);
      R = J ? B.CreateOr(R, B.CreateShl(H, 16)) : H;
    }
    def(I.Operands[0], R);
    return;
  }
  unsigned Count = I.has(Mod::X1) ? 1 : I.has(Mod::X2) ? 2 : I.has(Mod::X4) ? 4 : 0;
  if (M != 8 || N != 8 || !Count || I.Types.size() != 1 || I.Types[0] != Type::B16 ||
      I.Operands.size() != 2)
    unsupported();
  const ir::Operand &Frag = I.Operands[Store ? 1 : 0], &Addr = I.Operands[Store ? 0 : 1];
  auto Regs = registersOf(Frag);
  if (Regs.size() != Count)
    fail(fmt::format("'{}' takes {} registers", ir::instructionName(I), Count));
  unsigned AS = spaceOf(I);
  if (AS == ~0u)
    unsupported();
  Matrix X(*this);
  Value *P = address(Addr, AS);
  llvm::Type *IntPtr = B.getIntNTy(AS == ASLDS ? 32 : 64);
  Value *RowAddress = B.CreatePtrToInt(P, IntPtr);
  // The address of row \p Row (a lane number of the warp) plus \p Bytes.
  auto At = [&](Value *Row, Value *Bytes) {
    Value *A = X.shuffle(RowAddress, X.laneAddress(Row));
    A = B.CreateAdd(A, B.CreateZExt(Bytes, IntPtr));
    return B.CreateIntToPtr(A, PointerType::get(S.Ctx, AS));
  };
  for (unsigned Mat = 0; Mat < Count; ++Mat) {
    if (!Trans) {
      Value *Ptr = At(X.with(X.Group, 8 * Mat), B.CreateShl(X.Thread, 2));
      if (Store)
        B.CreateAlignedStore(get(*Regs[Mat], Type::B32), Ptr, Align(4));
      else
        def(*Regs[Mat], B.CreateAlignedLoad(B.getInt32Ty(), Ptr, Align(4)));
      continue;
    }
    Value *R = Store ? get(*Regs[Mat], Type::B32) : nullptr;
    for (unsigned J = 0; J < 2; ++J) {
      Value *Row = X.with(X.with(B.CreateShl(X.Thread, 1), J), 8 * Mat);
      Value *Ptr = At(Row, B.CreateShl(X.Group, 1));
      if (Store) {
        Value *H = B.CreateTrunc(J ? B.CreateLShr(R, 16) : R, B.getInt16Ty());
        B.CreateAlignedStore(H, Ptr, Align(2));
      } else {
        Value *H = B.CreateAlignedLoad(B.getInt16Ty(), Ptr, Align(2));
        H = B.CreateZExt(H, B.getInt32Ty());
        R = J ? B.CreateOr(R, B.CreateShl(H, 16)) : H;
      }
    }
    if (!Store)
      def(*Regs[Mat], R);
  }
}

} // namespace ptx2amd::lowering
