// SSA construction for PTX registers, after Braun et al., "Simple and Efficient Construction of
// Static Single Assignment Form" (CC 2013), without recursion: phi operands are filled from a
// worklist, so deep CFGs cannot overflow the stack. Trivial phis are removed afterwards.
#include "Builder.h"

#include <llvm/ADT/DenseMap.h>

namespace ptx2amd::ir {
namespace {

class SSABuilder {
public:
  explicit SSABuilder(Function &F)
      : F(F), N(static_cast<uint32_t>(F.Blocks.size())), Defs(N), Sealed(N, false),
        Filled(N, false), Incomplete(N), UndefOf(F.Vars.size(), None) {}

  void run() {
    for (VarId V = 0; V < F.Vars.size(); ++V)
      if (F.Vars[V].ParamIndex != None)
        write(0, V, newValue(V, ValueInfo::Arg, 0, F.Vars[V].ParamIndex));
    for (uint32_t B = 0; B < N; ++B) {
      trySeal(B);
      Block &Bk = F.Blocks[B];
      for (uint32_t K = 0; K < Bk.Insts.size(); ++K)
        rename(B, K);
      Filled[B] = true;
      for (uint32_t S : F.Blocks[B].Succs)
        trySeal(S);
    }
    for (uint32_t B = 0; B < N; ++B)
      if (!Sealed[B])
        seal(B);
    drain();
    removeTrivialPhis();
  }

private:
  ValueId newValue(VarId V, ValueInfo::DefKind Kind, uint32_t Block, uint32_t Index) {
    ValueInfo VI;
    VI.Ty = F.Vars[V].Ty;
    VI.Def = Kind;
    VI.Var = V;
    VI.Version = Kind == ValueInfo::Undef ? 0 : ++Versions[V];
    VI.Block = Block;
    VI.Index = Index;
    F.Values.push_back(VI);
    return static_cast<ValueId>(F.Values.size() - 1);
  }

  ValueId undef(VarId V) {
    if (UndefOf[V] == None)
      UndefOf[V] = newValue(V, ValueInfo::Undef, None, None);
    return UndefOf[V];
  }

  ValueId newPhi(uint32_t B, VarId V) {
    Block &Bk = F.Blocks[B];
    ValueId R = newValue(V, ValueInfo::PhiDef, B, static_cast<uint32_t>(Bk.Phis.size()));
    Phi P;
    P.Result = R;
    P.Var = V;
    Bk.Phis.push_back(P);
    return R;
  }

  void write(uint32_t B, VarId V, ValueId X) { Defs[B][V] = X; }

  ValueId read(uint32_t B, VarId V) {
    // Walk single-predecessor chains iteratively; a phi stops the walk.
    llvm::SmallVector<uint32_t, 8> Path;
    ValueId X = None;
    uint32_t Cur = B;
    for (uint32_t Steps = 0;; ++Steps) {
      auto It = Defs[Cur].find(V);
      if (It != Defs[Cur].end()) {
        X = It->second;
        break;
      }
      const Block &Bk = F.Blocks[Cur];
      if (!Sealed[Cur]) {
        X = newPhi(Cur, V);
        Incomplete[Cur].push_back(F.Blocks[Cur].Phis.size() - 1);
        write(Cur, V, X);
        break;
      }
      if (Bk.Preds.empty() || Steps > N) {
        X = undef(V);
        break;
      }
      if (Bk.Preds.size() == 1) {
        Path.push_back(Cur);
        Cur = Bk.Preds[0];
        continue;
      }
      X = newPhi(Cur, V);
      write(Cur, V, X);
      Work.push_back({Cur, static_cast<uint32_t>(F.Blocks[Cur].Phis.size() - 1)});
      break;
    }
    for (uint32_t P : Path)
      write(P, V, X);
    if (Cur != B || Path.empty())
      write(B, V, X);
    return X;
  }

  void trySeal(uint32_t B) {
    if (Sealed[B])
      return;
    for (uint32_t P : F.Blocks[B].Preds)
      if (!Filled[P])
        return;
    seal(B);
  }

  void seal(uint32_t B) {
    Sealed[B] = true;
    for (uint32_t PhiIdx : Incomplete[B])
      Work.push_back({B, PhiIdx});
    Incomplete[B].clear();
    drain();
  }

  void drain() {
    while (!Work.empty()) {
      auto [B, PhiIdx] = Work.back();
      Work.pop_back();
      VarId V = F.Blocks[B].Phis[PhiIdx].Var;
      llvm::SmallVector<ValueId, 4> In;
      for (uint32_t P : F.Blocks[B].Preds)
        In.push_back(read(P, V));
      F.Blocks[B].Phis[PhiIdx].Incoming.assign(In.begin(), In.end());
    }
  }

  void useOperand(uint32_t B, Operand &O) {
    if (O.K == Operand::Value)
      O.V = read(B, O.V);
    else if (O.K == Operand::Address && O.V != None)
      O.V = read(B, O.V);
    for (Operand &E : O.Elements)
      useOperand(B, E);
  }

  void defOperand(uint32_t B, uint32_t K, Operand &O, Instruction &I, bool NeedPrior) {
    if (O.K == Operand::Value) {
      VarId V = O.V;
      if (NeedPrior)
        I.Prior.push_back(read(B, V));
      O.V = newValue(V, ValueInfo::Inst, B, K);
      write(B, V, O.V);
    }
    for (Operand &E : O.Elements)
      defOperand(B, K, E, I, NeedPrior);
  }

  static bool writesElement(const Operand &O) {
    if (O.K == Operand::Value && O.Component != 0)
      return true;
    for (const Operand &E : O.Elements)
      if (writesElement(E))
        return true;
    return false;
  }

  void rename(uint32_t B, uint32_t K) {
    Instruction &I = F.Blocks[B].Insts[K];
    for (uint32_t J = I.NumDefs; J < I.Operands.size(); ++J)
      useOperand(B, I.Operands[J]);
    if (I.Guard != None)
      I.Guard = read(B, I.Guard);
    // A guarded write keeps the old value when the guard is false; wgmma accumulates into its
    // destination. Both read the register before writing it.
    // Writing one element of a vector register keeps the others.
    bool NeedPrior = I.Guard != None || I.Op == Opcode::Wgmma;
    for (uint32_t J = 0; J < I.NumDefs; ++J)
      NeedPrior |= writesElement(I.Operands[J]);
    for (uint32_t J = 0; J < I.NumDefs; ++J)
      defOperand(B, K, I.Operands[J], I, NeedPrior);
  }

  void removeTrivialPhis() {
    std::vector<ValueId> Repl(F.Values.size(), None);
    auto Resolve = [&](ValueId V) {
      while (V != None && V < Repl.size() && Repl[V] != None)
        V = Repl[V];
      return V;
    };
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (Block &Bk : F.Blocks)
        for (Phi &P : Bk.Phis) {
          if (Repl[P.Result] != None)
            continue;
          ValueId Same = None;
          bool Trivial = true;
          for (ValueId In : P.Incoming) {
            In = Resolve(In);
            if (In == P.Result || In == Same)
              continue;
            if (Same != None) {
              Trivial = false;
              break;
            }
            Same = In;
          }
          if (!Trivial)
            continue;
          Repl[P.Result] = Same == None ? undef(P.Var) : Same;
          if (Repl.size() < F.Values.size())
            Repl.resize(F.Values.size(), None);
          Changed = true;
        }
    }
    auto Fix = [&](ValueId &V) { V = Resolve(V); };
    auto FixOperand = [&](Operand &O, auto &Self) -> void {
      if (O.K == Operand::Value || (O.K == Operand::Address && O.V != None))
        Fix(O.V);
      for (Operand &E : O.Elements)
        Self(E, Self);
    };
    for (uint32_t B = 0; B < N; ++B) {
      Block &Bk = F.Blocks[B];
      std::vector<Phi> Kept;
      for (Phi &P : Bk.Phis) {
        if (Repl[P.Result] != None)
          continue;
        for (ValueId &In : P.Incoming)
          Fix(In);
        F.Values[P.Result].Index = static_cast<uint32_t>(Kept.size());
        Kept.push_back(std::move(P));
      }
      Bk.Phis = std::move(Kept);
      for (Instruction &I : Bk.Insts) {
        for (uint32_t J = I.NumDefs; J < I.Operands.size(); ++J)
          FixOperand(I.Operands[J], FixOperand);
        if (I.Guard != None)
          Fix(I.Guard);
        for (ValueId &V : I.Prior)
          Fix(V);
      }
    }
    // Removed phis stay in F.Values (ids are stable) but define nothing.
    for (ValueId V = 0; V < Repl.size(); ++V)
      if (Repl[V] != None)
        F.Values[V].Def = ValueInfo::Undef, F.Values[V].Block = None, F.Values[V].Index = None;
    renumberVersions();
  }

  /// Versions count the definitions of a register in program order, without the gaps that
  /// removed phis leave, so that printed names are dense and stable.
  void renumberVersions() {
    std::vector<uint32_t> Next(F.Vars.size(), 0);
    auto Number = [&](ValueId V) { F.Values[V].Version = ++Next[F.Values[V].Var]; };
    for (ValueId V = 0; V < F.Values.size(); ++V)
      if (F.Values[V].Def == ValueInfo::Arg)
        Number(V);
    auto Defs = [&](const Operand &O, auto &Self) -> void {
      if (O.K == Operand::Value)
        Number(O.V);
      for (const Operand &E : O.Elements)
        Self(E, Self);
    };
    for (const Block &Bk : F.Blocks) {
      for (const Phi &P : Bk.Phis)
        Number(P.Result);
      for (const Instruction &I : Bk.Insts)
        for (uint32_t J = 0; J < I.NumDefs; ++J)
          Defs(I.Operands[J], Defs);
    }
  }

  Function &F;
  uint32_t N;
  std::vector<llvm::DenseMap<VarId, ValueId>> Defs;
  std::vector<bool> Sealed, Filled;
  std::vector<std::vector<uint32_t>> Incomplete;
  std::vector<std::pair<uint32_t, uint32_t>> Work;
  std::vector<ValueId> UndefOf;
  llvm::DenseMap<VarId, uint32_t> Versions;
};

} // namespace

void constructSSA(Function &F) { SSABuilder(F).run(); }

} // namespace ptx2amd::ir
