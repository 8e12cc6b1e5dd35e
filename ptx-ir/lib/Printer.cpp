#include "ptx2amd/ptx-ir/Printer.h"

#include "Tables.h"

#include <fmt/format.h>
#include <llvm/ADT/StringSet.h>

#include <algorithm>
#include <array>

namespace ptx2amd::ir {
namespace {

class Printer {
public:
  Printer(llvm::raw_ostream &OS, const Module &M, PrintMode Mode) : OS(OS), M(M), Mode(Mode) {}

  void module() {
    if (Mode == PrintMode::SSA)
      OS << "; ptx2amd IR of " << M.Source->name() << "\n";
    OS << fmt::format(".version {}.{}\n.target ", M.VersionMajor, M.VersionMinor);
    for (size_t K = 0; K < M.Target.size(); ++K)
      OS << (K ? ", " : "") << M.Target[K];
    OS << fmt::format("\n.address_size {}\n", M.AddressSize);
    for (const std::string &P : M.Pragmas)
      OS << ".pragma \"" << P << "\";\n";
    // Function declarations first: globals may be initialised with function addresses, and
    // calls may precede definitions.
    if (Mode == PrintMode::PTX)
      for (const auto &F : M.Functions)
        if (!F->IsKernel) {
          OS << "\n";
          header(*F);
          OS << ";\n";
        }
    for (const Variable &G : M.Globals) {
      OS << "\n";
      variable(G, false);
      OS << ";\n";
    }
    // In PTX mode definitions follow their source order (the forward declarations above already
    // fixed the order of Module::Functions when this output is read again).
    std::vector<const Function *> Order;
    for (const auto &F : M.Functions)
      if (Mode == PrintMode::SSA || F->IsKernel || F->isDefinition())
        Order.push_back(F.get());
    if (Mode == PrintMode::PTX)
      std::sort(Order.begin(), Order.end(), [](const Function *A, const Function *B) {
        return A->Body.offset != B->Body.offset ? A->Body.offset < B->Body.offset
                                                : A->Name < B->Name;
      });
    for (const Function *F : Order) {
      OS << "\n";
      function(*F);
    }
    for (auto &[A, B] : M.Aliases)
      OS << ".alias " << A << ", " << B << ";\n";
  }

  void function(const Function &F) {
    header(F);
    switch (F.St) {
    case Function::State::Declared:
      OS << ";\n";
      return;
    case Function::State::Unparsed:
      OS << (Mode == PrintMode::SSA ? " ; body not built\n" : "\n{\n}\n");
      return;
    case Function::State::Failed:
      if (Mode == PrintMode::SSA) {
        OS << " ; failed:\n";
        for (const Diagnostic &D : F.Diags)
          OS << ";   " << D.Message << " (" << D.Loc.line << ":" << D.Loc.column << ")\n";
      } else {
        OS << ";\n";
      }
      return;
    case Function::State::Built:
      break;
    }
    OS << "\n{\n";
    this->F = &F;
    uniqueNames();
    if (Mode == PrintMode::PTX) {
      for (size_t K = 0; K < F.Vars.size(); ++K)
        if (F.Vars[K].ParamIndex == None && F.Vars[K].ReturnIndex == None)
          OS << fmt::format("  .reg {}.{} {};\n",
                            F.Vars[K].VecWidth ? fmt::format(".v{} ", F.Vars[K].VecWidth) : "",
                            typeName(F.Vars[K].Ty), VarNames[K]);
      for (const CallPrototype &P : F.Prototypes) {
        OS << "  " << P.Name << ": .callprototype ";
        if (!P.Returns.empty())
          paramList(P.Returns);
        OS << " _ ";
        paramList(P.Params);
        OS << (P.NoReturn ? " .noreturn" : "") << ";\n";
      }
    }
    for (size_t K = 0; K < F.Locals.size(); ++K) {
      OS << "  ";
      Variable L = F.Locals[K];
      L.Name = LocalNames[K];
      variable(L, false);
      OS << ";\n";
    }
    for (const BranchTable &T : F.Tables) {
      OS << "  " << T.Name << (T.IsCallTargets ? ": .calltargets " : ": .branchtargets ");
      for (size_t K = 0; K < T.Targets.size(); ++K)
        OS << (K ? ", " : "") << T.Targets[K];
      OS << ";\n";
    }
    for (uint32_t B = 0; B < F.Blocks.size(); ++B)
      block(B);
    OS << "}\n";
    this->F = nullptr;
  }

  void header(const Function &F) {
    if (F.Link != Linkage::Internal)
      OS << "." << linkageName(F.Link) << " ";
    OS << (F.IsKernel ? ".entry " : ".func ");
    if (F.Unified)
      OS << fmt::format(".attribute(.unified({}, {})) ", F.UnifiedId[0], F.UnifiedId[1]);
    if (!F.Returns.empty()) {
      paramList(F.Returns);
      OS << " ";
    }
    OS << F.Name;
    paramList(F.Params);
    auto Dims = [&](const char *Name, const llvm::SmallVector<uint32_t, 3> &D) {
      if (D.empty())
        return;
      OS << "\n." << Name << " ";
      for (size_t K = 0; K < D.size(); ++K)
        OS << (K ? ", " : "") << D[K];
    };
    Dims("maxntid", F.MaxNTid);
    Dims("reqntid", F.ReqNTid);
    Dims("reqnctapercluster", F.ReqNCtaPerCluster);
    if (F.MinNCtaPerSm)
      OS << "\n.minnctapersm " << F.MinNCtaPerSm;
    if (F.MaxNCtaPerSm)
      OS << "\n.maxnctapersm " << F.MaxNCtaPerSm;
    if (F.MaxNReg)
      OS << "\n.maxnreg " << F.MaxNReg;
    if (F.MaxClusterRank)
      OS << "\n.maxclusterrank " << F.MaxClusterRank;
    if (F.ExplicitCluster)
      OS << "\n.explicitcluster";
    if (F.NoReturn)
      OS << "\n.noreturn";
    if (F.BlocksAreClusters)
      OS << "\n.blocksareclusters";
    if (F.AbiPreserve != None)
      OS << "\n.abi_preserve " << F.AbiPreserve;
    if (F.AbiPreserveControl != None)
      OS << "\n.abi_preserve_control " << F.AbiPreserveControl;
    for (const std::string &P : F.Pragmas)
      OS << "\n.pragma \"" << P << "\";";
  }

  void paramList(const std::vector<Variable> &Ps) {
    OS << "(";
    for (size_t K = 0; K < Ps.size(); ++K) {
      OS << (K ? ", " : "");
      variable(Ps[K], true);
    }
    OS << ")";
  }

  void variable(const Variable &V, bool IsParam) {
    if (V.Link != Linkage::Internal)
      OS << "." << linkageName(V.Link) << " ";
    OS << "." << spaceName(V.Sp);
    if (V.Managed)
      OS << " .attribute(.managed)";
    else if (V.Unified)
      OS << fmt::format(" .attribute(.unified({}, {}))", V.UnifiedId[0], V.UnifiedId[1]);
    if (V.Align)
      OS << " .align " << V.Align;
    if (V.VecWidth)
      OS << " .v" << unsigned(V.VecWidth);
    OS << " ." << typeName(V.Ty);
    if (V.IsPtr) {
      OS << " .ptr";
      if (V.PtrSpace != Space::Generic)
        OS << " ." << spaceName(V.PtrSpace);
      if (V.PtrAlign)
        OS << " .align " << V.PtrAlign;
    }
    OS << " " << V.Name;
    for (uint64_t D : V.Dims) {
      OS << "[";
      if (D)
        OS << D;
      OS << "]";
    }
    if (V.Init.K != Initializer::None) {
      OS << " = ";
      initializer(V.Init, V.Ty);
    }
    (void)IsParam;
  }

  void initializer(const Initializer &I, Type Elem) {
    switch (I.K) {
    case Initializer::None:
      break;
    case Initializer::Data: {
      OS << "{";
      for (size_t K = 0; K < I.Bytes.size(); K += I.ElemBytes) {
        uint64_t V = 0;
        for (unsigned B = 0; B < I.ElemBytes && B < 8; ++B)
          V |= uint64_t(I.Bytes[K + B]) << (8 * B);
        OS << (K ? ", " : "");
        // Floats print as their bits; a decimal integer there would mean a value.
        if (typeClass(Elem) == 'F' && I.ElemBytes == 4)
          OS << fmt::format("0f{:08X}", uint32_t(V));
        else if (typeClass(Elem) == 'F' && I.ElemBytes == 8)
          OS << fmt::format("0d{:016X}", V);
        else
          OS << V;
      }
      OS << "}";
      break;
    }
    case Initializer::Int:
      OS << I.Value;
      break;
    case Initializer::Float:
      OS << (I.ElemBytes == 4 ? fmt::format("0f{:08X}", uint32_t(I.Value))
                              : fmt::format("0d{:016X}", uint64_t(I.Value)));
      break;
    case Initializer::Symbol:
      if (I.Mask)
        OS << fmt::format("0x{:X}(", I.Mask);
      if (!I.Wrapper.empty())
        OS << I.Wrapper << "(" << I.Name << ")";
      else
        OS << I.Name;
      if (I.Value)
        OS << (I.Value > 0 ? "+" : "") << I.Value;
      if (I.Mask)
        OS << ")";
      break;
    case Initializer::List:
      OS << "{";
      for (size_t K = 0; K < I.Elements.size(); ++K) {
        OS << (K ? ", " : "");
        initializer(I.Elements[K], Elem);
      }
      OS << "}";
      break;
    case Initializer::Named:
      OS << I.Name << " = " << I.Wrapper;
      break;
    }
  }

  /// Registers and locals declared in nested scopes may share a name; printed flat, each gets a
  /// unique one.
  void uniqueNames() {
    llvm::StringSet<> Seen;
    for (const Var &V : F->Vars)
      Seen.insert(V.Name);
    for (const Variable &L : F->Locals)
      Seen.insert(L.Name);
    llvm::StringSet<> Used;
    auto Unique = [&](const std::string &N) {
      if (Used.insert(N).second)
        return N;
      for (unsigned K = 1;; ++K) {
        std::string Candidate = fmt::format("{}_{}", N, K);
        if (!Seen.count(Candidate) && Used.insert(Candidate).second)
          return Candidate;
      }
    };
    VarNames.clear();
    LocalNames.clear();
    for (const Var &V : F->Vars)
      VarNames.push_back(Unique(V.Name));
    for (const Variable &L : F->Locals)
      LocalNames.push_back(Unique(L.Name));
  }

  std::string blockName(uint32_t B) const {
    const Block &Bk = F->Blocks[B];
    return Bk.Label.empty() ? fmt::format("$__bb{}", B) : Bk.Label;
  }

  std::string value(ValueId V) const {
    const ValueInfo &VI = F->Values[V];
    if (VI.Var == None)
      return "<?>";
    const std::string &Name = VarNames[VI.Var];
    if (Mode == PrintMode::PTX)
      return Name;
    if (VI.Def == ValueInfo::Undef)
      return Name + ".undef";
    return fmt::format("{}.{}", Name, VI.Version);
  }

  void block(uint32_t B) {
    const Block &Bk = F->Blocks[B];
    bool Printed = !Bk.Label.empty() || Mode == PrintMode::SSA;
    if (Printed && !(Mode == PrintMode::PTX && B == 0)) {
      OS << blockName(B) << ":";
      if (Mode == PrintMode::SSA) {
        OS << std::string(std::max<int>(1, 24 - int(blockName(B).size())), ' ') << "; preds:";
        for (uint32_t P : Bk.Preds)
          OS << " " << blockName(P);
        if (Bk.ReturnsOrExits)
          OS << " ; exits";
      }
      OS << "\n";
    }
    if (Mode == PrintMode::SSA)
      for (const Phi &P : Bk.Phis) {
        OS << "  " << value(P.Result) << " = phi." << typeName(F->Values[P.Result].Ty);
        for (size_t K = 0; K < P.Incoming.size(); ++K)
          OS << (K ? ", [" : " [") << value(P.Incoming[K]) << ", " << blockName(Bk.Preds[K]) << "]";
        OS << ";\n";
      }
    size_t NextPragma = 0;
    for (uint32_t K = 0; K <= Bk.Insts.size(); ++K) {
      for (; NextPragma < Bk.Pragmas.size() && Bk.Pragmas[NextPragma].first == K; ++NextPragma)
        OS << "  .pragma \"" << Bk.Pragmas[NextPragma].second << "\";\n";
      if (K < Bk.Insts.size())
        instruction(Bk.Insts[K]);
    }
  }

  void instruction(const Instruction &I) {
    OS << "  ";
    if (I.Guard != None)
      OS << "@" << (I.GuardNegated ? "!" : "") << value(I.Guard) << " ";
    OS << instructionName(I);
    // The implicit use of `.reg` return values on `ret` is not PTX syntax.
    size_t Shown = I.Op == Opcode::Ret && Mode == PrintMode::PTX ? 0 : I.Operands.size();
    for (size_t K = 0; K < Shown; ++K) {
      const Operand &O = I.Operands[K];
      OS << (K == 0 ? " " : O.AfterPipe ? "|" : ", ");
      operand(O);
    }
    OS << ";";
    if (Mode == PrintMode::SSA && !I.Prior.empty()) {
      OS << " // prior:";
      for (ValueId V : I.Prior)
        OS << " " << value(V);
    }
    OS << "\n";
  }

  void symbol(const SymbolRef &S) {
    switch (S.K) {
    case SymbolRef::Global:
      OS << M.Globals[S.Index].Name;
      break;
    case SymbolRef::Function:
      OS << M.Functions[S.Index]->Name;
      break;
    case SymbolRef::Local:
      OS << LocalNames[S.Index];
      break;
    case SymbolRef::Param:
      OS << (S.Index < F->Params.size() ? F->Params[S.Index].Name
                                        : F->Returns[S.Index - F->Params.size()].Name);
      break;
    case SymbolRef::Label:
      OS << blockName(S.Index);
      break;
    case SymbolRef::BranchTable:
      OS << F->Tables[S.Index].Name;
      break;
    case SymbolRef::Prototype:
      OS << F->Prototypes[S.Index].Name;
      break;
    case SymbolRef::Unresolved:
      OS << "<unresolved>";
      break;
    }
  }

  void offset(int64_t Off) {
    if (Off != 0)
      OS << "+" << Off; // `[%rd1+-8]`, as nvcc writes it
  }

  void operand(const Operand &O) {
    switch (O.K) {
    case Operand::Value:
      if (O.Negated)
        OS << (F->Values[O.V].Ty == Type::Pred ? "!" : "-");
      OS << value(O.V);
      if (O.Component)
        OS << "."
           << "xyzw"[(O.Component - 1) & 3];
      if (O.Select) {
        OS << ((O.Select & 0x8000) ? ".h" : ".b");
        unsigned N = (O.Select >> 12) & 7;
        for (unsigned K = N; K-- > 0;)
          OS << ((O.Select >> (3 * K)) & 7);
      }
      break;
    case Operand::Imm:
      OS << O.Offset;
      break;
    case Operand::FImm:
      OS << (O.FBits == 32 ? fmt::format("0f{:08X}", uint32_t(O.Offset))
                           : fmt::format("0d{:016X}", uint64_t(O.Offset)));
      break;
    case Operand::Symbol:
      symbol(O.Sym);
      offset(O.Offset);
      break;
    case Operand::Address:
      OS << "[";
      if (O.V != None) {
        OS << value(O.V);
        offset(O.Offset);
      } else if (O.Sym.K != SymbolRef::Unresolved) {
        symbol(O.Sym);
        offset(O.Offset);
      } else {
        OS << O.Offset;
      }
      for (const Operand &E : O.Elements) {
        OS << ", ";
        operand(E);
      }
      OS << (O.Unified ? "].unified" : "]");
      break;
    case Operand::Vector:
    case Operand::List:
      OS << (O.K == Operand::Vector ? "{" : "(");
      for (size_t K = 0; K < O.Elements.size(); ++K) {
        OS << (K ? ", " : "");
        operand(O.Elements[K]);
      }
      OS << (O.K == Operand::Vector ? "}" : ")");
      break;
    case Operand::Special:
      if (O.SReg == SpecialReg::WarpSz) {
        OS << "WARP_SZ";
        break;
      }
      if (O.SReg == SpecialReg::Pm64) {
        OS << "%pm" << unsigned(O.Component) << "_64";
        break;
      }
      OS << "%" << specialRegName(O.SReg);
      if (O.SReg == SpecialReg::Envreg || O.SReg == SpecialReg::Pm)
        OS << unsigned(O.Component);
      else if (O.SReg == SpecialReg::ReservedSmem)
        OS << "_" << ReservedSmemNames[O.Component % 5];
      else if (O.SReg == SpecialReg::Tid || O.SReg == SpecialReg::Ntid ||
               O.SReg == SpecialReg::Ctaid || O.SReg == SpecialReg::Nctaid ||
               O.SReg == SpecialReg::ClusterId || O.SReg == SpecialReg::Nclusterid ||
               O.SReg == SpecialReg::ClusterCtaid || O.SReg == SpecialReg::ClusterNctaid)
        OS << "."
           << "xyzw"[O.Component & 3];
      break;
    case Operand::Sink:
      OS << "_";
      break;
    }
  }

  llvm::raw_ostream &OS;
  const Module &M;
  PrintMode Mode;
  const Function *F = nullptr;
  std::vector<std::string> VarNames, LocalNames;
};

} // namespace

std::string instructionName(const Instruction &I) {
  std::string S(opcodeName(I.Op));
  size_t M = 0, T = 0;
  for (unsigned Slot = 0; M < I.Mods.size() || T < I.Types.size(); ++Slot) {
    S += ".";
    bool IsType = Slot < 32 ? (I.TypeSlots >> Slot & 1) : M >= I.Mods.size();
    if ((IsType && T < I.Types.size()) || M >= I.Mods.size())
      S += typeName(I.Types[T++]);
    else
      S += modifierSpelling(I.Mods[M++]);
  }
  return S;
}

void printModule(llvm::raw_ostream &OS, const Module &M, PrintMode Mode) {
  Printer(OS, M, Mode).module();
}

void printFunction(llvm::raw_ostream &OS, const Module &M, const Function &F, PrintMode Mode) {
  Printer(OS, M, Mode).function(F);
}

} // namespace ptx2amd::ir
