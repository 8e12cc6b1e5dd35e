// Pass 3: function bodies, instruction by instruction. The instruction families are in
// Lower*.cpp; this file walks the blocks, keeps the SSA values and applies guards.
#include "FunctionLowerer.h"

#include "ptx2amd/ptx-ir/Printer.h"

#include <fmt/format.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

using namespace llvm;

namespace ptx2amd::lowering {
using ir::Mod;
using ir::Opcode;
using ir::Operand;

StringRef syncScope(const ir::Instruction &I) {
  if (I.has(Mod::Cta))
    return "workgroup";
  if (I.has(Mod::Sys))
    return "";
  return "agent"; // .gpu, .cluster, .gl and the default
}

FunctionLowerer::FunctionLowerer(ModuleState &S, size_t Index)
    : S(S), F(*S.PTX.Functions[Index]), LF(*S.Functions[Index]), B(S.Ctx) {}

void FunctionLowerer::run() {
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

void FunctionLowerer::record(const LoweringError &E) {
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

void FunctionLowerer::defineAsUndefined(const ir::Instruction &I) {
  auto Define = [&](const Operand &O, auto &Self) -> void {
    if (O.K == Operand::Value && !Values[O.V])
      Values[O.V] = UndefValue::get(storageType(S.Ctx, F.Values[O.V].Ty));
    for (const Operand &E : O.Elements)
      Self(E, Self);
  };
  for (uint32_t J = 0; J < I.NumDefs; ++J)
    Define(I.Operands[J], Define);
}

[[noreturn]] void FunctionLowerer::fail(std::string Message) {
  throw LoweringError{Cur ? Cur->Loc : F.Loc, std::move(Message)};
}

[[noreturn]] void FunctionLowerer::unsupported() {
  fail(fmt::format("'{}' is not supported yet", ir::instructionName(*Cur)));
}

std::string FunctionLowerer::varName(ir::ValueId V) const {
  const ir::ValueInfo &VI = F.Values[V];
  return VI.Var == ir::None
             ? ""
             : fmt::format("{}.{}", F.Vars[VI.Var].Name.substr(F.Vars[VI.Var].Name[0] == '%'),
                           VI.Version);
}

std::vector<size_t> FunctionLowerer::blockOrder() const {
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
void FunctionLowerer::setUpMemory() {
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
    llvm::Type *T = F.Returns.size() == 1 ? LF.getReturnType()
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

void FunctionLowerer::createReturn() {
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
Value *FunctionLowerer::value(ir::ValueId V) {
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
Value *FunctionLowerer::convert(Value *V, llvm::Type *T, bool Signed) {
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
Value *FunctionLowerer::get(const Operand &O, ir::Type T) {
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
void FunctionLowerer::def(const Operand &O, Value *V) {
  if (O.K == Operand::Sink)
    return;
  if (O.K != Operand::Value || O.Component || O.Select)
    fail("unsupported destination operand");
  Defs.push_back({O.V, convert(V, storageType(S.Ctx, F.Values[O.V].Ty))});
}

/// A register operand as its own storage value (no conversion to an instruction type).
Value *FunctionLowerer::getRaw(const Operand &O) {
  if (O.K == Operand::Value && !O.Component && !O.Select && !O.Negated)
    return value(O.V);
  if (O.K == Operand::Imm)
    return B.getInt64(O.Offset);
  fail("unsupported vector element");
}

// ---- special registers ----
Value *FunctionLowerer::intrinsic(Intrinsic::ID ID, ArrayRef<llvm::Type *> Types,
                                  ArrayRef<Value *> Args) {
  return B.CreateIntrinsic(ID, Types, Args);
}

// ---- instructions ----
bool FunctionLowerer::hasSideEffects(ir::Opcode Op) {
  switch (ir::opcodeInfo(Op).Fam) {
  case ir::Family::IntArith:
  case ir::Family::FloatArith:
  case ir::Family::Compare:
  case ir::Family::Logic:
  case ir::Family::Convert:
  case ir::Family::Video:
    return false;
  default:
    return !(Op == Opcode::Mov || Op == Opcode::Cvta || Op == Opcode::Prmt ||
             Op == Opcode::Isspacep || Op == Opcode::Prefetch || Op == Opcode::Prefetchu);
  }
}

void FunctionLowerer::instruction(const ir::Instruction &I, size_t Block) {
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

void FunctionLowerer::terminator(const ir::Instruction &I, size_t Block) {
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

ir::Type FunctionLowerer::type0(const ir::Instruction &I) {
  if (I.Types.empty())
    unsupported();
  return I.Types[0];
}

void FunctionLowerer::lower(const ir::Instruction &I) {
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
  case Opcode::Mul24:
  case Opcode::Mad24:
    return mul24(I);
  case Opcode::Sad:
    return sad(I);
  case Opcode::Fns:
    return fns(I);
  case Opcode::Bmsk:
    return bmsk(I);
  case Opcode::Szext:
    return szext(I);
  case Opcode::Addc:
  case Opcode::Subc:
  case Opcode::Madc:
    return carry(I);
  case Opcode::Setp:
    return setp(I);
  case Opcode::Set:
    return set(I);
  case Opcode::Slct:
    return slct(I);
  case Opcode::Testp:
    return testp(I);
  case Opcode::Tanh:
    return tanh(I);
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
    if (I.has(Mod::Cluster))
      return clusterBarrier(I);
    return barrier(I);
  case Opcode::Mapa:
    return mapa(I);
  case Opcode::Griddepcontrol:
    return; // LowerCluster.cpp: launches are stream-ordered
  case Opcode::Membar:
  case Opcode::Fence:
    // fence.proxy.async orders the async proxy's accesses with this thread's: the bulk copies
    // run in the issuing thread, so an ordinary fence does (one of the block for its shared
    // memory).
    if (I.Op == Opcode::Fence && ((I.has(Mod::Proxy) && !I.has(Mod::Async)) || I.has(Mod::Extra)))
      unsupported();
    B.CreateFence(AtomicOrdering::SequentiallyConsistent,
                  S.Ctx.getOrInsertSyncScopeID(I.has(Mod::Proxy) &&
                                                       (I.has(Mod::Shared) || I.has(Mod::SharedCta))
                                                   ? "workgroup"
                                                   : syncScope(I)));
    return;
  case Opcode::Call:
    return call(I);
  case Opcode::Shfl:
    return shfl(I);
  case Opcode::Vote:
    return vote(I);
  case Opcode::Match:
    return match(I);
  case Opcode::Elect:
    return elect(I);
  case Opcode::Isspacep:
    return isspacep(I);
  case Opcode::Tex:
  case Opcode::Tld4:
    return texture(I);
  case Opcode::Txq:
    return textureQuery(I);
  case Opcode::Istypep:
    return istypep(I);
  case Opcode::Suld:
  case Opcode::Sust:
  case Opcode::Sured:
    return surface(I);
  case Opcode::Suq:
    return surfaceQuery(I);

  case Opcode::Prefetch:
  case Opcode::Prefetchu:
    return; // hints only
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
    if (I.has(Mod::Bulk) || I.has(Mod::Mbarrier))
      return asyncBulk(I);
    return asyncCopy(I);
  case Opcode::Mbarrier:
    return mbarrier(I);
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
  case Opcode::Vadd:
  case Opcode::Vsub:
  case Opcode::Vabsdiff:
  case Opcode::Vmin:
  case Opcode::Vmax:
  case Opcode::Vshl:
  case Opcode::Vshr:
  case Opcode::Vset:
    return video(I);
  case Opcode::Vmad:
    return videoMad(I);
  case Opcode::Vadd2:
  case Opcode::Vsub2:
  case Opcode::Vavrg2:
  case Opcode::Vabsdiff2:
  case Opcode::Vmin2:
  case Opcode::Vmax2:
  case Opcode::Vset2:
  case Opcode::Vadd4:
  case Opcode::Vsub4:
  case Opcode::Vavrg4:
  case Opcode::Vabsdiff4:
  case Opcode::Vmin4:
  case Opcode::Vmax4:
  case Opcode::Vset4:
    return videoSimd(I);
  case Opcode::MmaOp:
    return mma(I);
  case Opcode::Wmma:
    return wmma(I);
  case Opcode::Ldmatrix:
  case Opcode::Stmatrix:
  case Opcode::Movmatrix:
    return matrixMove(I);
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

void FunctionLowerer::mov(const ir::Instruction &I) {
  ir::Type T = type0(I);
  const Operand &D = I.Operands[0], &A = I.Operands[1];
  unsigned Bits = ir::typeBits(T);
  if (D.K == Operand::Vector) { // unpack
    Value *Src = get(A, T);
    unsigned N = D.Elements.size(), EB = Bits / N;
    Value *Vec =
        B.CreateBitCast(convert(Src, B.getIntNTy(Bits)), FixedVectorType::get(B.getIntNTy(EB), N));
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
