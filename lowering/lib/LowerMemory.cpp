// Memory: addresses in the AMDGPU address spaces, ld/st with their orderings, atomics, cp.async.
#include "FunctionLowerer.h"

#include "ptx2amd/ptx-ir/Printer.h"

#include <fmt/format.h>

using namespace llvm;

namespace ptx2amd::lowering {
using ir::Mod;
using ir::Opcode;
using ir::Operand;

// ---- addresses ----
/// The address of a symbol operand, as a pointer in the symbol's address space.
Value *FunctionLowerer::symbolPointer(const ir::SymbolRef &Sym) {
  switch (Sym.K) {
  case ir::SymbolRef::Global: {
    llvm::GlobalVariable *G = S.Globals[Sym.Index];
    if (!G)
      fail(fmt::format("global '{}' cannot be used: {}", S.PTX.Globals[Sym.Index].Name,
                       S.GlobalProblem[Sym.Index]));
    return G;
  }
  case ir::SymbolRef::Local:
    return LocalPtr[Sym.Index];
  case ir::SymbolRef::Param:
    return ParamPtr[Sym.Index];
  case ir::SymbolRef::Function:
    // A kernel's address is its handle, which device-side launches name it by.
    if (S.PTX.Functions[Sym.Index]->IsKernel)
      return kernelHandle(S, Sym.Index);
    if (!S.Functions[Sym.Index])
      fail("reference to a function that is not lowered");
    return S.Functions[Sym.Index];
  default:
    fail("unsupported symbol operand");
  }
}

/// `mov.u64 %rd, sym`: the symbol's address as an integer in its own space (a 32-bit LDS
/// offset for shared variables, as PTX defines).
Value *FunctionLowerer::symbolAddress(const Operand &O) {
  Value *P = symbolPointer(O.Sym);
  unsigned AS = P->getType()->getPointerAddressSpace();
  Value *I = B.CreatePtrToInt(P, B.getIntNTy(AS == ASLDS || AS == ASPrivate ? 32 : 64));
  return O.Offset ? B.CreateAdd(I, ConstantInt::get(I->getType(), O.Offset)) : I;
}

unsigned FunctionLowerer::spaceOf(const ir::Instruction &I) {
  if (I.has(Mod::Global))
    return ASGlobal;
  if (I.has(Mod::Shared) || I.has(Mod::SharedCta))
    return ASLDS;
  if (I.has(Mod::Local))
    return ASPrivate;
  if (I.has(Mod::Const))
    return ASConst;
  if (I.has(Mod::Param) || I.has(Mod::ParamEntry) || I.has(Mod::ParamFunc))
    return ~0u;
  if (I.has(Mod::SharedCluster))
    fail("'.shared::cluster' memory is not supported yet");
  return ASFlat;
}

/// The pointer an address operand designates, in address space \p AS (~0u: .param).
Value *FunctionLowerer::address(const Operand &A, unsigned AS) {
  if (A.K != Operand::Address)
    fail("expected an address operand");
  Value *P;
  if (A.V != ir::None) {
    Value *R = value(A.V);
    // A register holding a .param address (`mov.b64 %rd, param`): kernel parameters live in
    // the kernarg segment, device-function parameters in private memory.
    if (AS == ~0u)
      AS = F.IsKernel ? ASConst : ASPrivate;
    P = B.CreateIntToPtr(R, PointerType::get(S.Ctx, AS));
  } else if (A.Sym.K != ir::SymbolRef::Unresolved) {
    P = symbolPointer(A.Sym);
    unsigned PAS = P->getType()->getPointerAddressSpace();
    if (AS != ~0u && PAS != AS)
      P = B.CreateAddrSpaceCast(P, PointerType::get(S.Ctx, AS));
  } else {
    P = B.CreateIntToPtr(B.getInt64(A.Offset), PointerType::get(S.Ctx, AS == ~0u ? 0 : AS));
    return P;
  }
  if (A.Offset)
    P = B.CreateGEP(B.getInt8Ty(), P, B.getInt64(A.Offset));
  return P;
}

unsigned FunctionLowerer::vectorWidth(const ir::Instruction &I) {
  return I.has(Mod::V2) ? 2 : I.has(Mod::V4) ? 4 : I.has(Mod::V8) ? 8 : 1;
}

/// Memory ordering of ld/st: plain, volatile, or atomic with a scope.
void FunctionLowerer::applyOrdering(const ir::Instruction &I, Instruction *MemOp, bool IsLoad) {
  if (I.has(Mod::Volatile)) {
    if (auto *L = dyn_cast<LoadInst>(MemOp))
      L->setVolatile(true);
    if (auto *St = dyn_cast<StoreInst>(MemOp))
      St->setVolatile(true);
    return;
  }
  AtomicOrdering O = I.has(Mod::Relaxed)   ? AtomicOrdering::Monotonic
                     : I.has(Mod::Acquire) ? AtomicOrdering::Acquire
                     : I.has(Mod::Release) ? AtomicOrdering::Release
                                           : AtomicOrdering::NotAtomic;
  if (O == AtomicOrdering::NotAtomic)
    return;
  if ((IsLoad && O == AtomicOrdering::Release) || (!IsLoad && O == AtomicOrdering::Acquire))
    fail("invalid memory ordering for this operation");
  if (auto *L = dyn_cast<LoadInst>(MemOp))
    L->setAtomic(O, S.Ctx.getOrInsertSyncScopeID(syncScope(I)));
  if (auto *St = dyn_cast<StoreInst>(MemOp))
    St->setAtomic(O, S.Ctx.getOrInsertSyncScopeID(syncScope(I)));
}

void FunctionLowerer::load(const ir::Instruction &I) {
  ir::Type T = type0(I);
  unsigned N = vectorWidth(I);
  Value *P = address(I.Operands[1], spaceOf(I));
  llvm::Type *ET = valueType(S.Ctx, T);
  unsigned EB = std::max(1u, ir::typeBits(T) / 8);
  llvm::Type *LT = N == 1 ? ET : FixedVectorType::get(ET, N);
  const Operand &D = I.Operands[0];
  if (N > 1 && isAtomicAccess(I)) {
    if (D.K != Operand::Vector || D.Elements.size() != N)
      fail("a vector load needs a vector destination of the same width");
    Value *Whole = atomicVectorLoad(I, LT, P, EB * N);
    for (unsigned K = 0; K < N; ++K) {
      Value *EK;
      if (Whole) {
        EK = B.CreateExtractElement(Whole, K);
      } else {
        auto *LK = B.CreateAlignedLoad(ET, B.CreateGEP(ET, P, B.getInt64(K)), Align(EB));
        applyOrdering(I, LK, true);
        EK = LK;
      }
      def(D.Elements[K], convertLoaded(EK, D.Elements[K], T));
    }
    return;
  }
  auto *L = B.CreateAlignedLoad(LT, P, Align(EB * N));
  applyOrdering(I, L, true);
  if (N == 1) {
    def(I.Operands[0], convertLoaded(L, I.Operands[0], T));
    return;
  }
  if (D.K != Operand::Vector || D.Elements.size() != N)
    fail("a vector load needs a vector destination of the same width");
  for (unsigned K = 0; K < N; ++K)
    def(D.Elements[K], convertLoaded(B.CreateExtractElement(L, K), D.Elements[K], T));
}

// An atomic vector access is, by PTX's memory model, one atomic access per element in no
// particular order; but code such as CUB's decoupled look-back packs a flag and a value into
// one v2 and relies on the hardware reading and writing it whole. So a vector of up to 8 bytes
// is one atomic integer access, and one of 16 bytes a single volatile vector access (one
// global_load_dwordx4 on AMDGPU, one aligned SSE access on the host, both single-copy atomic)
// with fences for acquire and release. Wider ones stay per element (null/false).
Value *FunctionLowerer::atomicVectorLoad(const ir::Instruction &I, llvm::Type *VT, Value *P,
                                         unsigned Bytes) {
  if (Bytes <= 8 && llvm::isPowerOf2_32(Bytes)) {
    auto *L = B.CreateAlignedLoad(B.getIntNTy(Bytes * 8), P, Align(Bytes));
    applyOrdering(I, L, true);
    return B.CreateBitCast(L, VT);
  }
  if (Bytes != 16)
    return nullptr;
  if (I.has(Mod::Release))
    fail("invalid memory ordering for this operation");
  auto *L = B.CreateAlignedLoad(VT, P, Align(Bytes));
  L->setVolatile(true);
  if (I.has(Mod::Acquire))
    B.CreateFence(AtomicOrdering::Acquire, S.Ctx.getOrInsertSyncScopeID(syncScope(I)));
  return L;
}

bool FunctionLowerer::atomicVectorStore(const ir::Instruction &I, Value *V, Value *P,
                                        unsigned Bytes) {
  if (Bytes <= 8 && llvm::isPowerOf2_32(Bytes)) {
    auto *St = B.CreateAlignedStore(B.CreateBitCast(V, B.getIntNTy(Bytes * 8)), P, Align(Bytes));
    applyOrdering(I, St, false);
    return true;
  }
  if (Bytes != 16)
    return false;
  if (I.has(Mod::Acquire))
    fail("invalid memory ordering for this operation");
  if (I.has(Mod::Release))
    B.CreateFence(AtomicOrdering::Release, S.Ctx.getOrInsertSyncScopeID(syncScope(I)));
  B.CreateAlignedStore(V, P, Align(Bytes))->setVolatile(true);
  return true;
}

bool FunctionLowerer::isAtomicAccess(const ir::Instruction &I) {
  return !I.has(Mod::Volatile) &&
         (I.has(Mod::Relaxed) || I.has(Mod::Acquire) || I.has(Mod::Release));
}

/// A loaded value into its register: sign-extended for signed types narrower than it.
Value *FunctionLowerer::convertLoaded(Value *V, const Operand &D, ir::Type T) {
  if (D.K != Operand::Value)
    return V;
  return convert(V, storageType(S.Ctx, F.Values[D.V].Ty), isSigned(T));
}

void FunctionLowerer::store(const ir::Instruction &I) {
  ir::Type T = type0(I);
  unsigned N = vectorWidth(I);
  Value *P = address(I.Operands[0], spaceOf(I));
  llvm::Type *ET = valueType(S.Ctx, T);
  unsigned EB = std::max(1u, ir::typeBits(T) / 8);
  Value *V;
  if (N == 1) {
    V = get(I.Operands[1], T);
  } else {
    const Operand &A = I.Operands[1];
    if (A.K != Operand::Vector || A.Elements.size() != N)
      fail("a vector store needs a vector source of the same width");
    V = PoisonValue::get(FixedVectorType::get(ET, N));
    for (unsigned K = 0; K < N; ++K)
      V = B.CreateInsertElement(V, get(A.Elements[K], T), K);
    if (isAtomicAccess(I)) {
      if (atomicVectorStore(I, V, P, EB * N))
        return;
      for (unsigned K = 0; K < N; ++K) {
        Value *PK = B.CreateGEP(ET, P, B.getInt64(K));
        applyOrdering(I, B.CreateAlignedStore(B.CreateExtractElement(V, K), PK, Align(EB)), false);
      }
      return;
    }
  }
  auto *St = B.CreateAlignedStore(V, P, Align(EB * N));
  applyOrdering(I, St, false);
}

void FunctionLowerer::annotateAtomic(const ir::Instruction &I, llvm::Instruction *A) {
  // Below system scope, an atomic works on device memory only, never on fine-grained host
  // memory or a peer's (as HIP's atomics promise): the backend can use its atomic instructions
  // instead of compare-and-swap loops. A generic address is never a local one (PTX leaves
  // atomics on local memory undefined).
  if (!I.has(Mod::Sys)) {
    A->setMetadata("amdgpu.no.fine.grained.memory", MDNode::get(S.Ctx, {}));
    A->setMetadata("amdgpu.no.remote.memory", MDNode::get(S.Ctx, {}));
  }
  Value *P = isa<AtomicRMWInst>(A) ? cast<AtomicRMWInst>(A)->getPointerOperand()
                                   : cast<AtomicCmpXchgInst>(A)->getPointerOperand();
  if (P->getType()->getPointerAddressSpace() == ASFlat) {
    auto *I32 = B.getInt32Ty();
    Metadata *Range[] = {ConstantAsMetadata::get(ConstantInt::get(I32, ASPrivate)),
                         ConstantAsMetadata::get(ConstantInt::get(I32, ASPrivate + 1))};
    A->setMetadata(LLVMContext::MD_noalias_addrspace, MDNode::get(S.Ctx, Range));
  }
}

void FunctionLowerer::atomic(const ir::Instruction &I) {
  ir::Type T = type0(I);
  bool Red = I.Op == Opcode::Red;
  size_t A0 = Red ? 0 : 1;
  unsigned N = vectorWidth(I);
  if (I.Operands.size() < A0 + 2 || I.has(Mod::Async))
    unsupported();
  Value *P = address(I.Operands[A0], spaceOf(I));
  auto Scope = S.Ctx.getOrInsertSyncScopeID(syncScope(I));
  AtomicOrdering O = I.has(Mod::Acquire)   ? AtomicOrdering::Acquire
                     : I.has(Mod::Release) ? AtomicOrdering::Release
                     : I.has(Mod::AcqRel)  ? AtomicOrdering::AcquireRelease
                                           : AtomicOrdering::Monotonic;
  if (N > 1) {
    // The vector forms (add/min/max of floats) are one atomic per element, with no atomicity
    // across elements, as the PTX ISA defines them.
    const Operand &V = I.Operands[A0 + 1];
    if (!isFloat(T) || I.has(Mod::Cas) || I.has(Mod::Exch) || V.K != Operand::Vector ||
        V.Elements.size() != N ||
        (!Red && (I.Operands[0].K != Operand::Vector || I.Operands[0].Elements.size() != N)))
      unsupported();
    AtomicRMWInst::BinOp Op = I.has(Mod::Add)   ? AtomicRMWInst::FAdd
                              : I.has(Mod::Min) ? AtomicRMWInst::FMin
                              : I.has(Mod::Max) ? AtomicRMWInst::FMax
                                                : AtomicRMWInst::BAD_BINOP;
    if (Op == AtomicRMWInst::BAD_BINOP)
      unsupported();
    llvm::Type *ET = valueType(S.Ctx, T);
    for (unsigned K = 0; K < N; ++K) {
      Value *EV = get(V.Elements[K], T);
      Value *PK = B.CreateGEP(ET, P, B.getInt64(K));
      auto *RMW = B.CreateAtomicRMW(Op, PK, EV, MaybeAlign(), O, Scope);
      annotateAtomic(I, RMW);
      if (!Red)
        def(I.Operands[0].Elements[K], RMW);
    }
    return;
  }
  Value *V = get(I.Operands[A0 + 1], T);
  Value *R;
  if (I.has(Mod::Cas)) {
    Value *New = get(I.Operands[A0 + 2], T);
    V = convert(V, B.getIntNTy(ir::typeBits(T)));
    New = convert(New, B.getIntNTy(ir::typeBits(T)));
    AtomicOrdering Fail = O == AtomicOrdering::Release          ? AtomicOrdering::Monotonic
                          : O == AtomicOrdering::AcquireRelease ? AtomicOrdering::Acquire
                                                                : O;
    auto *X = B.CreateAtomicCmpXchg(P, V, New, MaybeAlign(), O, Fail, Scope);
    annotateAtomic(I, X);
    R = B.CreateExtractValue(X, 0);
  } else {
    AtomicRMWInst::BinOp Op;
    bool Signed = isSigned(T);
    if (I.has(Mod::Add))
      Op = isFloat(T) ? AtomicRMWInst::FAdd : AtomicRMWInst::Add;
    else if (I.has(Mod::Exch))
      Op = AtomicRMWInst::Xchg;
    else if (I.has(Mod::And))
      Op = AtomicRMWInst::And;
    else if (I.has(Mod::Or))
      Op = AtomicRMWInst::Or;
    else if (I.has(Mod::Xor))
      Op = AtomicRMWInst::Xor;
    else if (I.has(Mod::Min))
      Op = isFloat(T) ? AtomicRMWInst::FMin : Signed ? AtomicRMWInst::Min : AtomicRMWInst::UMin;
    else if (I.has(Mod::Max))
      Op = isFloat(T) ? AtomicRMWInst::FMax : Signed ? AtomicRMWInst::Max : AtomicRMWInst::UMax;
    else if (I.has(Mod::Inc))
      Op = AtomicRMWInst::UIncWrap;
    else if (I.has(Mod::Dec))
      Op = AtomicRMWInst::UDecWrap;
    else
      unsupported();
    auto *RMW = B.CreateAtomicRMW(Op, P, V, MaybeAlign(), O, Scope);
    annotateAtomic(I, RMW);
    R = RMW;
  }
  if (!Red)
    def(I.Operands[0], R);
}

/// Whether generic address \p A lies in one of the module's `.const` variables: constant and
/// global data share AMDGPU's address range, so only the variables' own ranges tell them apart.
Value *FunctionLowerer::inConstData(Value *A) {
  Value *R = nullptr;
  for (size_t G = 0; G < S.PTX.Globals.size(); ++G) {
    if (!S.Globals[G] || S.PTX.Globals[G].Sp != ir::Space::Const)
      continue;
    Value *Offset = B.CreateSub(A, B.CreatePtrToInt(S.Globals[G], B.getInt64Ty()));
    Value *In = B.CreateICmpULT(Offset, B.getInt64(variableSize(S.PTX.Globals[G])));
    R = R ? B.CreateOr(R, In) : In;
  }
  return R ? R : B.getFalse();
}

/// isspacep: whether a generic address lies in a state space's window. LDS and private memory
/// have apertures of the flat space; constant data is the module's `.const` variables; every
/// other address is global memory. Kernel parameters are the kernarg segment, which lies in
/// global memory too.
void FunctionLowerer::isspacep(const ir::Instruction &I) {
  Value *A = get(I.Operands[1], ir::Type::U64);
  bool Param = I.has(Mod::Param) || I.has(Mod::ParamEntry);
  bool Aperture = !Param && !I.has(Mod::Const);
  Value *P = Aperture ? B.CreateIntToPtr(A, PointerType::get(S.Ctx, ASFlat)) : nullptr;
  Value *R;
  if (I.has(Mod::Shared) || I.has(Mod::SharedCta)) {
    R = intrinsic(Intrinsic::amdgcn_is_shared, {}, {P});
  } else if (I.has(Mod::Local)) {
    R = intrinsic(Intrinsic::amdgcn_is_private, {}, {P});
  } else if (I.has(Mod::Const)) {
    R = inConstData(A);
  } else if (I.has(Mod::Global)) {
    Value *Shared = intrinsic(Intrinsic::amdgcn_is_shared, {}, {P});
    Value *Private = intrinsic(Intrinsic::amdgcn_is_private, {}, {P});
    Value *Either = B.CreateOr(Shared, Private);
    R = B.CreateNot(B.CreateOr(Either, inConstData(A)));
  } else if (Param) {
    // The kernel's own parameters, from the first to the end of the last; a device function
    // has no kernel parameter window.
    R = B.getFalse();
    if (F.IsKernel && !F.Params.empty()) {
      Value *First = B.CreatePtrToInt(ParamPtr.front(), B.getInt64Ty());
      Value *Last = B.CreatePtrToInt(ParamPtr[F.Params.size() - 1], B.getInt64Ty());
      Value *End = B.CreateAdd(Last, B.getInt64(variableSize(F.Params.back())));
      Value *Above = B.CreateICmpUGE(A, First);
      R = B.CreateAnd(Above, B.CreateICmpULT(A, End));
    }
  } else {
    unsupported(); // .shared::cluster
  }
  def(I.Operands[0], R);
}

/// cp.async: done as a synchronous copy, so commit_group and wait_group have nothing to wait
/// for.
void FunctionLowerer::asyncCopy(const ir::Instruction &I) {
  if (I.has(Mod::Commit_group) || I.has(Mod::Wait_group) || I.has(Mod::Wait_all))
    return;
  if (!I.has(Mod::Async) || !I.has(Mod::Shared) || !I.has(Mod::Global) || I.has(Mod::Bulk) ||
      I.Operands.size() < 3 || I.Operands[2].K != Operand::Imm)
    unsupported(); // bulk and tensor copies, mbarrier completion: not yet
  int64_t Size = I.Operands[2].Offset;
  if (Size != 4 && Size != 8 && Size != 16)
    fail("cp.async copies 4, 8 or 16 bytes");
  Value *Dst = address(I.Operands[0], ASLDS);
  Value *Src = address(I.Operands[1], ASGlobal);
  llvm::Type *T = B.getIntNTy(8 * Size);
  // [dst], [src], cp-size {, src-size | ignore-src} {, cache-policy}
  size_t Extra = I.Operands.size() - 3 - (I.has(Mod::L2CacheHint) ? 1 : 0);
  if (Extra > 1)
    unsupported();
  bool Partial = Extra == 1 && !(I.Operands[3].K == Operand::Imm && I.Operands[3].Offset == Size);
  if (Partial && I.Operands[3].K == Operand::Value &&
      F.Values[I.Operands[3].V].Ty == ir::Type::Pred)
    unsupported(); // the ignore-src predicate form: not yet
  if (!Partial) {
    B.CreateAlignedStore(B.CreateAlignedLoad(T, Src, Align(Size)), Dst, Align(Size));
    return;
  }
  // A source size below the copy size: read only that many bytes (the rest may not exist) and
  // fill the others with zeros. A masked load reads nothing where the mask is off.
  Value *SrcSize = get(I.Operands[3], ir::Type::U32);
  auto *Bytes = FixedVectorType::get(B.getInt8Ty(), Size);
  SmallVector<Constant *, 16> Index;
  for (int64_t K = 0; K < Size; ++K)
    Index.push_back(B.getInt32(K));
  Value *Mask = B.CreateICmpULT(ConstantVector::get(Index), B.CreateVectorSplat(Size, SrcSize));
  Value *Data = B.CreateMaskedLoad(Bytes, Src, Align(Size), Mask, Constant::getNullValue(Bytes));
  B.CreateAlignedStore(Data, Dst, Align(Size));
}

} // namespace ptx2amd::lowering
