// Internal: the lowering of one function body, shared by the files of pass 3 (LowerBodies.cpp
// and the instruction families in Lower*.cpp).
#pragma once

#include "LoweringContext.h"

#include <llvm/IR/IntrinsicsAMDGPU.h>

namespace ptx2amd::lowering {

using ir::Operand;
using llvm::ArrayRef;
using llvm::BasicBlock;
using llvm::Value;
namespace Intrinsic = llvm::Intrinsic;

inline bool isSigned(ir::Type T) { return ir::typeClass(T) == 'S'; }
inline bool isFloat(ir::Type T) { return ir::typeClass(T) == 'F'; }

/// PTX scopes to LLVM AMDGPU sync scopes.
llvm::StringRef syncScope(const ir::Instruction &I);

/// Lowers one PTX function into its (already declared) LLVM function. Instruction families are
/// member functions defined in the Lower*.cpp file of their family.
class FunctionLowerer {
public:
  FunctionLowerer(ModuleState &S, size_t Index);
  void run();
  /// Everything that could not be lowered, in program order; the function failed if not empty.
  std::vector<ir::Diagnostic> Problems;
  void record(const LoweringError &E);
  void defineAsUndefined(const ir::Instruction &I);
  [[noreturn]] void fail(std::string Message);
  [[noreturn]] void unsupported();
  std::string varName(ir::ValueId V) const;
  std::vector<size_t> blockOrder() const;
  // ---- memory of the function: params, locals, returns ----
  void setUpMemory();
  void createReturn();
  // ---- values ----
  Value *value(ir::ValueId V);
  /// Converts \p V (any integer/float type) to type \p T by bit reinterpretation, truncation or
  /// extension (zero, or sign when \p Signed).
  Value *convert(Value *V, llvm::Type *T, bool Signed = false);
  /// A source operand as a value of the instruction type \p T.
  Value *get(const Operand &O, ir::Type T);
  /// Records the value of a destination operand (a register), applying the guard later.
  void def(const Operand &O, Value *V);
  // ---- addresses ----
  /// The address of a symbol operand, as a pointer in the symbol's address space.
  Value *symbolPointer(const ir::SymbolRef &Sym);
  /// `mov.u64 %rd, sym`: the symbol's address as an integer in its own space (a 32-bit LDS
  /// offset for shared variables, as PTX defines).
  Value *symbolAddress(const Operand &O);
  unsigned spaceOf(const ir::Instruction &I);
  /// The pointer an address operand designates, in address space \p AS (~0u: .param).
  Value *address(const Operand &A, unsigned AS);
  // ---- special registers ----
  Value *intrinsic(Intrinsic::ID ID, ArrayRef<llvm::Type *> Types = {},
                   ArrayRef<Value *> Args = {});
  /// A u16/u32 field of the HSA dispatch packet.
  Value *dispatchField(unsigned Offset, unsigned Bits);
  Value *localSize(unsigned C);
  /// The lane of this work-item in its wave (0..63 on wave64).
  Value *laneInWave();
  Value *laneId();
  Value *special(const Operand &O);
  // ---- instructions ----
  static bool hasSideEffects(ir::Opcode Op);
  void instruction(const ir::Instruction &I, size_t Block);
  void terminator(const ir::Instruction &I, size_t Block);
  ir::Type type0(const ir::Instruction &I);
  void lower(const ir::Instruction &I);
  void mov(const ir::Instruction &I);
  /// A register operand as its own storage value (no conversion to an instruction type).
  Value *getRaw(const Operand &O);
  Value *guardedDivisor(Value *D);
  void checkFloatModifiers(const ir::Instruction &I);
  /// `.sat` on a float result: clamp to [0, 1], NaN to +0 (maxnum ignores the NaN).
  Value *saturate(const ir::Instruction &I, Value *V);
  void binary(const ir::Instruction &I);
  /// Scalar video instructions (LowerVideo.cpp) and their widened, selected sources.
  void video(const ir::Instruction &I);
  void videoMad(const ir::Instruction &I);
  Value *videoSource(const Operand &O, bool Signed);
  llvm::CmpInst::Predicate videoComparison(const ir::Instruction &I);
  void floatBinary(const ir::Instruction &I);
  void floatMad(const ir::Instruction &I);
  void floatUnary(const ir::Instruction &I);
  /// min/max with PTX's NaN rules (.NaN, .xorsign.abs).
  void floatMinMax(const ir::Instruction &I);
  /// testp: the class of a float (finite, infinite, number, notanumber, normal, subnormal).
  void testp(const ir::Instruction &I);
  /// tanh.approx from exp2, in f32 for every type.
  void tanh(const ir::Instruction &I);
  /// A float rounding direction; Odd (round to odd) makes a later rounding to nearest into a
  /// type at least two bits narrower exact.
  enum class Round { Nearest, Zero, Down, Up, Odd };
  /// The direction of `.rn/.rz/.rm/.rp` (to nearest without one).
  Round rounding(const ir::Instruction &I);
  /// \p R, the value nearest to some exact x, moved by one unit in the last place where
  /// direction \p M needs it; \p Diff has the sign of x - R (0 or NaN: R stands).
  Value *stepRounded(Value *R, Value *Diff, Round M);
  /// The exact value \p S + \p E (E null: 0; |E| at most half an ulp of S) rounded to the
  /// float type \p T in direction \p M (to nearest only when E is null).
  Value *roundExact(Value *S, Value *E, llvm::Type *T, Round M);
  /// Fast2Sum of \p A and \p C ordered by magnitude: S + E equals A + C exactly.
  std::pair<Value *, Value *> twoSum(Value *A, Value *C);
  /// add/mul/fma (Ops: a, b for add and mul; a, b, c for fma) and div/sqrt rounded in a
  /// direction other than to nearest.
  Value *directed(ir::Opcode Op, ArrayRef<Value *> Ops, Round M);
  /// A NaN as the canonical NaN of its type (0x7fff / 0x7fffffff), others unchanged.
  Value *canonicalNaN(Value *V);
  /// `.relu`: negative values to +0, NaN to the canonical NaN.
  Value *relu(Value *V);
  /// e4m3 or e5m2 bytes (i8 or a vector of i8) as f32 values, exactly (e4m3's NaN is NaN).
  Value *fp8ToFloat(Value *Bytes, bool E5M2);
  /// Flush-to-zero of subnormal values (`.ftz`), keeping the sign (any float type or vector).
  Value *flush(Value *V);
  /// `.approx` functions on the hardware's own approximations.
  void approximate(const ir::Instruction &I);
  /// bfind: the position of the most significant non-sign bit, 0xffffffff when there is none;
  /// `.shiftamt` gives the left shift that moves it to the top instead.
  void bfind(const ir::Instruction &I);
  /// bfe: `len` bits from `pos`, zero- or sign-extended; positions past the top read the sign.
  void bfe(const ir::Instruction &I);
  /// bfi: insert the low `len` bits of a into b at `pos`.
  void bfi(const ir::Instruction &I);
  /// prmt (default mode): each result byte picks one of the 8 bytes of {b, a}, optionally
  /// replicating its sign bit.
  void prmt(const ir::Instruction &I);
  /// Extended precision: add.cc/addc/sub.cc/subc/mad.cc/madc through the carry flag, which PTX
  /// keeps as implicit state between consecutive instructions.
  void carry(const ir::Instruction &I);
  /// bar.warp.sync: the lanes of a warp execute in lock step inside a wave; order their memory.
  void warpSync(const ir::Instruction &);
  /// shf.l/.r: the high (left) or low (right) word of {b, a} shifted; .clamp stops at 32.
  void funnelShift(const ir::Instruction &I);
  /// lop3: any function of three inputs given by its truth table (a = 0xF0, b = 0xCC, c = 0xAA);
  /// the .or/.and forms also combine (d != 0) with a predicate q.
  void lop3(const ir::Instruction &I);
  /// mul24 / mad24: the 48-bit product of the low 24 bits of a and b (.hi: its bits 47..16).
  void mul24(const ir::Instruction &I);
  /// sad: c + |a - b|.
  void sad(const ir::Instruction &I);
  /// fns: the position of the n-th set bit of a mask from a base bit, upwards or downwards.
  void fns(const ir::Instruction &I);
  /// bmsk: a mask of b bits from bit a; szext: sign or zero extension from bit b.
  void bmsk(const ir::Instruction &I);
  void szext(const ir::Instruction &I);
  /// The SIMD video instructions (vadd2 ... vmax4, vset2, vset4): halves or bytes picked from
  /// {b, a}, one operation per element, then saturation, a masked merge into c or a sum into c.
  void videoSimd(const ir::Instruction &I);
  /// dp4a / dp2a: dot products of bytes (and halves) with 32-bit accumulation.
  void dot(const ir::Instruction &I);
  /// redux.sync over the lanes of the member mask, inside this lane's 32-lane warp: a butterfly
  /// for the full mask, else a read of every lane that combines the members only.
  void redux(const ir::Instruction &I);
  /// cp.async: done as a synchronous copy, so commit_group and wait_group have nothing to wait
  /// for.
  void asyncCopy(const ir::Instruction &I);
  /// mbarrier.* on the 64-bit state word (its layout is at the top of LowerAsync.cpp).
  void mbarrier(const ir::Instruction &I);
  /// One compare-and-swap on an mbarrier: \p Arrivals fewer pending, \p Drop fewer expected,
  /// \p Tx added to the transaction count, completing the phase when both reach zero; returns
  /// the word before.
  Value *mbarrierUpdate(Value *Word, Value *Arrivals, Value *Drop, Value *Tx,
                        llvm::AtomicOrdering O, llvm::SyncScope::ID Scope);
  /// cp.async.bulk, cp.reduce.async.bulk, bulk prefetch and groups, cp.async.mbarrier.arrive.
  void asyncBulk(const ir::Instruction &I);
  /// \p Body at offsets 0, Step, ... while a whole step fits in \p Size (i64) bytes.
  void bulkLoop(Value *Size, unsigned Step, llvm::function_ref<void(Value *Offset)> Body);
  /// mul.lo / mul.hi / mul.wide
  Value *multiply(const ir::Instruction &I, Value *A, Value *C, bool Signed, unsigned Bits);
  void mad(const ir::Instruction &I);
  void unary(const ir::Instruction &I);
  Value *compare(const ir::Instruction &I, ir::Type T, Value *A, Value *C);
  void setp(const ir::Instruction &I);
  /// set: a comparison as all ones / 1.0 (per half for f16x2 and bf16x2 sources).
  void set(const ir::Instruction &I);
  /// slct: a if c >= 0, else b.
  void slct(const ir::Instruction &I);
  /// The cvt forms with packed or 8-bit float types (f16x2/bf16x2 from two f32, tf32,
  /// e4m3x2/e5m2x2 and back).
  void cvtPacked(const ir::Instruction &I);
  void cvt(const ir::Instruction &I);
  Value *roundToInteger(const ir::Instruction &I, Value *A);
  void cvta(const ir::Instruction &I);
  unsigned vectorWidth(const ir::Instruction &I);
  /// Memory ordering of ld/st: plain, volatile, or atomic with a scope.
  void applyOrdering(const ir::Instruction &I, llvm::Instruction *MemOp, bool IsLoad);
  void load(const ir::Instruction &I);
  static bool isAtomicAccess(const ir::Instruction &I);
  /// An atomic vector load or store as one access where its size allows (null/false if not).
  llvm::Value *atomicVectorLoad(const ir::Instruction &I, llvm::Type *VT, llvm::Value *P,
                                unsigned Bytes);
  bool atomicVectorStore(const ir::Instruction &I, llvm::Value *V, llvm::Value *P, unsigned Bytes);
  /// A loaded value into its register: sign-extended for signed types narrower than it.
  Value *convertLoaded(Value *V, const Operand &D, ir::Type T);
  void store(const ir::Instruction &I);
  void atomic(const ir::Instruction &I);
  /// The memory-model metadata of an atomic: which memory it can touch.
  void annotateAtomic(const ir::Instruction &I, llvm::Instruction *A);
  void barrier(const ir::Instruction &I);
  /// LowerCluster.cpp: barrier.cluster and mapa for clusters of one block.
  void clusterBarrier(const ir::Instruction &I);
  void mapa(const ir::Instruction &I);
  /// s_barrier between workgroup-scope release and acquire fences.
  void workgroupBarrier();
  /// bar.red over the whole block on s_barrier: the count of \p Vote in one LDS word.
  Value *workgroupReduction(Value *Vote);
  /// The LDS barrier \p Id (0..15) of \p Count threads: this wave's warps arrive, and wait for
  /// the barrier to complete when \p Wait. With \p Vote (bar.red), the count of the
  /// participating threads' votes.
  Value *ldsBarrier(Value *Id, Value *Count, bool Wait, Value *Vote);
  void call(const ir::Instruction &I);
  // ---- warp operations: 32-lane warps, two per wave on wave64 ----
  /// The 32 bits of a wave-wide ballot that belong to this lane's warp.
  Value *warpBallot(Value *Pred);
  void vote(const ir::Instruction &I);
  void shfl(const ir::Instruction &I);
  /// match.any / match.all: which member lanes of the warp hold the same value as this one.
  void match(const ir::Instruction &I);
  /// elect.sync: the lowest active lane of the member mask leads.
  void elect(const ir::Instruction &I);
  // ---- matrix operations (LowerMatrix.cpp): exact lane-level sequences on 32-lane warps ----
  /// mma.sync: the PTX fragments gathered across the warp and accumulated with FMAs in k order.
  void mma(const ir::Instruction &I);
  /// wmma.load/store/mma on fragments that tile the mma.sync ones.
  void wmma(const ir::Instruction &I);
  /// ldmatrix, stmatrix and movmatrix on 8x8 b16 matrices.
  void matrixMove(const ir::Instruction &I);

  // ---- textures and surfaces (LowerTexture.cpp) ----
  /// The ImageObject a texture/surface handle operand designates (ptr addrspace(1)).
  Value *imageObject(const Operand &A);
  /// tex and tld4 on llvm.amdgcn.image.sample/gather4/load and formatted buffer loads.
  void texture(const ir::Instruction &I);
  void textureQuery(const ir::Instruction &I);
  void istypep(const ir::Instruction &I);
  /// suld.b, sust.b, sured.b with their boundary modes.
  void surface(const ir::Instruction &I);
  void surfaceQuery(const ir::Instruction &I);
  // ---- memory hints and address classes ----
  /// isspacep: whether a generic address lies in a state space's window.
  void isspacep(const ir::Instruction &I);
  llvm::Value *inConstData(llvm::Value *A);
  ModuleState &S;
  ir::Function &F;
  llvm::Function &LF;
  llvm::IRBuilder<> B;
  BasicBlock *Entry = nullptr;
  std::vector<BasicBlock *> Start, End;
  std::vector<Value *> Values, ParamPtr, LocalPtr;
  std::vector<std::pair<ir::ValueId, Value *>> Defs;
  const ir::Instruction *Cur = nullptr;
  Value *Carry = nullptr; ///< the carry flag of extended-precision arithmetic
};

} // namespace ptx2amd::lowering
