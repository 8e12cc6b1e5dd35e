// Pass 3: function bodies, instruction by instruction.
#include "LoweringContext.h"

#include "ptx2amd/ptx-ir/Printer.h"

#include <fmt/format.h>
#include <llvm/IR/IntrinsicsAMDGPU.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

using namespace llvm;

namespace ptx2amd::lowering {
namespace {

using ir::Mod;
using ir::Opcode;
using ir::Operand;

bool isSigned(ir::Type T) { return ir::typeClass(T) == 'S'; }
bool isFloat(ir::Type T) { return ir::typeClass(T) == 'F'; }

/// PTX scopes to LLVM AMDGPU sync scopes.
StringRef syncScope(const ir::Instruction &I) {
  if (I.has(Mod::Cta))
    return "workgroup";
  if (I.has(Mod::Sys))
    return "";
  return "agent"; // .gpu, .cluster, .gl and the default
}

class FunctionLowerer {
public:
  FunctionLowerer(ModuleState &S, size_t Index)
      : S(S), F(*S.PTX.Functions[Index]), LF(*S.Functions[Index]), B(S.Ctx) {}

  void run() {
    Entry = BasicBlock::Create(S.Ctx, "entry", &LF);
    B.SetInsertPoint(Entry);
    setUpMemory();
    for (size_t K = 0; K < F.Blocks.size(); ++K)
      Start.push_back(BasicBlock::Create(
          S.Ctx, F.Blocks[K].Label.empty() ? fmt::format("bb{}", K) : F.Blocks[K].Label, &LF));
    End = Start;
    Values.assign(F.Values.size(), nullptr);
    B.CreateBr(Start[0]);
    // Phis first, so that uses in earlier blocks (back edges) find them.
    for (size_t K = 0; K < F.Blocks.size(); ++K) {
      B.SetInsertPoint(Start[K]);
      for (const ir::Phi &P : F.Blocks[K].Phis)
        Values[P.Result] = B.CreatePHI(storageType(S.Ctx, F.Values[P.Result].Ty),
                                       F.Blocks[K].Preds.size(), varName(P.Result));
    }
    // Dominators before the blocks they dominate: reverse post-order, unreachable blocks last.
    for (size_t K : blockOrder()) {
      B.SetInsertPoint(Start[K]);
      Carry = nullptr; // the carry flag does not live across blocks
      for (const ir::Instruction &I : F.Blocks[K].Insts) {
        Cur = &I;
        try {
          instruction(I, K);
        } catch (const LoweringError &E) {
          // Keep going to report every unsupported instruction of the function; its results
          // become undefined so that later instructions still lower.
          record(E);
          defineAsUndefined(I);
        }
        if (B.GetInsertBlock()->getTerminator())
          break;
      }
      if (!B.GetInsertBlock()->getTerminator()) {
        if (K + 1 < F.Blocks.size())
          B.CreateBr(Start[K + 1]);
        else
          createReturn();
      }
      End[K] = B.GetInsertBlock();
    }
    Cur = nullptr;
    for (size_t K = 0; K < F.Blocks.size(); ++K)
      for (const ir::Phi &P : F.Blocks[K].Phis) {
        auto *Phi = cast<PHINode>(Values[P.Result]);
        for (size_t J = 0; J < P.Incoming.size(); ++J) {
          uint32_t Pred = F.Blocks[K].Preds[J];
          // A predecessor that ends in a branch to this block through a split keeps its end block.
          Phi->addIncoming(value(P.Incoming[J]), End[Pred]);
        }
      }
  }

  /// Everything that could not be lowered, in program order; the function failed if not empty.
  std::vector<ir::Diagnostic> Problems;

  void record(const LoweringError &E) {
    ir::Diagnostic D;
    D.File = S.PTX.Source->name();
    D.Loc = E.Loc;
    D.Function = F.Name;
    D.Message = E.Message;
    if (Cur && Cur->TextSize)
      D.Text = std::string(
          S.PTX.Source->text().substr(Cur->TextOffset, std::min<uint32_t>(Cur->TextSize, 200)));
    Problems.push_back(std::move(D));
  }

private:
  void defineAsUndefined(const ir::Instruction &I) {
    auto Define = [&](const Operand &O, auto &Self) -> void {
      if (O.K == Operand::Value && !Values[O.V])
        Values[O.V] = UndefValue::get(storageType(S.Ctx, F.Values[O.V].Ty));
      for (const Operand &E : O.Elements)
        Self(E, Self);
    };
    for (uint32_t J = 0; J < I.NumDefs; ++J)
      Define(I.Operands[J], Define);
  }

  [[noreturn]] void fail(std::string Message) {
    throw LoweringError{Cur ? Cur->Loc : F.Loc, std::move(Message)};
  }
  [[noreturn]] void unsupported() {
    fail(fmt::format("'{}' is not supported yet", ir::instructionName(*Cur)));
  }

  std::string varName(ir::ValueId V) const {
    const ir::ValueInfo &VI = F.Values[V];
    return VI.Var == ir::None
               ? ""
               : fmt::format("{}.{}", F.Vars[VI.Var].Name.substr(F.Vars[VI.Var].Name[0] == '%'),
                             VI.Version);
  }

  std::vector<size_t> blockOrder() const {
    size_t N = F.Blocks.size();
    std::vector<size_t> Post;
    std::vector<bool> Seen(N, false);
    std::vector<std::pair<size_t, size_t>> Stack{{0, 0}};
    Seen[0] = true;
    while (!Stack.empty()) {
      auto &[Blk, Next] = Stack.back();
      if (Next < F.Blocks[Blk].Succs.size()) {
        size_t S2 = F.Blocks[Blk].Succs[Next++];
        if (!Seen[S2]) {
          Seen[S2] = true;
          Stack.push_back({S2, 0});
        }
        continue;
      }
      Post.push_back(Blk);
      Stack.pop_back();
    }
    std::vector<size_t> Order(Post.rbegin(), Post.rend());
    for (size_t K = 0; K < N; ++K)
      if (!Seen[K])
        Order.push_back(K);
    return Order;
  }

  // ---- memory of the function: params, locals, returns ----

  void setUpMemory() {
    for (size_t K = 0; K < F.Params.size(); ++K) {
      if (F.IsKernel) {
        ParamPtr.push_back(LF.getArg(K)); // byref kernarg
        continue;
      }
      auto *A = B.CreateAlloca(LF.getArg(K)->getType(), ASPrivate, nullptr, F.Params[K].Name);
      B.CreateStore(LF.getArg(K), A);
      ParamPtr.push_back(A);
    }
    for (size_t K = 0; K < F.Returns.size(); ++K) {
      llvm::Type *T = F.Returns.size() == 1
                          ? LF.getReturnType()
                          : cast<StructType>(LF.getReturnType())->getElementType(K);
      ParamPtr.push_back(B.CreateAlloca(T, ASPrivate, nullptr, F.Returns[K].Name));
    }
    for (const ir::Variable &V : F.Locals) {
      auto *Bytes = ArrayType::get(Type::getInt8Ty(S.Ctx), variableSize(V));
      if (V.Sp == ir::Space::Shared) {
        auto *G = new GlobalVariable(S.M, Bytes, false, GlobalValue::InternalLinkage,
                                     UndefValue::get(Bytes), F.Name + "." + V.Name, nullptr,
                                     GlobalValue::NotThreadLocal, ASLDS);
        G->setAlignment(Align(variableAlign(V)));
        LocalPtr.push_back(G);
      } else if (V.Sp == ir::Space::Local || V.Sp == ir::Space::Param) {
        auto *A = B.CreateAlloca(Bytes, ASPrivate, nullptr, V.Name);
        A->setAlignment(Align(std::max(4u, variableAlign(V))));
        LocalPtr.push_back(A);
      } else {
        Cur = nullptr;
        fail(fmt::format("'.{}' variables inside functions are not supported yet",
                         ir::spaceName(V.Sp)));
      }
    }
  }

  void createReturn() {
    if (F.IsKernel || LF.getReturnType()->isVoidTy()) {
      B.CreateRetVoid();
      return;
    }
    if (F.Returns.size() == 1) {
      B.CreateRet(B.CreateLoad(LF.getReturnType(), ParamPtr[F.Params.size()]));
      return;
    }
    Value *Agg = UndefValue::get(LF.getReturnType());
    auto *ST = cast<StructType>(LF.getReturnType());
    for (unsigned K = 0; K < F.Returns.size(); ++K)
      Agg = B.CreateInsertValue(
          Agg, B.CreateLoad(ST->getElementType(K), ParamPtr[F.Params.size() + K]), K);
    B.CreateRet(Agg);
  }

  // ---- values ----

  Value *value(ir::ValueId V) {
    if (Values[V])
      return Values[V];
    const ir::ValueInfo &VI = F.Values[V];
    if (VI.Def == ir::ValueInfo::Undef)
      return Values[V] = Constant::getNullValue(storageType(S.Ctx, VI.Ty)); // reads before writes
    if (VI.Def == ir::ValueInfo::Arg)
      return Values[V] = B.CreateLoad(storageType(S.Ctx, VI.Ty), ParamPtr[VI.Index]);
    fail("internal error: a value is used before it is lowered");
  }

  /// Converts \p V (any integer/float type) to type \p T by bit reinterpretation, truncation or
  /// extension (zero, or sign when \p Signed).
  Value *convert(Value *V, llvm::Type *T, bool Signed = false) {
    llvm::Type *VT = V->getType();
    if (VT == T)
      return V;
    unsigned VB = VT->getPrimitiveSizeInBits(), TB = T->getPrimitiveSizeInBits();
    if (VB == TB)
      return B.CreateBitCast(V, T);
    // Different widths: go through integers.
    Value *I = VT->isIntegerTy() ? V : B.CreateBitCast(V, B.getIntNTy(VB));
    llvm::Type *TI = T->isIntegerTy() ? T : B.getIntNTy(TB);
    I = TB < VB ? B.CreateTrunc(I, TI) : Signed ? B.CreateSExt(I, TI) : B.CreateZExt(I, TI);
    return T->isIntegerTy() ? I : B.CreateBitCast(I, T);
  }

  /// A source operand as a value of the instruction type \p T.
  Value *get(const Operand &O, ir::Type T) {
    llvm::Type *VT = valueType(S.Ctx, T);
    switch (O.K) {
    case Operand::Value: {
      if (O.Component || O.Select)
        unsupported();
      Value *V = convert(value(O.V), VT, isSigned(T));
      if (O.Negated)
        V = T == ir::Type::Pred ? B.CreateNot(V) : B.CreateNeg(V);
      return V;
    }
    case Operand::Imm:
      if (VT->isFloatingPointTy() || VT->isVectorTy())
        return convert(B.getIntN(VT->getPrimitiveSizeInBits(), O.Offset), VT);
      return ConstantInt::get(VT, static_cast<uint64_t>(O.Offset));
    case Operand::FImm: {
      Value *Bits = B.getIntN(O.FBits, static_cast<uint64_t>(O.Offset));
      llvm::Type *FT = O.FBits == 32 ? B.getFloatTy() : B.getDoubleTy();
      Value *FV = B.CreateBitCast(Bits, FT);
      if (VT->isFloatingPointTy() && VT != FT)
        return B.CreateFPCast(FV, VT);
      return convert(FV, VT);
    }
    case Operand::Symbol:
      return convert(symbolAddress(O), VT);
    case Operand::Special:
      return convert(special(O), VT);
    default:
      fail("unsupported operand");
    }
  }

  /// Records the value of a destination operand (a register), applying the guard later.
  void def(const Operand &O, Value *V) {
    if (O.K == Operand::Sink)
      return;
    if (O.K != Operand::Value || O.Component || O.Select)
      fail("unsupported destination operand");
    Defs.push_back({O.V, convert(V, storageType(S.Ctx, F.Values[O.V].Ty))});
  }

  // ---- addresses ----

  /// The address of a symbol operand, as a pointer in the symbol's address space.
  Value *symbolPointer(const ir::SymbolRef &Sym) {
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
      if (!S.Functions[Sym.Index])
        fail("reference to a function that is not lowered");
      return S.Functions[Sym.Index];
    default:
      fail("unsupported symbol operand");
    }
  }

  /// `mov.u64 %rd, sym`: the symbol's address as an integer in its own space (a 32-bit LDS
  /// offset for shared variables, as PTX defines).
  Value *symbolAddress(const Operand &O) {
    Value *P = symbolPointer(O.Sym);
    unsigned AS = P->getType()->getPointerAddressSpace();
    Value *I = B.CreatePtrToInt(P, B.getIntNTy(AS == ASLDS || AS == ASPrivate ? 32 : 64));
    return O.Offset ? B.CreateAdd(I, ConstantInt::get(I->getType(), O.Offset)) : I;
  }

  unsigned spaceOf(const ir::Instruction &I) {
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
  Value *address(const Operand &A, unsigned AS) {
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

  // ---- special registers ----

  Value *intrinsic(Intrinsic::ID ID, ArrayRef<llvm::Type *> Types = {},
                   ArrayRef<Value *> Args = {}) {
    return B.CreateIntrinsic(ID, Types, Args);
  }

  /// A u16/u32 field of the HSA dispatch packet.
  Value *dispatchField(unsigned Offset, unsigned Bits) {
    Value *P = intrinsic(Intrinsic::amdgcn_dispatch_ptr);
    Value *F = B.CreateGEP(B.getInt8Ty(), P, B.getInt64(Offset));
    auto *L = B.CreateAlignedLoad(B.getIntNTy(Bits), F, Align(Bits / 8));
    L->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(S.Ctx, {}));
    return B.CreateZExt(L, B.getInt32Ty());
  }

  Value *localSize(unsigned C) { return dispatchField(4 + 2 * C, 16); }

  /// The lane of this work-item in its wave (0..63 on wave64).
  Value *laneInWave() {
    Value *Lo = intrinsic(Intrinsic::amdgcn_mbcnt_lo, {}, {B.getInt32(~0u), B.getInt32(0)});
    if (S.Target.WaveSize == 32)
      return Lo;
    return intrinsic(Intrinsic::amdgcn_mbcnt_hi, {}, {B.getInt32(~0u), Lo});
  }
  Value *laneId() { return B.CreateAnd(laneInWave(), 31); }

  Value *special(const Operand &O) {
    unsigned C = O.Component;
    static constexpr Intrinsic::ID Tid[] = {Intrinsic::amdgcn_workitem_id_x,
                                            Intrinsic::amdgcn_workitem_id_y,
                                            Intrinsic::amdgcn_workitem_id_z};
    static constexpr Intrinsic::ID Ctaid[] = {Intrinsic::amdgcn_workgroup_id_x,
                                              Intrinsic::amdgcn_workgroup_id_y,
                                              Intrinsic::amdgcn_workgroup_id_z};
    switch (O.SReg) {
    case ir::SpecialReg::Tid:
      return C < 3 ? intrinsic(Tid[C]) : B.getInt32(0);
    case ir::SpecialReg::Ntid:
      return C < 3 ? localSize(C) : B.getInt32(1);
    case ir::SpecialReg::Ctaid:
      return C < 3 ? intrinsic(Ctaid[C]) : B.getInt32(0);
    case ir::SpecialReg::Nctaid: {
      if (C >= 3)
        return B.getInt32(1);
      // grid_size_{x,y,z} (work-items) at 12/16/20, divided by the block size, rounded up.
      Value *Grid = dispatchField(12 + 4 * C, 32);
      Value *Block = localSize(C);
      return B.CreateUDiv(B.CreateAdd(Grid, B.CreateSub(Block, B.getInt32(1))), Block);
    }
    case ir::SpecialReg::Laneid:
      return laneId();
    case ir::SpecialReg::WarpSz:
      return B.getInt32(32);
    case ir::SpecialReg::Warpid: {
      // 32-lane warps of the block, numbered by linear thread id.
      Value *X = intrinsic(Intrinsic::amdgcn_workitem_id_x);
      Value *Y = intrinsic(Intrinsic::amdgcn_workitem_id_y);
      Value *Z = intrinsic(Intrinsic::amdgcn_workitem_id_z);
      Value *NX = localSize(0);
      Value *NY = localSize(1);
      Value *YZ = B.CreateAdd(Y, B.CreateMul(NY, Z));
      return B.CreateLShr(B.CreateAdd(X, B.CreateMul(NX, YZ)), 5);
    }
    case ir::SpecialReg::LanemaskEq:
    case ir::SpecialReg::LanemaskLt:
    case ir::SpecialReg::LanemaskLe:
    case ir::SpecialReg::LanemaskGt:
    case ir::SpecialReg::LanemaskGe: {
      Value *Bit = B.CreateShl(B.getInt64(1), B.CreateZExt(laneId(), B.getInt64Ty()));
      Value *Lt = B.CreateSub(Bit, B.getInt64(1)), *Le = B.CreateOr(Lt, Bit);
      Value *R = O.SReg == ir::SpecialReg::LanemaskEq   ? Bit
                 : O.SReg == ir::SpecialReg::LanemaskLt ? Lt
                 : O.SReg == ir::SpecialReg::LanemaskLe ? Le
                 : O.SReg == ir::SpecialReg::LanemaskGt ? B.CreateNot(Le)
                                                        : B.CreateNot(Lt);
      return B.CreateTrunc(R, B.getInt32Ty());
    }
    case ir::SpecialReg::Clock:
      return B.CreateTrunc(intrinsic(Intrinsic::readcyclecounter), B.getInt32Ty());
    case ir::SpecialReg::Clock64:
      return intrinsic(Intrinsic::readcyclecounter);
    case ir::SpecialReg::Globaltimer:
      return intrinsic(Intrinsic::readsteadycounter);
    case ir::SpecialReg::DynamicSmemSize:
      // group_segment_size (static + dynamic LDS) minus the static part.
      return B.CreateSub(dispatchField(24, 32), intrinsic(Intrinsic::amdgcn_groupstaticsize));
    default:
      fail(fmt::format("special register '%{}' is not supported yet", ir::specialRegName(O.SReg)));
    }
  }

  // ---- instructions ----

  static bool hasSideEffects(ir::Opcode Op) {
    switch (ir::opcodeInfo(Op).Fam) {
    case ir::Family::IntArith:
    case ir::Family::FloatArith:
    case ir::Family::Compare:
    case ir::Family::Logic:
    case ir::Family::Convert:
      return false;
    default:
      return !(Op == Opcode::Mov || Op == Opcode::Cvta || Op == Opcode::Prmt);
    }
  }

  void instruction(const ir::Instruction &I, size_t Block) {
    Defs.clear();
    if (I.Op == Opcode::Bra || I.Op == Opcode::Ret || I.Op == Opcode::Exit) {
      terminator(I, Block);
      return;
    }
    Value *Guard = I.Guard != ir::None ? value(I.Guard) : nullptr;
    if (Guard && I.GuardNegated)
      Guard = B.CreateNot(Guard);
    BasicBlock *Before = nullptr, *Then = nullptr;
    if (Guard && hasSideEffects(I.Op)) {
      // Only the lanes whose guard holds may touch memory or synchronise.
      Before = B.GetInsertBlock();
      Then = BasicBlock::Create(S.Ctx, "guarded", &LF);
      auto *Cont = BasicBlock::Create(S.Ctx, "cont", &LF);
      B.CreateCondBr(Guard, Then, Cont);
      B.SetInsertPoint(Then);
      lower(I);
      BasicBlock *ThenEnd = B.GetInsertBlock();
      B.CreateBr(Cont);
      B.SetInsertPoint(Cont);
      for (size_t K = 0; K < Defs.size(); ++K) {
        auto *Phi = B.CreatePHI(Defs[K].second->getType(), 2);
        Phi->addIncoming(Defs[K].second, ThenEnd);
        Phi->addIncoming(convert(value(I.Prior[K]), Defs[K].second->getType()), Before);
        Values[Defs[K].first] = Phi;
      }
      return;
    }
    lower(I);
    for (size_t K = 0; K < Defs.size(); ++K) {
      Value *V = Defs[K].second;
      if (Guard)
        V = B.CreateSelect(Guard, V, convert(value(I.Prior[K]), V->getType()));
      V->setName(varName(Defs[K].first));
      Values[Defs[K].first] = V;
    }
  }

  void terminator(const ir::Instruction &I, size_t Block) {
    Value *Guard = I.Guard != ir::None ? value(I.Guard) : nullptr;
    if (Guard && I.GuardNegated)
      Guard = B.CreateNot(Guard);
    BasicBlock *Next = Block + 1 < Start.size() ? Start[Block + 1] : nullptr;
    if (I.Op == Opcode::Bra) {
      BasicBlock *Target = Start[I.Operands[0].Sym.Index];
      if (Guard) {
        if (!Next)
          fail("conditional branch at the end of the function");
        B.CreateCondBr(Guard, Target, Next);
      } else {
        B.CreateBr(Target);
      }
      return;
    }
    if (I.Op == Opcode::Exit && !F.IsKernel)
      fail("'exit' in a device function is not supported yet");
    if (Guard) {
      auto *Ret = BasicBlock::Create(S.Ctx, "ret", &LF);
      if (!Next)
        fail("conditional return at the end of the function");
      B.CreateCondBr(Guard, Ret, Next);
      B.SetInsertPoint(Ret);
    }
    createReturn();
  }

  ir::Type type0(const ir::Instruction &I) {
    if (I.Types.empty())
      unsupported();
    return I.Types[0];
  }

  void lower(const ir::Instruction &I) {
    switch (I.Op) {
    case Opcode::Mov:
      return mov(I);
    case Opcode::Add:
    case Opcode::Sub:
    case Opcode::Mul:
    case Opcode::Div:
    case Opcode::Rem:
    case Opcode::Min:
    case Opcode::Max:
    case Opcode::And:
    case Opcode::Or:
    case Opcode::Xor:
    case Opcode::Shl:
    case Opcode::Shr:
      return binary(I);
    case Opcode::Mad:
    case Opcode::Fma:
      return mad(I);
    case Opcode::Rcp:
    case Opcode::Sqrt:
    case Opcode::Rsqrt:
    case Opcode::Ex2:
    case Opcode::Lg2:
    case Opcode::Sin:
    case Opcode::Cos:
      if (I.has(Mod::Approx))
        return approximate(I);
      if (I.Op == Opcode::Rcp || I.Op == Opcode::Sqrt)
        return unary(I);
      unsupported();
    case Opcode::Abs:
    case Opcode::Neg:
    case Opcode::Not:
    case Opcode::Cnot:
    case Opcode::Popc:
    case Opcode::Clz:
    case Opcode::Brev:
      return unary(I);
    case Opcode::Bfind:
      return bfind(I);
    case Opcode::Bfe:
      return bfe(I);
    case Opcode::Bfi:
      return bfi(I);
    case Opcode::Prmt:
      return prmt(I);
    case Opcode::Addc:
    case Opcode::Subc:
    case Opcode::Madc:
      return carry(I);
    case Opcode::Setp:
      return setp(I);
    case Opcode::Selp: {
      ir::Type T = type0(I);
      Value *A = get(I.Operands[1], T);
      Value *C = get(I.Operands[2], T);
      Value *P = get(I.Operands[3], ir::Type::Pred);
      def(I.Operands[0], B.CreateSelect(P, A, C));
      return;
    }
    case Opcode::Cvt:
      return cvt(I);
    case Opcode::Cvta:
      return cvta(I);
    case Opcode::Ld:
    case Opcode::Ldu:
      return load(I);
    case Opcode::St:
      return store(I);
    case Opcode::Atom:
    case Opcode::Red:
      return atomic(I);
    case Opcode::Bar:
    case Opcode::Barrier:
      if (I.has(Mod::Warp))
        return warpSync(I);
      return barrier(I);
    case Opcode::Membar:
    case Opcode::Fence:
      if (I.Op == Opcode::Fence && (I.has(Mod::Proxy) || I.has(Mod::Extra)))
        unsupported();
      B.CreateFence(AtomicOrdering::SequentiallyConsistent,
                    S.Ctx.getOrInsertSyncScopeID(syncScope(I)));
      return;
    case Opcode::Call:
      return call(I);
    case Opcode::Shfl:
      return shfl(I);
    case Opcode::Vote:
      return vote(I);
    case Opcode::Activemask:
      def(I.Operands[0], warpBallot(B.getTrue()));
      return;
    case Opcode::Dp4a:
    case Opcode::Dp2a:
      return dot(I);
    case Opcode::Shf:
      return funnelShift(I);
    case Opcode::Lop3:
      return lop3(I);
    case Opcode::Redux:
      return redux(I);
    case Opcode::Cp:
      return asyncCopy(I);
    case Opcode::Nanosleep:
      // Any sleep in [0, 2t] is allowed: a short one.
      intrinsic(Intrinsic::amdgcn_s_sleep, {}, {B.getInt32(1)});
      return;
    case Opcode::Trap:
      intrinsic(Intrinsic::trap);
      return;
    case Opcode::Brkpt:
      intrinsic(Intrinsic::debugtrap);
      return;
    case Opcode::Copysign: {
      // copysign d, a, b: b with the sign of a.
      ir::Type T = type0(I);
      Value *A = get(I.Operands[1], T);
      Value *Bv = get(I.Operands[2], T);
      def(I.Operands[0], intrinsic(Intrinsic::copysign, {Bv->getType()}, {Bv, A}));
      return;
    }
    default:
      unsupported();
    }
  }

  void mov(const ir::Instruction &I) {
    ir::Type T = type0(I);
    const Operand &D = I.Operands[0], &A = I.Operands[1];
    unsigned Bits = ir::typeBits(T);
    if (D.K == Operand::Vector) { // unpack
      Value *Src = get(A, T);
      unsigned N = D.Elements.size(), EB = Bits / N;
      Value *Vec = B.CreateBitCast(convert(Src, B.getIntNTy(Bits)),
                                   FixedVectorType::get(B.getIntNTy(EB), N));
      for (unsigned K = 0; K < N; ++K)
        def(D.Elements[K], B.CreateExtractElement(Vec, K));
      return;
    }
    if (A.K == Operand::Vector) { // pack
      unsigned N = A.Elements.size(), EB = Bits / N;
      Value *Vec = PoisonValue::get(FixedVectorType::get(B.getIntNTy(EB), N));
      for (unsigned K = 0; K < N; ++K)
        Vec = B.CreateInsertElement(Vec, convert(getRaw(A.Elements[K]), B.getIntNTy(EB)), K);
      def(D, B.CreateBitCast(Vec, B.getIntNTy(Bits)));
      return;
    }
    def(D, get(A, T));
  }

  /// A register operand as its own storage value (no conversion to an instruction type).
  Value *getRaw(const Operand &O) {
    if (O.K == Operand::Value && !O.Component && !O.Select && !O.Negated)
      return value(O.V);
    if (O.K == Operand::Imm)
      return B.getInt64(O.Offset);
    fail("unsupported vector element");
  }

  Value *guardedDivisor(Value *D) {
    // PTX leaves division by zero unspecified; LLVM makes it undefined behaviour.
    return B.CreateSelect(B.CreateICmpEQ(D, ConstantInt::get(D->getType(), 0)),
                          ConstantInt::get(D->getType(), 1), D);
  }

  void checkFloatModifiers(const ir::Instruction &I) {
    for (const ir::Modifier &M : I.Mods)
      if (M.Id != Mod::Rn && M.Id != Mod::Full && M.Id != Mod::Sat)
        unsupported(); // .rz/.rm/.rp, .ftz, .approx, .relu: not yet
  }

  /// `.sat` on a float result: clamp to [0, 1], NaN to +0 (maxnum ignores the NaN).
  Value *saturate(const ir::Instruction &I, Value *V) {
    if (!I.has(Mod::Sat))
      return V;
    Value *Lo = B.CreateMaxNum(V, ConstantFP::get(V->getType(), 0.0));
    return B.CreateMinNum(Lo, ConstantFP::get(V->getType(), 1.0));
  }

  void binary(const ir::Instruction &I) {
    if (I.has(Mod::Cc))
      return carry(I);
    ir::Type T = type0(I);
    if (I.Operands.size() != 3)
      unsupported();
    if (isFloat(T)) {
      checkFloatModifiers(I);
      Value *A = get(I.Operands[1], T), *C = get(I.Operands[2], T);
      Value *R;
      switch (I.Op) {
      case Opcode::Add:
        R = B.CreateFAdd(A, C);
        break;
      case Opcode::Sub:
        R = B.CreateFSub(A, C);
        break;
      case Opcode::Mul:
        R = B.CreateFMul(A, C);
        break;
      case Opcode::Div:
        R = B.CreateFDiv(A, C);
        break;
      // PTX min/max return the other operand when one is NaN: minnum/maxnum.
      case Opcode::Min:
        R = B.CreateMinNum(A, C);
        break;
      case Opcode::Max:
        R = B.CreateMaxNum(A, C);
        break;
      default:
        unsupported();
      }
      def(I.Operands[0], saturate(I, R));
      return;
    }
    for (const ir::Modifier &M : I.Mods)
      if (M.Id != Mod::Lo && M.Id != Mod::Hi && M.Id != Mod::Wide)
        unsupported(); // .cc, .sat, .relu: not yet
    bool Signed = isSigned(T);
    unsigned Bits = ir::typeBits(T);
    if (I.Op == Opcode::Shl || I.Op == Opcode::Shr) {
      Value *A = get(I.Operands[1], T);
      Value *Amt = B.CreateZExtOrTrunc(get(I.Operands[2], ir::Type::U32), A->getType());
      Value *Big = B.CreateICmpUGE(Amt, ConstantInt::get(A->getType(), Bits));
      Value *Safe = B.CreateSelect(Big, ConstantInt::get(A->getType(), Bits - 1), Amt);
      Value *R;
      if (I.Op == Opcode::Shl)
        R = B.CreateSelect(Big, ConstantInt::get(A->getType(), 0), B.CreateShl(A, Safe));
      else if (Signed)
        R = B.CreateAShr(A, Safe); // a count past the width fills with the sign
      else
        R = B.CreateSelect(Big, ConstantInt::get(A->getType(), 0), B.CreateLShr(A, Safe));
      def(I.Operands[0], R);
      return;
    }
    Value *A = get(I.Operands[1], T), *C = get(I.Operands[2], T);
    Value *R;
    switch (I.Op) {
    case Opcode::Add:
      R = B.CreateAdd(A, C);
      break;
    case Opcode::Sub:
      R = B.CreateSub(A, C);
      break;
    case Opcode::Mul:
      R = multiply(I, A, C, Signed, Bits);
      break;
    case Opcode::Div:
      R = Signed ? B.CreateSDiv(A, guardedDivisor(C)) : B.CreateUDiv(A, guardedDivisor(C));
      break;
    case Opcode::Rem:
      R = Signed ? B.CreateSRem(A, guardedDivisor(C)) : B.CreateURem(A, guardedDivisor(C));
      break;
    case Opcode::Min:
      R = intrinsic(Signed ? Intrinsic::smin : Intrinsic::umin, {A->getType()}, {A, C});
      break;
    case Opcode::Max:
      R = intrinsic(Signed ? Intrinsic::smax : Intrinsic::umax, {A->getType()}, {A, C});
      break;
    case Opcode::And:
      R = B.CreateAnd(A, C);
      break;
    case Opcode::Or:
      R = B.CreateOr(A, C);
      break;
    case Opcode::Xor:
      R = B.CreateXor(A, C);
      break;
    default:
      unsupported();
    }
    def(I.Operands[0], R);
  }

  /// f32 flush-to-zero of subnormal values (`.ftz`), keeping the sign.
  Value *flush(Value *V) {
    if (!V->getType()->isFloatTy())
      return V;
    Value *Abs = intrinsic(Intrinsic::fabs, {V->getType()}, {V});
    Value *Tiny = B.CreateFCmpOLT(Abs, ConstantFP::get(V->getType(), 0x1p-126));
    Value *Zero =
        intrinsic(Intrinsic::copysign, {V->getType()}, {ConstantFP::get(V->getType(), 0.0), V});
    return B.CreateSelect(Tiny, Zero, V);
  }

  /// `.approx` functions on the hardware's own approximations.
  void approximate(const ir::Instruction &I) {
    ir::Type T = type0(I);
    for (const ir::Modifier &M : I.Mods)
      if (M.Id != Mod::Approx && M.Id != Mod::Ftz)
        unsupported();
    bool Ftz = I.has(Mod::Ftz);
    Value *A = get(I.Operands[1], T);
    llvm::Type *VT = A->getType();
    bool F64 = VT->isDoubleTy();
    if (!VT->isFloatTy() && !(F64 && (I.Op == Opcode::Rcp || I.Op == Opcode::Rsqrt)))
      unsupported();
    if (Ftz)
      A = flush(A);
    Value *R;
    switch (I.Op) {
    case Opcode::Rcp:
      R = intrinsic(Intrinsic::amdgcn_rcp, {VT}, {A});
      break;
    case Opcode::Rsqrt:
      R = intrinsic(Intrinsic::amdgcn_rsq, {VT}, {A});
      break;
    case Opcode::Sqrt:
      R = intrinsic(Intrinsic::amdgcn_sqrt, {VT}, {A});
      break;
    case Opcode::Ex2:
      R = intrinsic(Intrinsic::amdgcn_exp2, {VT}, {A});
      break;
    case Opcode::Lg2:
      R = intrinsic(Intrinsic::amdgcn_log, {VT}, {A});
      break;
    case Opcode::Sin:
    case Opcode::Cos: {
      // The hardware takes turns, not radians.
      Value *Turns = B.CreateFMul(A, ConstantFP::get(VT, 0.15915494309189535));
      R = intrinsic(I.Op == Opcode::Sin ? Intrinsic::amdgcn_sin : Intrinsic::amdgcn_cos, {VT},
                    {Turns});
      break;
    }
    default:
      unsupported();
    }
    def(I.Operands[0], Ftz ? flush(R) : R);
  }

  /// bfind: the position of the most significant non-sign bit, 0xffffffff when there is none;
  /// `.shiftamt` gives the left shift that moves it to the top instead.
  void bfind(const ir::Instruction &I) {
    ir::Type T = type0(I);
    Value *A = get(I.Operands[1], T);
    unsigned N = ir::typeBits(T);
    if (isSigned(T)) { // for negative values, look for the most significant 0
      Value *Neg = B.CreateICmpSLT(A, ConstantInt::get(A->getType(), 0));
      A = B.CreateSelect(Neg, B.CreateNot(A), A);
    }
    Value *Clz = intrinsic(Intrinsic::ctlz, {A->getType()}, {A, B.getFalse()});
    Value *Lz = B.CreateZExtOrTrunc(Clz, B.getInt32Ty());
    Value *None = B.CreateICmpEQ(A, ConstantInt::get(A->getType(), 0));
    Value *Pos = I.has(Mod::Shiftamt) ? Lz : B.CreateSub(B.getInt32(N - 1), Lz);
    def(I.Operands[0], B.CreateSelect(None, B.getInt32(~0u), Pos));
  }

  /// bfe: `len` bits from `pos`, zero- or sign-extended; positions past the top read the sign.
  void bfe(const ir::Instruction &I) {
    ir::Type T = type0(I);
    Value *A = get(I.Operands[1], T);
    llvm::Type *AT = A->getType();
    unsigned N = ir::typeBits(T);
    Value *PosIn = B.CreateAnd(get(I.Operands[2], ir::Type::U32), 0xff);
    Value *Pos = B.CreateZExtOrTrunc(PosIn, AT);
    Value *LenIn = B.CreateAnd(get(I.Operands[3], ir::Type::U32), 0xff);
    Value *Len = B.CreateZExtOrTrunc(LenIn, AT);
    Value *Width = ConstantInt::get(AT, N);
    Value *PosPast = B.CreateICmpUGE(Pos, Width);
    Value *SafePos = B.CreateSelect(PosPast, ConstantInt::get(AT, N - 1), Pos);
    Value *Shifted = isSigned(T) ? B.CreateAShr(A, SafePos) : B.CreateLShr(A, SafePos);
    if (!isSigned(T))
      Shifted = B.CreateSelect(PosPast, ConstantInt::get(AT, 0), Shifted);
    Value *LenAll = B.CreateICmpUGE(Len, Width);
    Value *Keep = B.CreateSub(Width, B.CreateSelect(LenAll, Width, Len)); // bits above the field
    Value *Up = B.CreateShl(Shifted, Keep);
    Value *Field = isSigned(T) ? B.CreateAShr(Up, Keep) : B.CreateLShr(Up, Keep);
    Value *Zero = B.CreateICmpEQ(Len, ConstantInt::get(AT, 0));
    def(I.Operands[0], B.CreateSelect(Zero, ConstantInt::get(AT, 0), Field));
  }

  /// bfi: insert the low `len` bits of a into b at `pos`.
  void bfi(const ir::Instruction &I) {
    ir::Type T = type0(I);
    Value *A = get(I.Operands[1], T);
    Value *Bv = get(I.Operands[2], T);
    llvm::Type *AT = A->getType();
    unsigned N = ir::typeBits(T);
    llvm::Type *W = B.getIntNTy(2 * N); // room for pos + len without overflow
    Value *PosIn = B.CreateAnd(get(I.Operands[3], ir::Type::U32), 0xff);
    Value *Pos = B.CreateZExt(PosIn, W);
    Value *LenIn = B.CreateAnd(get(I.Operands[4], ir::Type::U32), 0xff);
    Value *Len = B.CreateZExt(LenIn, W);
    Value *Big = B.CreateICmpUGT(Len, ConstantInt::get(W, N));
    Value *Bits = B.CreateSelect(Big, ConstantInt::get(W, N), Len);
    Value *Ones = B.CreateSub(B.CreateShl(ConstantInt::get(W, 1), Bits), ConstantInt::get(W, 1));
    Value *InRange = B.CreateICmpULT(Pos, ConstantInt::get(W, N));
    Value *SafePos = B.CreateSelect(InRange, Pos, ConstantInt::get(W, 0));
    Value *Mask = B.CreateTrunc(B.CreateShl(Ones, SafePos), AT);
    Value *Ins = B.CreateTrunc(B.CreateShl(B.CreateZExt(A, W), SafePos), AT);
    Value *Kept = B.CreateAnd(Bv, B.CreateNot(Mask));
    Value *R = B.CreateOr(Kept, B.CreateAnd(Ins, Mask));
    def(I.Operands[0], B.CreateSelect(InRange, R, Bv));
  }

  /// prmt (default mode): each result byte picks one of the 8 bytes of {b, a}, optionally
  /// replicating its sign bit.
  void prmt(const ir::Instruction &I) {
    if (!I.Mods.empty())
      unsupported(); // .f4e, .b4e, .rc8, .ecl, .ecr, .rc16: not yet
    Value *A = get(I.Operands[1], ir::Type::B32);
    Value *Bv = get(I.Operands[2], ir::Type::B32);
    Value *C = get(I.Operands[3], ir::Type::B32);
    Value *Hi = B.CreateShl(B.CreateZExt(Bv, B.getInt64Ty()), 32);
    Value *Src = B.CreateOr(Hi, B.CreateZExt(A, B.getInt64Ty()));
    Value *R = B.getInt32(0);
    for (unsigned K = 0; K < 4; ++K) {
      Value *Sel = B.CreateAnd(B.CreateLShr(C, 4 * K), 0xf);
      Value *Idx = B.CreateZExt(B.CreateAnd(Sel, 7), B.getInt64Ty());
      Value *Shifted = B.CreateLShr(Src, B.CreateShl(Idx, 3));
      Value *Byte = B.CreateTrunc(B.CreateAnd(Shifted, 0xff), B.getInt32Ty());
      Value *Sign = B.CreateICmpNE(B.CreateAnd(Byte, 0x80), B.getInt32(0));
      Value *Rep = B.CreateSelect(Sign, B.getInt32(0xff), B.getInt32(0));
      Value *SignMode = B.CreateICmpNE(B.CreateAnd(Sel, 8), B.getInt32(0));
      Value *Use = B.CreateSelect(SignMode, Rep, Byte);
      R = B.CreateOr(R, B.CreateShl(Use, 8 * K));
    }
    def(I.Operands[0], R);
  }

  /// Extended precision: add.cc/addc/sub.cc/subc/mad.cc/madc through the carry flag, which PTX
  /// keeps as implicit state between consecutive instructions.
  void carry(const ir::Instruction &I) {
    ir::Type T = type0(I);
    if (isFloat(T) || (ir::typeBits(T) != 32 && ir::typeBits(T) != 64) || I.has(Mod::Wide))
      unsupported();
    bool In = I.Op == Opcode::Addc || I.Op == Opcode::Subc || I.Op == Opcode::Madc;
    bool Out = I.has(Mod::Cc);
    Value *A = get(I.Operands[1], T);
    Value *C = get(I.Operands[2], T);
    llvm::Type *AT = A->getType();
    if (In && !Carry)
      fail(fmt::format("'{}' reads a carry flag that no earlier instruction of its block set",
                       ir::instructionName(I)));
    Value *CarryIn = In ? B.CreateZExt(Carry, AT) : ConstantInt::get(AT, 0);
    bool Sub = I.Op == Opcode::Sub || I.Op == Opcode::Subc;
    Value *X = A, *Y = C;
    if (I.Op == Opcode::Mad || I.Op == Opcode::Madc) {
      X = multiply(I, A, C, isSigned(T), ir::typeBits(T));
      Y = get(I.Operands[3], T);
    }
    Intrinsic::ID Op = Sub ? Intrinsic::usub_with_overflow : Intrinsic::uadd_with_overflow;
    Value *First = intrinsic(Op, {AT}, {X, Y});
    Value *Partial = B.CreateExtractValue(First, 0);
    Value *Second = intrinsic(Op, {AT}, {Partial, CarryIn});
    if (Out) {
      Value *C1 = B.CreateExtractValue(First, 1);
      Carry = B.CreateOr(C1, B.CreateExtractValue(Second, 1));
    }
    def(I.Operands[0], B.CreateExtractValue(Second, 0));
  }

  /// bar.warp.sync: the lanes of a warp execute in lock step inside a wave; order their memory.
  void warpSync(const ir::Instruction &) {
    auto Wave = S.Ctx.getOrInsertSyncScopeID("wavefront");
    B.CreateFence(AtomicOrdering::Release, Wave);
    intrinsic(Intrinsic::amdgcn_wave_barrier);
    B.CreateFence(AtomicOrdering::Acquire, Wave);
  }

  /// shf.l/.r: the high (left) or low (right) word of {b, a} shifted; .clamp stops at 32.
  void funnelShift(const ir::Instruction &I) {
    ir::Type T = type0(I);
    Value *A = get(I.Operands[1], T);
    Value *Bv = get(I.Operands[2], T);
    Value *C = get(I.Operands[3], ir::Type::U32);
    bool Left = I.has(Mod::L);
    Value *R = intrinsic(Left ? Intrinsic::fshl : Intrinsic::fshr, {A->getType()}, {Bv, A, C});
    if (I.has(Mod::Clamp)) // a count of 32 or more moves a whole word: a (left) or b (right)
      R = B.CreateSelect(B.CreateICmpUGE(C, B.getInt32(32)), Left ? A : Bv, R);
    def(I.Operands[0], R);
  }

  /// lop3: any function of three inputs given by its truth table (a = 0xF0, b = 0xCC, c = 0xAA).
  void lop3(const ir::Instruction &I) {
    if (I.Operands.size() != 5 || I.Operands[4].K != Operand::Imm || !I.Mods.empty())
      unsupported(); // the predicate forms (lop3.or/.and with |p): not yet
    ir::Type T = type0(I);
    Value *A = get(I.Operands[1], T);
    Value *Bv = get(I.Operands[2], T);
    Value *C = get(I.Operands[3], T);
    Value *NA = B.CreateNot(A);
    Value *NB = B.CreateNot(Bv);
    Value *NC = B.CreateNot(C);
    uint64_t Lut = static_cast<uint64_t>(I.Operands[4].Offset) & 0xff;
    Value *R = ConstantInt::get(A->getType(), 0);
    for (unsigned K = 0; K < 8; ++K) {
      if (!(Lut >> K & 1))
        continue;
      Value *Term = B.CreateAnd(K & 4 ? A : NA, K & 2 ? Bv : NB);
      R = B.CreateOr(R, B.CreateAnd(Term, K & 1 ? C : NC));
    }
    def(I.Operands[0], R);
  }

  /// dp4a / dp2a: dot products of bytes (and halves) with 32-bit accumulation.
  void dot(const ir::Instruction &I) {
    if (I.Types.size() != 2)
      unsupported();
    bool SA = isSigned(I.Types[0]), SB = isSigned(I.Types[1]);
    Value *A = get(I.Operands[1], ir::Type::B32);
    Value *Bv = get(I.Operands[2], ir::Type::B32);
    Value *Acc = get(I.Operands[3], ir::Type::B32);
    bool Two = I.Op == Opcode::Dp2a;
    unsigned BFirst = Two && I.has(Mod::Hi) ? 2 : 0;
    auto Part = [&](Value *V, unsigned Index, unsigned Bits, bool Signed) {
      Value *Shifted = B.CreateLShr(V, Index * Bits);
      Value *Narrow = B.CreateTrunc(Shifted, B.getIntNTy(Bits));
      return Signed ? B.CreateSExt(Narrow, B.getInt32Ty()) : B.CreateZExt(Narrow, B.getInt32Ty());
    };
    for (unsigned K = 0; K < (Two ? 2u : 4u); ++K) {
      Value *X = Part(A, K, Two ? 16 : 8, SA);
      Value *Y = Part(Bv, BFirst + K, 8, SB);
      Acc = B.CreateAdd(Acc, B.CreateMul(X, Y));
    }
    def(I.Operands[0], Acc);
  }

  /// redux.sync over the lanes of the member mask, inside this lane's 32-lane warp: a butterfly
  /// that only reads partners in the mask (the others may be inactive).
  void redux(const ir::Instruction &I) {
    ir::Type T = type0(I);
    if (isFloat(T) || I.Operands.size() != 3)
      unsupported();
    bool Signed = isSigned(T);
    Value *V = get(I.Operands[1], T);
    Value *Mask = get(I.Operands[2], ir::Type::B32);
    Value *Lane = laneId();
    Value *Base = S.Target.WaveSize == 64 ? B.CreateAnd(laneInWave(), 32) : nullptr;
    Value *Identity;
    if (I.has(Mod::Add) || I.has(Mod::Or) || I.has(Mod::Xor))
      Identity = B.getInt32(0);
    else if (I.has(Mod::And))
      Identity = B.getInt32(~0u);
    else if (I.has(Mod::Min))
      Identity = B.getInt32(Signed ? 0x7fffffff : ~0u);
    else if (I.has(Mod::Max))
      Identity = B.getInt32(Signed ? 0x80000000u : 0);
    else
      unsupported();
    auto Combine = [&](Value *X, Value *Y) -> Value * {
      if (I.has(Mod::Add))
        return B.CreateAdd(X, Y);
      if (I.has(Mod::And))
        return B.CreateAnd(X, Y);
      if (I.has(Mod::Or))
        return B.CreateOr(X, Y);
      if (I.has(Mod::Xor))
        return B.CreateXor(X, Y);
      Intrinsic::ID ID = I.has(Mod::Min) ? (Signed ? Intrinsic::smin : Intrinsic::umin)
                                         : (Signed ? Intrinsic::smax : Intrinsic::umax);
      return intrinsic(ID, {X->getType()}, {X, Y});
    };
    for (unsigned Step = 16; Step >= 1; Step /= 2) {
      Value *Partner = B.CreateXor(Lane, Step);
      Value *WaveLane = Base ? B.CreateOr(Base, Partner) : Partner;
      Value *Other = intrinsic(Intrinsic::amdgcn_ds_bpermute, {}, {B.CreateShl(WaveLane, 2), V});
      Value *Bit = B.CreateAnd(B.CreateLShr(Mask, Partner), 1);
      Value *InMask = B.CreateICmpNE(Bit, B.getInt32(0));
      V = Combine(V, B.CreateSelect(InMask, Other, Identity));
    }
    def(I.Operands[0], V);
  }

  /// cp.async: done as a synchronous copy, so commit_group and wait_group have nothing to wait
  /// for.
  void asyncCopy(const ir::Instruction &I) {
    if (I.has(Mod::Commit_group) || I.has(Mod::Wait_group) || I.has(Mod::Wait_all))
      return;
    if (!I.has(Mod::Async) || !I.has(Mod::Shared) || !I.has(Mod::Global) || I.has(Mod::Bulk) ||
        I.Operands.size() < 3 || I.Operands[2].K != Operand::Imm)
      unsupported(); // bulk and tensor copies, mbarrier completion: not yet
    int64_t Size = I.Operands[2].Offset;
    if (Size != 4 && Size != 8 && Size != 16)
      fail("cp.async copies 4, 8 or 16 bytes");
    if (I.Operands.size() > 3 && !(I.Operands[3].K == Operand::Imm && I.Operands[3].Offset == Size))
      unsupported(); // a source size below the copy size (zero fill): not yet
    Value *Dst = address(I.Operands[0], ASLDS);
    Value *Src = address(I.Operands[1], ASGlobal);
    llvm::Type *T = B.getIntNTy(8 * Size);
    B.CreateAlignedStore(B.CreateAlignedLoad(T, Src, Align(Size)), Dst, Align(Size));
  }

  /// mul.lo / mul.hi / mul.wide
  Value *multiply(const ir::Instruction &I, Value *A, Value *C, bool Signed, unsigned Bits) {
    if (I.has(Mod::Lo) || (!I.has(Mod::Hi) && !I.has(Mod::Wide)))
      return B.CreateMul(A, C);
    // (Sibling arguments are evaluated in no fixed order: the instructions are created one by one
    // so that the IR is the same whatever compiler built ptx2amd.)
    llvm::Type *W = B.getIntNTy(2 * Bits);
    Value *WA = Signed ? B.CreateSExt(A, W) : B.CreateZExt(A, W);
    Value *WC = Signed ? B.CreateSExt(C, W) : B.CreateZExt(C, W);
    Value *P = B.CreateMul(WA, WC);
    if (I.has(Mod::Wide))
      return P;
    return B.CreateTrunc(B.CreateLShr(P, 2 * Bits - Bits), A->getType());
  }

  void mad(const ir::Instruction &I) {
    if (I.has(Mod::Cc))
      return carry(I);
    ir::Type T = type0(I);
    if (isFloat(T)) {
      checkFloatModifiers(I);
      Value *A = get(I.Operands[1], T), *C = get(I.Operands[2], T), *D = get(I.Operands[3], T);
      def(I.Operands[0], saturate(I, intrinsic(Intrinsic::fma, {A->getType()}, {A, C, D})));
      return;
    }
    for (const ir::Modifier &M : I.Mods)
      if (M.Id != Mod::Lo && M.Id != Mod::Hi && M.Id != Mod::Wide)
        unsupported();
    bool Signed = isSigned(T);
    Value *A = get(I.Operands[1], T), *C = get(I.Operands[2], T);
    Value *P = multiply(I, A, C, Signed, ir::typeBits(T));
    Value *D =
        get(I.Operands[3], I.has(Mod::Wide)
                               ? (Signed ? (ir::typeBits(T) == 32 ? ir::Type::S64 : ir::Type::S32)
                                         : (ir::typeBits(T) == 32 ? ir::Type::U64 : ir::Type::U32))
                               : T);
    def(I.Operands[0], B.CreateAdd(P, convert(D, P->getType())));
  }

  void unary(const ir::Instruction &I) {
    ir::Type T = type0(I);
    Value *A = get(I.Operands[1], T);
    Value *R;
    if (isFloat(T)) {
      checkFloatModifiers(I);
      switch (I.Op) {
      case Opcode::Abs:
        R = intrinsic(Intrinsic::fabs, {A->getType()}, {A});
        break;
      case Opcode::Neg:
        R = B.CreateFNeg(A);
        break;
      case Opcode::Sqrt:
        if (!I.has(Mod::Rn))
          unsupported();
        R = intrinsic(Intrinsic::sqrt, {A->getType()}, {A});
        break;
      case Opcode::Rcp:
        if (!I.has(Mod::Rn))
          unsupported();
        R = B.CreateFDiv(ConstantFP::get(A->getType(), 1.0), A);
        break;
      default:
        unsupported();
      }
      def(I.Operands[0], R);
      return;
    }
    switch (I.Op) {
    case Opcode::Abs:
      R = intrinsic(Intrinsic::abs, {A->getType()}, {A, B.getFalse()});
      break;
    case Opcode::Neg:
      R = B.CreateNeg(A);
      break;
    case Opcode::Not:
      R = B.CreateNot(A);
      break;
    case Opcode::Cnot:
      R = B.CreateZExt(B.CreateICmpEQ(A, ConstantInt::get(A->getType(), 0)), A->getType());
      break;
    case Opcode::Popc:
      R = intrinsic(Intrinsic::ctpop, {A->getType()}, {A});
      break;
    case Opcode::Clz:
      R = intrinsic(Intrinsic::ctlz, {A->getType()}, {A, B.getFalse()});
      break;
    case Opcode::Brev:
      R = intrinsic(Intrinsic::bitreverse, {A->getType()}, {A});
      break;
    default:
      unsupported();
    }
    // popc/clz of a 64-bit value still write a 32-bit register.
    def(I.Operands[0],
        (I.Op == Opcode::Popc || I.Op == Opcode::Clz) ? B.CreateZExtOrTrunc(R, B.getInt32Ty()) : R);
  }

  Value *compare(const ir::Instruction &I, ir::Type T, Value *A, Value *C) {
    bool Signed = isSigned(T);
    if (isFloat(T)) {
      CmpInst::Predicate P;
      if (I.has(Mod::Eq))
        P = CmpInst::FCMP_OEQ;
      else if (I.has(Mod::Ne))
        P = CmpInst::FCMP_ONE;
      else if (I.has(Mod::Lt))
        P = CmpInst::FCMP_OLT;
      else if (I.has(Mod::Le))
        P = CmpInst::FCMP_OLE;
      else if (I.has(Mod::Gt))
        P = CmpInst::FCMP_OGT;
      else if (I.has(Mod::Ge))
        P = CmpInst::FCMP_OGE;
      else if (I.has(Mod::Equ))
        P = CmpInst::FCMP_UEQ;
      else if (I.has(Mod::Neu))
        P = CmpInst::FCMP_UNE;
      else if (I.has(Mod::Ltu))
        P = CmpInst::FCMP_ULT;
      else if (I.has(Mod::Leu))
        P = CmpInst::FCMP_ULE;
      else if (I.has(Mod::Gtu))
        P = CmpInst::FCMP_UGT;
      else if (I.has(Mod::Geu))
        P = CmpInst::FCMP_UGE;
      else if (I.has(Mod::Num))
        P = CmpInst::FCMP_ORD;
      else if (I.has(Mod::Nan))
        P = CmpInst::FCMP_UNO;
      else
        unsupported();
      return B.CreateFCmp(P, A, C);
    }
    CmpInst::Predicate P;
    if (I.has(Mod::Eq))
      P = CmpInst::ICMP_EQ;
    else if (I.has(Mod::Ne))
      P = CmpInst::ICMP_NE;
    else if (I.has(Mod::Lt))
      P = Signed ? CmpInst::ICMP_SLT : CmpInst::ICMP_ULT;
    else if (I.has(Mod::Le))
      P = Signed ? CmpInst::ICMP_SLE : CmpInst::ICMP_ULE;
    else if (I.has(Mod::Gt))
      P = Signed ? CmpInst::ICMP_SGT : CmpInst::ICMP_UGT;
    else if (I.has(Mod::Ge))
      P = Signed ? CmpInst::ICMP_SGE : CmpInst::ICMP_UGE;
    else if (I.has(Mod::Lo))
      P = CmpInst::ICMP_ULT;
    else if (I.has(Mod::Ls))
      P = CmpInst::ICMP_ULE;
    else if (I.has(Mod::Hi))
      P = CmpInst::ICMP_UGT;
    else if (I.has(Mod::Hs))
      P = CmpInst::ICMP_UGE;
    else
      unsupported();
    return B.CreateICmp(P, A, C);
  }

  void setp(const ir::Instruction &I) {
    ir::Type T = type0(I);
    if (I.has(Mod::Ftz))
      unsupported();
    size_t Src = I.NumDefs;
    Value *A = get(I.Operands[Src], T);
    Value *C = get(I.Operands[Src + 1], T);
    Value *R = compare(I, T, A, C);
    // `setp ... p|q` also writes the complement (combined the same way) to q.
    Value *NotR = I.NumDefs == 2 ? B.CreateNot(R) : nullptr;
    if (I.has(Mod::And) || I.has(Mod::Or) || I.has(Mod::Xor)) {
      Value *C = get(I.Operands[Src + 2], ir::Type::Pred);
      auto Combine = [&](Value *X) {
        return I.has(Mod::And)  ? B.CreateAnd(X, C)
               : I.has(Mod::Or) ? B.CreateOr(X, C)
                                : B.CreateXor(X, C);
      };
      R = Combine(R);
      if (NotR)
        NotR = Combine(NotR);
    }
    def(I.Operands[0], R);
    if (I.NumDefs == 2)
      def(I.Operands[1], NotR);
  }

  void cvt(const ir::Instruction &I) {
    if (I.Types.size() != 2)
      unsupported();
    ir::Type DT = I.Types[0], ST = I.Types[1];
    Value *A = get(I.Operands[1], ST);
    llvm::Type *DV = valueType(S.Ctx, DT);
    for (const ir::Modifier &M : I.Mods)
      if (M.Id != Mod::Rn && M.Id != Mod::Rzi && M.Id != Mod::Rni && M.Id != Mod::Rmi &&
          M.Id != Mod::Rpi && M.Id != Mod::Rz && M.Id != Mod::Sat)
        unsupported(); // .ftz, .relu, packing forms: not yet
    if (DV->isVectorTy() || valueType(S.Ctx, ST)->isVectorTy())
      unsupported(); // packing conversions (f16x2, bf16x2, ...): not yet
    Value *R;
    if (isFloat(ST) && isFloat(DT)) {
      if (ir::typeBits(DT) < ir::typeBits(ST) && !I.has(Mod::Rn))
        unsupported();
      if (I.has(Mod::Rni) || I.has(Mod::Rzi) || I.has(Mod::Rmi) || I.has(Mod::Rpi))
        A = roundToInteger(I, A);
      R = saturate(I, B.CreateFPCast(A, DV));
    } else if (isFloat(ST)) {
      if (!(I.has(Mod::Rni) || I.has(Mod::Rzi) || I.has(Mod::Rmi) || I.has(Mod::Rpi)))
        unsupported();
      // PTX saturates out-of-range values and turns NaN into 0: fptosi.sat / fptoui.sat.
      R = intrinsic(isSigned(DT) ? Intrinsic::fptosi_sat : Intrinsic::fptoui_sat,
                    {DV, A->getType()}, {roundToInteger(I, A)});
    } else if (isFloat(DT)) {
      if (!I.has(Mod::Rn) || I.has(Mod::Sat))
        unsupported();
      R = isSigned(ST) ? B.CreateSIToFP(A, DV) : B.CreateUIToFP(A, DV);
    } else {
      if (I.has(Mod::Sat)) {
        // Clamp to the destination's range first.
        unsigned DB = ir::typeBits(DT);
        llvm::Type *AT = A->getType();
        APInt Lo = isSigned(DT) ? APInt::getSignedMinValue(DB) : APInt::getMinValue(DB);
        APInt Hi = isSigned(DT) ? APInt::getSignedMaxValue(DB) : APInt::getMaxValue(DB);
        unsigned AB = AT->getIntegerBitWidth();
        if (DB < AB || isSigned(DT) != isSigned(ST)) {
          Value *LoV = ConstantInt::get(AT, isSigned(DT) ? Lo.sext(std::max(AB, DB)).trunc(AB)
                                                         : Lo.zext(std::max(AB, DB)).trunc(AB));
          Value *HiV = ConstantInt::get(AT, isSigned(DT) ? Hi.sext(std::max(AB, DB)).trunc(AB)
                                                         : Hi.zext(std::max(AB, DB)).trunc(AB));
          if (isSigned(ST)) {
            A = intrinsic(Intrinsic::smax, {AT}, {A, isSigned(DT) ? LoV : ConstantInt::get(AT, 0)});
            A = intrinsic(Intrinsic::smin, {AT}, {A, HiV});
          } else {
            A = intrinsic(Intrinsic::umin, {AT}, {A, HiV});
          }
        }
      }
      R = convert(A, DV, isSigned(ST));
    }
    // A destination wider than the type (cvt.u16 into a 32-bit register) extends by the type.
    def(I.Operands[0], R);
  }

  Value *roundToInteger(const ir::Instruction &I, Value *A) {
    Intrinsic::ID ID = I.has(Mod::Rni)   ? Intrinsic::rint
                       : I.has(Mod::Rmi) ? Intrinsic::floor
                       : I.has(Mod::Rpi) ? Intrinsic::ceil
                                         : Intrinsic::trunc;
    return intrinsic(ID, {A->getType()}, {A});
  }

  void cvta(const ir::Instruction &I) {
    ir::Type T = type0(I);
    unsigned AS = spaceOf(I);
    Value *A = get(I.Operands[1], T);
    if (AS == ASGlobal || AS == ASConst || AS == ASFlat) {
      def(I.Operands[0], A); // global and constant addresses are the same in the flat space
      return;
    }
    if (AS == ~0u)
      unsupported();
    unsigned Bits = ir::typeBits(T);
    if (I.has(Mod::To)) { // generic -> space
      Value *P = B.CreateIntToPtr(convert(A, B.getInt64Ty()), PointerType::get(S.Ctx, ASFlat));
      Value *Q = B.CreateAddrSpaceCast(P, PointerType::get(S.Ctx, AS));
      def(I.Operands[0], B.CreatePtrToInt(Q, B.getIntNTy(Bits)));
    } else { // space -> generic
      Value *P = B.CreateIntToPtr(convert(A, B.getInt32Ty()), PointerType::get(S.Ctx, AS));
      Value *Q = B.CreateAddrSpaceCast(P, PointerType::get(S.Ctx, ASFlat));
      def(I.Operands[0], B.CreatePtrToInt(Q, B.getIntNTy(Bits)));
    }
  }

  unsigned vectorWidth(const ir::Instruction &I) {
    return I.has(Mod::V2) ? 2 : I.has(Mod::V4) ? 4 : I.has(Mod::V8) ? 8 : 1;
  }

  /// Memory ordering of ld/st: plain, volatile, or atomic with a scope.
  void applyOrdering(const ir::Instruction &I, Instruction *MemOp, bool IsLoad) {
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

  void load(const ir::Instruction &I) {
    ir::Type T = type0(I);
    unsigned N = vectorWidth(I);
    Value *P = address(I.Operands[1], spaceOf(I));
    llvm::Type *ET = valueType(S.Ctx, T);
    unsigned EB = std::max(1u, ir::typeBits(T) / 8);
    llvm::Type *LT = N == 1 ? ET : FixedVectorType::get(ET, N);
    const Operand &D = I.Operands[0];
    if (N > 1 && isAtomicAccess(I)) {
      // Atomic vector accesses are atomic per element.
      if (D.K != Operand::Vector || D.Elements.size() != N)
        fail("a vector load needs a vector destination of the same width");
      for (unsigned K = 0; K < N; ++K) {
        Value *PK = B.CreateGEP(ET, P, B.getInt64(K));
        auto *LK = B.CreateAlignedLoad(ET, PK, Align(EB));
        applyOrdering(I, LK, true);
        def(D.Elements[K], convertLoaded(LK, D.Elements[K], T));
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

  static bool isAtomicAccess(const ir::Instruction &I) {
    return !I.has(Mod::Volatile) &&
           (I.has(Mod::Relaxed) || I.has(Mod::Acquire) || I.has(Mod::Release));
  }

  /// A loaded value into its register: sign-extended for signed types narrower than it.
  Value *convertLoaded(Value *V, const Operand &D, ir::Type T) {
    if (D.K != Operand::Value)
      return V;
    return convert(V, storageType(S.Ctx, F.Values[D.V].Ty), isSigned(T));
  }

  void store(const ir::Instruction &I) {
    ir::Type T = type0(I);
    unsigned N = vectorWidth(I);
    Value *P = address(I.Operands[0], spaceOf(I));
    llvm::Type *ET = valueType(S.Ctx, T);
    unsigned EB = std::max(1u, ir::typeBits(T) / 8);
    Value *V;
    if (N > 1 && isAtomicAccess(I)) {
      const Operand &A = I.Operands[1];
      if (A.K != Operand::Vector || A.Elements.size() != N)
        fail("a vector store needs a vector source of the same width");
      for (unsigned K = 0; K < N; ++K) {
        Value *EV = get(A.Elements[K], T);
        Value *PK = B.CreateGEP(ET, P, B.getInt64(K));
        applyOrdering(I, B.CreateAlignedStore(EV, PK, Align(EB)), false);
      }
      return;
    }
    if (N == 1) {
      V = get(I.Operands[1], T);
    } else {
      const Operand &A = I.Operands[1];
      if (A.K != Operand::Vector || A.Elements.size() != N)
        fail("a vector store needs a vector source of the same width");
      V = PoisonValue::get(FixedVectorType::get(ET, N));
      for (unsigned K = 0; K < N; ++K)
        V = B.CreateInsertElement(V, get(A.Elements[K], T), K);
    }
    auto *St = B.CreateAlignedStore(V, P, Align(EB * N));
    applyOrdering(I, St, false);
  }

  void atomic(const ir::Instruction &I) {
    ir::Type T = type0(I);
    bool Red = I.Op == Opcode::Red;
    size_t A0 = Red ? 0 : 1;
    if (vectorWidth(I) != 1 || I.Operands.size() < A0 + 2)
      unsupported();
    Value *P = address(I.Operands[A0], spaceOf(I));
    auto Scope = S.Ctx.getOrInsertSyncScopeID(syncScope(I));
    AtomicOrdering O = I.has(Mod::Acquire)   ? AtomicOrdering::Acquire
                       : I.has(Mod::Release) ? AtomicOrdering::Release
                       : I.has(Mod::AcqRel)  ? AtomicOrdering::AcquireRelease
                                             : AtomicOrdering::Monotonic;
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
      R = B.CreateAtomicRMW(Op, P, V, MaybeAlign(), O, Scope);
    }
    if (!Red)
      def(I.Operands[0], R);
  }

  void barrier(const ir::Instruction &I) {
    // bar.sync / barrier.sync with barrier 0 and no thread count: the workgroup barrier,
    // with the memory ordering __syncthreads promises.
    bool Sync = I.has(Mod::Sync) || (I.Op == Opcode::Bar && I.Mods.empty());
    if (I.has(Mod::Warp) || I.has(Mod::Red) || I.has(Mod::Arrive) || !Sync ||
        I.Operands.size() != 1 || I.Operands[0].K != Operand::Imm || I.Operands[0].Offset != 0)
      unsupported(); // named barriers, counts, bar.red, bar.arrive, bar.warp.sync: not yet
    auto WG = S.Ctx.getOrInsertSyncScopeID("workgroup");
    B.CreateFence(AtomicOrdering::Release, WG);
    intrinsic(Intrinsic::amdgcn_s_barrier);
    B.CreateFence(AtomicOrdering::Acquire, WG);
  }

  void call(const ir::Instruction &I) {
    // call{.uni} (ret...), f, (args...)
    size_t K = 0;
    const Operand *Rets = nullptr;
    if (K < I.Operands.size() && I.Operands[K].K == Operand::List)
      Rets = &I.Operands[K++];
    if (K >= I.Operands.size())
      fail("a call needs a callee");
    const Operand &CalleeOp = I.Operands[K++];
    FunctionType *FT;
    Value *CalleeV;
    size_t NumParams, NumReturns;
    if (CalleeOp.K == Operand::Symbol && CalleeOp.Sym.K == ir::SymbolRef::Function) {
      const ir::Function &CF = *S.PTX.Functions[CalleeOp.Sym.Index];
      if (!CF.isDefinition())
        fail(fmt::format("call to external function '{}' is not supported yet", CF.Name));
      llvm::Function *LCF = S.Functions[CalleeOp.Sym.Index];
      FT = LCF->getFunctionType();
      CalleeV = LCF;
      NumParams = CF.Params.size();
      NumReturns = CF.Returns.size();
    } else if (CalleeOp.K == Operand::Value) {
      // Indirect: `call (ret), %rd, (args), prototype;` with the function's address in %rd.
      const Operand &Last = I.Operands.back();
      if (Last.K != Operand::Symbol || Last.Sym.K != ir::SymbolRef::Prototype)
        fail("an indirect call needs a .callprototype (.calltargets lists are not supported yet)");
      const ir::CallPrototype &P = F.Prototypes[Last.Sym.Index];
      FT = deviceFunctionType(S.Ctx, P.Returns, P.Params);
      CalleeV = B.CreateIntToPtr(value(CalleeOp.V), PointerType::get(S.Ctx, ASFlat));
      NumParams = P.Params.size();
      NumReturns = P.Returns.size();
    } else {
      fail("unsupported callee");
    }
    SmallVector<Value *, 8> Args;
    if (K < I.Operands.size() && I.Operands[K].K == Operand::List) {
      const Operand &ArgList = I.Operands[K];
      if (ArgList.Elements.size() != NumParams)
        fail("argument count does not match the callee");
      for (size_t J = 0; J < ArgList.Elements.size(); ++J) {
        const Operand &A = ArgList.Elements[J];
        llvm::Type *PT = FT->getParamType(J);
        if (A.K == Operand::Symbol && A.Sym.K == ir::SymbolRef::Local)
          Args.push_back(B.CreateLoad(PT, LocalPtr[A.Sym.Index]));
        else if (A.K == Operand::Value)
          Args.push_back(convert(value(A.V), PT));
        else
          fail("unsupported call argument");
      }
    }
    if (Args.size() != NumParams)
      fail("argument count does not match the callee");
    Value *R = B.CreateCall(FT, CalleeV, Args);
    if (!Rets)
      return;
    if (Rets->Elements.size() != NumReturns)
      fail("return value count does not match the callee");
    for (size_t J = 0; J < Rets->Elements.size(); ++J) {
      Value *RV = NumReturns == 1 ? R : B.CreateExtractValue(R, J);
      const Operand &D = Rets->Elements[J];
      if (D.K == Operand::Symbol && D.Sym.K == ir::SymbolRef::Local)
        B.CreateStore(RV, LocalPtr[D.Sym.Index]);
      else if (D.K == Operand::Value)
        def(D, RV);
      else
        fail("unsupported call return operand");
    }
  }

  // ---- warp operations: 32-lane warps, two per wave on wave64 ----

  /// The 32 bits of a wave-wide ballot that belong to this lane's warp.
  Value *warpBallot(Value *Pred) {
    if (S.Target.WaveSize == 32)
      return intrinsic(Intrinsic::amdgcn_ballot, {B.getInt32Ty()}, {Pred});
    Value *Wide = intrinsic(Intrinsic::amdgcn_ballot, {B.getInt64Ty()}, {Pred});
    Value *Shift = B.CreateZExt(B.CreateAnd(laneInWave(), 32), B.getInt64Ty());
    return B.CreateTrunc(B.CreateLShr(Wide, Shift), B.getInt32Ty());
  }

  void vote(const ir::Instruction &I) {
    if (!I.has(Mod::Sync))
      unsupported();
    Value *P = get(I.Operands[1], ir::Type::Pred);
    Value *Mask = get(I.Operands[2], ir::Type::B32);
    if (I.has(Mod::Ballot)) {
      def(I.Operands[0], B.CreateAnd(warpBallot(P), Mask));
      return;
    }
    Value *Active = B.CreateAnd(warpBallot(B.getTrue()), Mask);
    Value *Yes = B.CreateAnd(warpBallot(P), Active);
    Value *Zero = B.getInt32(0);
    Value *R;
    if (I.has(Mod::Any))
      R = B.CreateICmpNE(Yes, Zero);
    else if (I.has(Mod::All))
      R = B.CreateICmpEQ(Yes, Active);
    else if (I.has(Mod::Uni)) {
      Value *None = B.CreateICmpEQ(Yes, Zero);
      R = B.CreateOr(None, B.CreateICmpEQ(Yes, Active));
    } else
      unsupported();
    def(I.Operands[0], R);
  }

  void shfl(const ir::Instruction &I) {
    // shfl.sync.mode.b32 d[|p], a, b, c, membermask
    if (!I.has(Mod::Sync) || I.Operands.size() != 4u + I.NumDefs)
      unsupported();
    size_t S0 = I.NumDefs;
    Value *A = get(I.Operands[S0], ir::Type::B32);
    Value *Bv = B.CreateAnd(get(I.Operands[S0 + 1], ir::Type::B32), 31);
    Value *C = get(I.Operands[S0 + 2], ir::Type::B32);
    Value *Lane = laneId();
    Value *CVal = B.CreateAnd(C, 31), *SegMask = B.CreateAnd(B.CreateLShr(C, 8), 31);
    Value *MinLane = B.CreateAnd(Lane, SegMask);
    Value *NotSeg = B.CreateNot(SegMask);
    Value *MaxLane = B.CreateOr(MinLane, B.CreateAnd(CVal, NotSeg));
    Value *J, *InRange;
    if (I.has(Mod::Up)) {
      J = B.CreateSub(Lane, Bv);
      InRange = B.CreateICmpSGE(J, MaxLane);
    } else if (I.has(Mod::Down)) {
      J = B.CreateAdd(Lane, Bv);
      InRange = B.CreateICmpSLE(J, MaxLane);
    } else if (I.has(Mod::Bfly)) {
      J = B.CreateXor(Lane, Bv);
      InRange = B.CreateICmpSLE(J, MaxLane);
    } else if (I.has(Mod::Idx)) {
      J = B.CreateOr(MinLane, B.CreateAnd(Bv, NotSeg));
      InRange = B.CreateICmpSLE(J, MaxLane);
    } else {
      unsupported();
    }
    J = B.CreateSelect(InRange, J, Lane);
    // The source lane inside this lane's half of a wave64: ds_bpermute takes a byte address.
    Value *WaveLane = S.Target.WaveSize == 64 ? B.CreateOr(B.CreateAnd(laneInWave(), 32), J) : J;
    Value *R = intrinsic(Intrinsic::amdgcn_ds_bpermute, {}, {B.CreateShl(WaveLane, 2), A});
    def(I.Operands[0], R);
    if (I.NumDefs == 2)
      def(I.Operands[1], InRange);
  }

  ModuleState &S;
  ir::Function &F;
  llvm::Function &LF;
  IRBuilder<> B;
  BasicBlock *Entry = nullptr;
  std::vector<BasicBlock *> Start, End;
  std::vector<Value *> Values, ParamPtr, LocalPtr;
  std::vector<std::pair<ir::ValueId, Value *>> Defs;
  const ir::Instruction *Cur = nullptr;
  Value *Carry = nullptr; ///< the carry flag of extended-precision arithmetic
};

} // namespace

void lowerBodies(ModuleState &S) {
  for (size_t K = 0; K < S.PTX.Functions.size(); ++K) {
    ir::Function &F = *S.PTX.Functions[K];
    FunctionStatus &St = S.Status[K];
    llvm::Function *LF = S.Functions[K];
    if (!F.isDefinition())
      continue; // a declaration: stays one in LLVM
    if (F.St != ir::Function::State::Built) {
      St.Diags = F.Diags; // parse or IR errors
      continue;           // LF stays a declaration; pass 4 removes it
    }
    FunctionLowerer L(S, K);
    try {
      L.run();
    } catch (const LoweringError &E) {
      L.record(E);
    }
    if (L.Problems.empty()) {
      // A lowering bug must fail this function, not the module.
      std::string Broken;
      llvm::raw_string_ostream OS(Broken);
      if (llvm::verifyFunction(*LF, &OS))
        L.record(LoweringError{F.Loc, "internal error: the lowered function does not verify: " +
                                          Broken.substr(0, Broken.find('\n'))});
    }
    if (L.Problems.empty()) {
      St.Lowered = true;
    } else {
      St.Diags = std::move(L.Problems);
      LF->deleteBody(); // a declaration while others are lowered; pass 4 removes it
    }
  }
}

} // namespace ptx2amd::lowering
