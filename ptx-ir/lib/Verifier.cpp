#include "ptx2amd/ptx-ir/Verifier.h"

#include <fmt/format.h>

namespace ptx2amd::ir {
namespace {

class Verifier {
public:
  Verifier(const Module &M, const Function &F) : M(M), F(F) {}

  std::vector<Diagnostic> run() {
    if (F.St != Function::State::Built)
      return {};
    uint32_t N = static_cast<uint32_t>(F.Blocks.size());
    if (N == 0) {
      fail({}, "function has no blocks");
      return Diags;
    }
    if (!F.Blocks[0].Preds.empty())
      fail(F.Loc, "the entry block has predecessors");
    computeDominators();
    std::vector<uint32_t> DefCount(F.Values.size(), 0);
    for (uint32_t B = 0; B < N; ++B) {
      const Block &Bk = F.Blocks[B];
      for (uint32_t S : Bk.Succs) {
        if (S >= N) {
          fail(F.Loc, fmt::format("block {} has successor {} out of range", B, S));
          continue;
        }
        const auto &Ps = F.Blocks[S].Preds;
        if (std::count(Ps.begin(), Ps.end(), B) != 1)
          fail(F.Loc,
               fmt::format("block {} is not listed once among the predecessors of {}", B, S));
      }
      for (uint32_t K = 0; K < Bk.Phis.size(); ++K) {
        const Phi &P = Bk.Phis[K];
        if (!checkValue(P.Result, F.Loc))
          continue;
        ++DefCount[P.Result];
        const ValueInfo &VI = F.Values[P.Result];
        if (VI.Def != ValueInfo::PhiDef || VI.Block != B || VI.Index != K)
          fail(F.Loc,
               fmt::format("phi {} in block {} is not recorded as its definition", P.Result, B));
        if (P.Incoming.size() != Bk.Preds.size()) {
          fail(F.Loc, fmt::format("phi in block {} has {} incoming values for {} predecessors", B,
                                  P.Incoming.size(), Bk.Preds.size()));
          continue;
        }
        for (size_t J = 0; J < P.Incoming.size(); ++J)
          if (checkValue(P.Incoming[J], F.Loc) && F.Values[P.Incoming[J]].Ty != VI.Ty)
            fail(F.Loc, fmt::format("phi in block {} merges values of different types", B));
          else if (P.Incoming[J] < F.Values.size())
            checkDominates(P.Incoming[J], Bk.Preds[J], UINT32_MAX, F.Loc);
      }
      for (uint32_t K = 0; K < Bk.Insts.size(); ++K) {
        const Instruction &I = Bk.Insts[K];
        if (I.NumDefs > I.Operands.size())
          fail(I.Loc, "more destinations than operands");
        if (I.Guard != None) {
          if (checkValue(I.Guard, I.Loc)) {
            if (F.Values[I.Guard].Ty != Type::Pred)
              fail(I.Loc, "guard is not a predicate");
            checkDominates(I.Guard, B, K, I.Loc);
          }
        }
        for (ValueId V : I.Prior)
          if (checkValue(V, I.Loc))
            checkDominates(V, B, K, I.Loc);
        for (uint32_t J = 0; J < I.Operands.size(); ++J)
          operand(I.Operands[J], J < I.NumDefs, B, K, I, DefCount);
        bool Last = K + 1 == Bk.Insts.size();
        bool Term = (I.Op == Opcode::Bra || I.Op == Opcode::Brx || I.Op == Opcode::Ret ||
                     I.Op == Opcode::Exit);
        if (Term && !Last)
          fail(I.Loc, "branch or return in the middle of a block");
      }
    }
    for (ValueId V = 0; V < F.Values.size(); ++V) {
      const ValueInfo &VI = F.Values[V];
      bool Defined = VI.Def == ValueInfo::Inst || (VI.Def == ValueInfo::PhiDef);
      if (Defined && DefCount[V] != 1)
        fail(F.Loc, fmt::format("value {} is defined {} times", V, DefCount[V]));
    }
    return Diags;
  }

private:
  void fail(SourceLoc L, std::string Msg) {
    if (Diags.size() >= 20)
      return;
    Diagnostic D;
    D.File = M.Source->name();
    D.Loc = L;
    D.Function = F.Name;
    D.Message = "verifier: " + std::move(Msg);
    Diags.push_back(std::move(D));
  }

  bool checkValue(ValueId V, SourceLoc L) {
    if (V >= F.Values.size()) {
      fail(L, fmt::format("value {} out of range", V));
      return false;
    }
    if (F.Values[V].Var >= F.Vars.size()) {
      fail(L, fmt::format("value {} has no register", V));
      return false;
    }
    return true;
  }

  void operand(const Operand &O, bool IsDef, uint32_t B, uint32_t K, const Instruction &I,
               std::vector<uint32_t> &DefCount) {
    switch (O.K) {
    case Operand::Value:
      if (!checkValue(O.V, I.Loc))
        return;
      if (IsDef) {
        ++DefCount[O.V];
        const ValueInfo &VI = F.Values[O.V];
        if (VI.Def != ValueInfo::Inst || VI.Block != B || VI.Index != K)
          fail(I.Loc, fmt::format("value {} is not recorded as defined here", O.V));
      } else {
        checkDominates(O.V, B, K, I.Loc);
      }
      return;
    case Operand::Address:
      if (IsDef)
        fail(I.Loc, "an address cannot be a destination");
      if (O.V != None && checkValue(O.V, I.Loc))
        checkDominates(O.V, B, K, I.Loc);
      break;
    case Operand::Symbol:
      checkSymbol(O.Sym, I.Loc);
      break;
    case Operand::Vector:
    case Operand::List:
      break;
    default:
      if (IsDef && O.K != Operand::Sink)
        fail(I.Loc, "a destination must be a register");
      break;
    }
    if (O.K == Operand::Address && O.Sym.K != SymbolRef::Unresolved)
      checkSymbol(O.Sym, I.Loc);
    for (const Operand &E : O.Elements)
      operand(E, IsDef && (O.K == Operand::Vector || O.K == Operand::List), B, K, I, DefCount);
  }

  void checkSymbol(const SymbolRef &S, SourceLoc L) {
    size_t Limit = 0;
    switch (S.K) {
    case SymbolRef::Global:
      Limit = M.Globals.size();
      break;
    case SymbolRef::Function:
      Limit = M.Functions.size();
      break;
    case SymbolRef::Local:
      Limit = F.Locals.size();
      break;
    case SymbolRef::Param:
      Limit = F.Params.size() + F.Returns.size();
      break;
    case SymbolRef::Label:
      Limit = F.Blocks.size();
      break;
    case SymbolRef::BranchTable:
      Limit = F.Tables.size();
      break;
    case SymbolRef::Prototype:
      Limit = F.Prototypes.size();
      break;
    case SymbolRef::Unresolved:
      break;
    }
    if (S.Index >= Limit)
      fail(L, "symbol reference out of range");
  }

  /// Does the definition of V dominate position (B, K)? K = UINT32_MAX means the end of B.
  void checkDominates(ValueId V, uint32_t B, uint32_t K, SourceLoc L) {
    const ValueInfo &VI = F.Values[V];
    if (VI.Def == ValueInfo::Undef || VI.Def == ValueInfo::Arg)
      return;
    if (Idom[B] == None)
      return; // unreachable code: no dominance to check
    if (VI.Block == B) {
      if (VI.Def == ValueInfo::PhiDef || VI.Index < K)
        return;
      fail(L, fmt::format("use of value {} before its definition", V));
      return;
    }
    for (uint32_t X = B; X != 0 && Idom[X] != X;) {
      X = Idom[X];
      if (X == VI.Block)
        return;
      if (X == 0)
        break;
    }
    if (VI.Block == 0)
      return;
    fail(L, fmt::format("definition of {} does not dominate its use", V));
  }

  void computeDominators() {
    // Cooper, Harvey, Kennedy: "A Simple, Fast Dominance Algorithm".
    uint32_t N = static_cast<uint32_t>(F.Blocks.size());
    std::vector<uint32_t> Order, PostNum(N, None);
    std::vector<std::pair<uint32_t, uint32_t>> Stack{{0, 0}};
    std::vector<bool> Seen(N, false);
    Seen[0] = true;
    while (!Stack.empty()) {
      auto &[B, I] = Stack.back();
      if (I < F.Blocks[B].Succs.size()) {
        uint32_t S = F.Blocks[B].Succs[I++];
        if (S < N && !Seen[S]) {
          Seen[S] = true;
          Stack.push_back({S, 0});
        }
        continue;
      }
      PostNum[B] = static_cast<uint32_t>(Order.size());
      Order.push_back(B);
      Stack.pop_back();
    }
    Idom.assign(N, None);
    Idom[0] = 0;
    auto Intersect = [&](uint32_t A, uint32_t B) {
      while (A != B) {
        while (PostNum[A] < PostNum[B])
          A = Idom[A];
        while (PostNum[B] < PostNum[A])
          B = Idom[B];
      }
      return A;
    };
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (auto It = Order.rbegin(); It != Order.rend(); ++It) {
        uint32_t B = *It;
        if (B == 0)
          continue;
        uint32_t New = None;
        for (uint32_t P : F.Blocks[B].Preds)
          if (Idom[P] != None)
            New = New == None ? P : Intersect(P, New);
        if (New != None && Idom[B] != New) {
          Idom[B] = New;
          Changed = true;
        }
      }
    }
  }

  const Module &M;
  const Function &F;
  std::vector<uint32_t> Idom;
  std::vector<Diagnostic> Diags;
};

} // namespace

std::vector<Diagnostic> verifyFunction(const Module &M, const Function &F) {
  return Verifier(M, F).run();
}

} // namespace ptx2amd::ir
