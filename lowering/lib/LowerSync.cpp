// Barriers and calls.
#include "FunctionLowerer.h"

#include "ptx2amd/ptx-ir/Printer.h"

#include <fmt/format.h>

using namespace llvm;

namespace ptx2amd::lowering {
using ir::Mod;
using ir::Opcode;
using ir::Operand;

/// bar.warp.sync: the lanes of a warp execute in lock step inside a wave; order their memory.
void FunctionLowerer::warpSync(const ir::Instruction &) {
  auto Wave = S.Ctx.getOrInsertSyncScopeID("wavefront");
  B.CreateFence(AtomicOrdering::Release, Wave);
  intrinsic(Intrinsic::amdgcn_wave_barrier);
  B.CreateFence(AtomicOrdering::Acquire, Wave);
}

void FunctionLowerer::barrier(const ir::Instruction &I) {
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

void FunctionLowerer::call(const ir::Instruction &I) {
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

} // namespace ptx2amd::lowering
