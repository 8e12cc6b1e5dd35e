// Function bodies: local declarations, instructions and their operands, labels and the CFG; then
// SSA construction.
#include "Builder.h"
#include "Declarations.h"

#include <map>

namespace ptx2amd::ir {

using namespace build;

namespace {

class BodyBuilder : public DeclBuilder {
public:
  BodyBuilder(const Module &M, Function &F, std::string_view Whole)
      : DeclBuilder(Whole), M(M), F(F) {}

  void run(PtxParser::FunctionBodyContext *Body) {
    F.Blocks.emplace_back(); // entry block, never the target of a label
    for (size_t K = 0; K < F.Params.size(); ++K) {
      if (F.Params[K].Sp == Space::Reg) {
        addReg(F.Params[K].Name, F.Params[K], F.Params[K].Loc);
        F.Vars.back().ParamIndex = static_cast<uint32_t>(K);
        continue;
      }
      declare(F.Params[K].Name, {Entry::Param, static_cast<uint32_t>(K)}, F.Params[K].Loc);
    }
    for (size_t K = 0; K < F.Returns.size(); ++K) {
      uint32_t Index = static_cast<uint32_t>(F.Params.size() + K);
      if (F.Returns[K].Sp == Space::Reg) {
        addReg(F.Returns[K].Name, F.Returns[K], F.Returns[K].Loc);
        F.Vars.back().ReturnIndex = static_cast<uint32_t>(K);
        RegReturns.push_back(static_cast<VarId>(F.Vars.size() - 1));
        continue;
      }
      declare(F.Returns[K].Name, {Entry::Param, Index}, F.Returns[K].Loc);
    }
    collectLabels(Body->statement());
    statements(Body->statement());
    if (Failed)
      return;
    // A return or branch at the very end leaves an empty, unreachable block behind.
    if (F.Blocks.size() > 1 && F.Blocks.back().Insts.empty() && F.Blocks.back().Label.empty())
      F.Blocks.pop_back();
    resolveLabelsAndCFG();
  }

  bool Failed = false;
  std::vector<Diagnostic> Diags;

private:
  struct Entry {
    enum Kind : uint8_t { Reg, Local, Param, Label, Table, Proto } K;
    uint32_t Index;
  };

  void declare(std::string_view Name, Entry E, SourceLoc L) {
    auto [It, New] = Names.try_emplace(Name, E);
    if (!New) {
      if (ScopeDepth == ScopeOf(It->second))
        throw BuildError{L, fmt::format("'{}' is already declared in this scope", Name)};
      Undo.push_back({std::string(Name), It->second, true});
      It->second = E;
    } else {
      Undo.push_back({std::string(Name), E, false});
    }
    DeclDepth[{E.K, E.Index}] = ScopeDepth;
  }
  unsigned ScopeOf(Entry E) {
    auto It = DeclDepth.find({E.K, E.Index});
    return It == DeclDepth.end() ? ~0u : It->second;
  }

  void enterScope() {
    ++ScopeDepth;
    ScopeMarks.push_back(Undo.size());
  }
  void exitScope() {
    size_t Mark = ScopeMarks.back();
    ScopeMarks.pop_back();
    while (Undo.size() > Mark) {
      auto &U = Undo.back();
      if (U.HadPrevious)
        Names[U.Name] = U.Previous;
      else
        Names.erase(U.Name);
      Undo.pop_back();
    }
    --ScopeDepth;
  }

  void error(SourceLoc L, std::string Msg, std::string_view Text = {}) {
    Failed = true;
    if (Diags.size() >= 50)
      return;
    Diagnostic D;
    D.File = M.Source->name();
    D.Loc = L;
    D.Function = F.Name;
    D.Message = std::move(Msg);
    D.Text = std::string(Text.substr(0, 200));
    Diags.push_back(std::move(D));
  }

  void collectLabels(const std::vector<PtxParser::StatementContext *> &Stmts) {
    for (auto *S : Stmts) {
      grammar::NodeKind K = grammar::classify(S->children[0]);
      if (!K.Terminal)
        continue;
      if (K.Id == P::LABEL_DEF) {
        auto *L = static_cast<tree::TerminalNode *>(S->children[0]);
        std::string_view Name = text(L);
        if (S->children.size() > 1) {
          if (S->labeledDirective()->CALLPROTOTYPE())
            ProtoByName[Name] = 0; // declared when reached
          continue;
        }
        auto [It, New] = LabelIds.try_emplace(Name, static_cast<uint32_t>(LabelNames.size()));
        if (!New) {
          error(loc(L), fmt::format("label '{}' is defined more than once", Name));
          continue;
        }
        LabelNames.emplace_back(Name);
      } else if (K.Id == P::BLOCK_OPEN) {
        collectLabels(S->statement());
      }
    }
    LabelBlock.assign(LabelNames.size(), None);
  }

  void statements(const std::vector<PtxParser::StatementContext *> &Stmts) {
    for (auto *S : Stmts) {
      try {
        statement(S);
      } catch (const BuildError &E) {
        error(E.Loc, E.Message, text(S));
      }
    }
  }

  Block &current() { return F.Blocks.back(); }

  void startBlock(std::string Label) {
    Block &Cur = current();
    if (F.Blocks.size() > 1 && Cur.Insts.empty() && Cur.Label.empty() && !Label.empty()) {
      Cur.Label = std::move(Label);
      return;
    }
    F.Blocks.emplace_back();
    current().Label = std::move(Label);
  }

  void statement(PtxParser::StatementContext *S) {
    grammar::NodeKind K = grammar::classify(S->children[0]);
    if (!K.Terminal) {
      switch (K.Id) {
      case P::RuleVariableDecl:
        localDecl(static_cast<PtxParser::VariableDeclContext *>(S->children[0]));
        break;
      case P::RulePragma:
        for (auto *Str : static_cast<PtxParser::PragmaContext *>(S->children[0])->STRING())
          current().Pragmas.emplace_back(static_cast<uint32_t>(current().Insts.size()),
                                         std::string(text(Str).substr(1, text(Str).size() - 2)));
        break;
      }
      return;
    }
    if (K.Id == P::OPCODE || K.Id == P::GUARD) {
      instruction(S);
    } else if (K.Id == P::LABEL_DEF) {
      auto *L = static_cast<tree::TerminalNode *>(S->children[0]);
      if (S->children.size() > 1) {
        labeledDirective(text(L),
                         static_cast<PtxParser::LabeledDirectiveContext *>(S->children[1]));
        return;
      }
      auto It = LabelIds.find(text(L));
      if (It == LabelIds.end())
        return; // duplicate, reported
      startBlock(std::string(text(L)));
      LabelBlock[It->second] = static_cast<uint32_t>(F.Blocks.size() - 1);
    } else if (K.Id == P::BLOCK_OPEN) {
      enterScope();
      statements(S->statement());
      exitScope();
    }
    // .loc/.file/.section: debug information, skipped.
  }

  void labeledDirective(std::string_view Name, PtxParser::LabeledDirectiveContext *LD) {
    if (LD->CALLPROTOTYPE()) {
      CallPrototype P;
      P.Name = std::string(Name);
      size_t Under = 0;
      for (size_t K = 0; K < LD->children.size(); ++K)
        if (LD->children[K] == LD->UNDERSCORE())
          Under = K;
      for (auto *PL : LD->paramList()) {
        size_t K = 0;
        while (LD->children[K] != PL)
          ++K;
        (K < Under ? P.Returns : P.Params) = params(PL);
      }
      Function Tmp;
      for (auto *A : LD->functionAttribute())
        functionAttribute(Tmp, A);
      P.NoReturn = Tmp.NoReturn;
      declare(Name, {Entry::Proto, static_cast<uint32_t>(F.Prototypes.size())}, loc(LD));
      F.Prototypes.push_back(std::move(P));
      return;
    }
    BranchTable T;
    T.Name = std::string(Name);
    T.IsCallTargets = LD->CALLTARGETS() != nullptr;
    for (auto *I : LD->IDENT())
      T.Targets.emplace_back(text(I));
    declare(Name, {Entry::Table, static_cast<uint32_t>(F.Tables.size())}, loc(LD));
    F.Tables.push_back(std::move(T));
  }

  void localDecl(PtxParser::VariableDeclContext *VD) {
    Space S = spaceOf(VD->SPACE());
    if (!VD->LINKAGE().empty() && S != Space::Shared && S != Space::Global && S != Space::Const)
      throw BuildError{loc(VD), "linkage is not allowed here"};
    Variable Tmpl;
    for (auto *L : VD->LINKAGE())
      Tmpl.Link = linkageOf(text(L));
    qualifiers(Tmpl, S, VD->declQualifier(), VD);
    for (auto *D : VD->declarator()) {
      Variable V = Tmpl;
      uint64_t Range;
      declarator(V, D, Range);
      if (S == Space::Reg) {
        if (!V.Dims.empty() || V.Init.K != Initializer::None)
          throw BuildError{loc(D), "registers have no array dimensions or initializers"};
        if (V.Name.empty() || V.Name[0] != '%') {
          // Registers without '%' are legal PTX too.
        }
        if (D->LT()) {
          for (uint64_t K = 0; K < Range; ++K)
            addReg(V.Name + std::to_string(K), V, loc(D));
        } else {
          addReg(V.Name, V, loc(D));
        }
        continue;
      }
      if (Range)
        throw BuildError{loc(D), "register ranges are only valid in .reg declarations"};
      declare(V.Name, {Entry::Local, static_cast<uint32_t>(F.Locals.size())}, V.Loc);
      F.Locals.push_back(std::move(V));
    }
  }

  void addReg(std::string Name, const Variable &V, SourceLoc L) {
    VarId Id = static_cast<VarId>(F.Vars.size());
    F.Vars.push_back({Name, V.Ty, V.VecWidth});
    declare(F.Vars.back().Name, {Entry::Reg, Id}, L);
  }

  // -- instructions --

  Operand registerOperand(Token *N) {
    std::string_view Name = text(N);
    Operand O;
    auto It = Names.find(Name);
    if (It != Names.end() && It->second.K == Entry::Reg) {
      O.K = Operand::Value;
      O.V = It->second.Index;
      return O;
    }
    if (auto S = parseSpecialRegister(Name.substr(1))) {
      if (!S->Complete)
        throw BuildError{
            loc(N), fmt::format("special register '{}' needs a component (.x, .y or .z)", Name)};
      O.K = Operand::Special;
      O.SReg = S->Reg;
      O.Component = S->Component;
      return O;
    }
    if (size_t Dot = Name.find('.'); Dot != std::string_view::npos) {
      std::string_view Sel = Name.substr(Dot + 1);
      auto V = Names.find(Name.substr(0, Dot));
      // Components of vector registers: %v.x .. %v.w (or .r .g .b .a)
      if (V != Names.end() && V->second.K == Entry::Reg && F.Vars[V->second.Index].VecWidth &&
          Sel.size() == 1) {
        size_t C = std::string_view("xyzw").find(Sel[0]);
        if (C == std::string_view::npos)
          C = std::string_view("rgba").find(Sel[0]);
        if (C != std::string_view::npos && C < F.Vars[V->second.Index].VecWidth) {
          O.K = Operand::Value;
          O.V = V->second.Index;
          O.Component = static_cast<uint8_t>(1 + C);
          return O;
        }
      }
      // Video instruction selectors: .b0-.b3 (.b0000-.b7777 for SIMD), .h0/.h1 (.h00-.h11)
      if (V != Names.end() && V->second.K == Entry::Reg && Sel.size() >= 2 && Sel.size() <= 5 &&
          (Sel[0] == 'b' || Sel[0] == 'h')) {
        char Max = Sel[0] == 'b' ? '7' : '3';
        uint16_t Digits = 0;
        bool Ok = Sel.size() <= (Sel[0] == 'b' ? 5u : 3u);
        for (char C : Sel.substr(1)) {
          Ok &= C >= '0' && C <= Max;
          Digits = static_cast<uint16_t>(Digits << 3 | ((C - '0') & 7));
        }
        if (Ok) {
          O.K = Operand::Value;
          O.V = V->second.Index;
          O.Select =
              static_cast<uint16_t>((Sel[0] == 'h' ? 0x8000 : 0) | (Sel.size() - 1) << 12 | Digits);
          return O;
        }
      }
    }
    throw BuildError{loc(N), fmt::format("undeclared register '{}'", Name)};
  }

  SymbolRef symbol(Token *N) {
    std::string_view Name = text(N);
    if (auto It = Names.find(Name); It != Names.end()) {
      switch (It->second.K) {
      case Entry::Local:
        return {SymbolRef::Local, It->second.Index};
      case Entry::Param:
        return {SymbolRef::Param, It->second.Index};
      case Entry::Table:
        return {SymbolRef::BranchTable, It->second.Index};
      case Entry::Proto:
        return {SymbolRef::Prototype, It->second.Index};
      case Entry::Reg:
      case Entry::Label:
        break;
      }
    }
    if (auto It = LabelIds.find(Name); It != LabelIds.end())
      return {SymbolRef::Label, It->second}; // label id; a block index after resolveLabelsAndCFG
    if (auto It = M.Symbols.find(Name); It != M.Symbols.end())
      return It->second;
    if (ProtoByName.count(Name))
      throw BuildError{loc(N),
                       fmt::format("call prototype '{}' is used before its declaration", Name)};
    throw BuildError{loc(N), fmt::format("undefined symbol '{}'", Name)};
  }

  uint64_t elementBytes(const SymbolRef &S, ParserRuleContext *At) {
    const Variable *V = S.K == SymbolRef::Global  ? &M.Globals[S.Index]
                        : S.K == SymbolRef::Local ? &F.Locals[S.Index]
                                                  : nullptr;
    if (!V || V->Dims.empty())
      throw BuildError{loc(At), "only arrays can be indexed"};
    uint64_t N = std::max(1u, typeBits(V->Ty) / 8) * std::max<uint64_t>(1, V->VecWidth);
    for (size_t K = 1; K < V->Dims.size(); ++K)
      N *= V->Dims[K];
    return N;
  }

  Operand fromLinear(const Linear &L, ParserRuleContext *At) {
    Operand O;
    switch (L.B) {
    case Linear::NoBase:
      O.K = Operand::Imm;
      O.Offset = L.C;
      return O;
    case Linear::FloatBase:
      O.K = Operand::FImm;
      O.Offset = static_cast<int64_t>(L.FBits);
      O.FBits = L.FWidth;
      return O;
    case Linear::RegBase:
      O = registerOperand(L.Tok);
      if (L.C != 0)
        throw BuildError{
            loc(At), fmt::format("register offsets are only valid in addresses: '{}'", text(At))};
      if (L.Negated) {
        bool Pred = O.K == Operand::Value && F.Vars[O.V].Ty == Type::Pred;
        if (L.NegOp == P::BANG && !Pred)
          throw BuildError{loc(At), "'!' applies to predicates only"};
        if (L.NegOp == P::MINUS && (O.K != Operand::Value || Pred))
          throw BuildError{loc(At), "'-' applies to integer registers only"};
        O.Negated = true;
      }
      return O;
    case Linear::SymBase:
      if (text(L.Tok) == "WARP_SZ" && !Names.count("WARP_SZ")) {
        if (L.C != 0)
          throw BuildError{loc(At), "WARP_SZ takes no offset"};
        O.K = Operand::Special;
        O.SReg = SpecialReg::WarpSz;
        return O;
      }
      if (auto It = Names.find(text(L.Tok)); It != Names.end() && It->second.K == Entry::Reg) {
        // Registers may be named without '%' (common in inline PTX).
        if (L.C != 0)
          throw BuildError{
              loc(At), fmt::format("register offsets are only valid in addresses: '{}'", text(At))};
        O.K = Operand::Value;
        O.V = It->second.Index;
        return O;
      }
      O.K = Operand::Symbol;
      O.Sym = symbol(L.Tok);
      O.Offset = L.C + (L.Indexed ? L.Index * static_cast<int64_t>(elementBytes(O.Sym, At)) : 0);
      return O;
    }
    return O;
  }

  Operand operand(PtxParser::OperandContext *C) {
    grammar::NodeKind First = grammar::classify(C->children[0]);
    // The most common operands, a register or an integer, skip the expression evaluator.
    if (C->children.size() == 1 && First.Id == P::REGISTER)
      return registerOperand(grammar::symbolOf(C->children[0]));
    if (C->children.size() == 1 && First.Id == P::INT) {
      Operand O;
      O.K = Operand::Imm;
      O.Offset = parseInt(grammar::symbolOf(C->children[0]));
      return O;
    }
    bool ParenList =
        First.Id == P::LPAREN &&
        (C->children.size() == 2 || grammar::classify(C->children[1]).Id == P::RuleOperand);
    Operand O;
    switch (First.Id) {
    case P::UNDERSCORE:
      O.K = Operand::Sink;
      return O;
    case P::LBRACE:
    case P::LPAREN:
      if (First.Id == P::LPAREN && !ParenList)
        break;
      O.K = First.Id == P::LBRACE ? Operand::Vector : Operand::List;
      for (size_t K = 1; K + 1 < C->children.size(); K += 2)
        O.Elements.push_back(operand(static_cast<PtxParser::OperandContext *>(C->children[K])));
      if (O.K == Operand::Vector && O.Elements.empty())
        throw BuildError{loc(C), "empty vector operand"};
      return O;
    case P::LBRACK:
      break;
    default:
      break;
    }
    if (First.Id != P::LBRACK)
      return fromLinear(evalRange(C, 0, C->children.size()), C);
    // Address: '[' expr (',' operand)* ']'
    O.K = Operand::Address;
    Linear L = evalExpr(static_cast<PtxParser::ExprContext *>(C->children[1]));
    if (L.B == Linear::RegBase) {
      Operand R = registerOperand(L.Tok);
      if (R.K != Operand::Value)
        throw BuildError{loc(C), "an address base must be a register or a symbol"};
      O.V = R.V;
    } else if (L.B == Linear::SymBase) {
      if (auto It = Names.find(text(L.Tok)); It != Names.end() && It->second.K == Entry::Reg)
        O.V = It->second.Index;
      else
        O.Sym = symbol(L.Tok);
    } else if (L.B == Linear::FloatBase || L.Negated) {
      throw BuildError{loc(C), "invalid address"};
    }
    O.Offset = L.C;
    size_t End = C->children.size();
    if (grammar::classify(C->children.back()).Id == P::DOTNAME) {
      auto *Suffix = static_cast<tree::TerminalNode *>(C->children.back());
      if (text(Suffix) != ".unified")
        throw BuildError{loc(Suffix), fmt::format("unknown address qualifier '{}'", text(Suffix))};
      O.Unified = true;
      --End;
    }
    for (size_t K = 3; K + 1 < End; K += 2)
      O.Elements.push_back(operand(static_cast<PtxParser::OperandContext *>(C->children[K])));
    return O;
  }

  /// An instruction statement: GUARD? OPCODE (operand ((',' | '|') operand)*)? ';'
  void instruction(PtxParser::StatementContext *IC) {
    Instruction I;
    Token *GuardTok = nullptr, *OpTok = nullptr;
    bool AfterPipe = false;
    for (auto *Child : IC->children) {
      grammar::NodeKind K = grammar::classify(Child);
      if (!K.Terminal) {
        if (!OpTok)
          break;
        I.Operands.push_back(operand(static_cast<PtxParser::OperandContext *>(Child)));
        I.Operands.back().AfterPipe = AfterPipe;
        continue;
      }
      if (K.Id == P::GUARD)
        GuardTok = grammar::symbolOf(Child);
      else if (K.Id == P::OPCODE) {
        OpTok = grammar::symbolOf(Child);
        DecodedOpcode D;
        if (auto Problem = decodeOpcode(text(OpTok), D))
          throw BuildError{loc(OpTok), *Problem};
        I.Op = D.Op;
        I.Mods = std::move(D.Mods);
        I.Types = std::move(D.Types);
        I.TypeSlots = D.TypeSlots;
      }
      AfterPipe = K.Id == P::PIPE;
    }
    I.Loc = loc(GuardTok ? GuardTok : OpTok);
    size_t B = IC->getStart()->getStartIndex(), E = IC->getStop()->getStopIndex();
    I.TextOffset = static_cast<uint32_t>(std::min<size_t>(B, UINT32_MAX));
    I.TextSize = static_cast<uint32_t>(std::min<size_t>(E + 1 - B, UINT32_MAX));
    if (GuardTok) {
      std::string_view GT = text(GuardTok).substr(1);
      if (!GT.empty() && GT[0] == '!') {
        I.GuardNegated = true;
        GT.remove_prefix(1);
      }
      auto It = Names.find(GT);
      if (It == Names.end() || It->second.K != Entry::Reg)
        throw BuildError{loc(GuardTok), fmt::format("undeclared predicate '{}'", GT)};
      I.Guard = It->second.Index;
      if (F.Vars[I.Guard].Ty != Type::Pred)
        throw BuildError{loc(GuardTok), fmt::format("guard '{}' is not a predicate", GT)};
    }
    mergeOrExpressions(I);
    countDefs(I);
    if (auto Problem = validateInstruction(I, F))
      throw BuildError{I.Loc, *Problem};
    if (I.Op == Opcode::Ret && !RegReturns.empty()) {
      // A `ret` returns the current values of `.reg` return parameters: make that use explicit.
      Operand L;
      L.K = Operand::List;
      for (VarId V : RegReturns) {
        Operand R;
        R.K = Operand::Value;
        R.V = V;
        L.Elements.push_back(R);
      }
      I.Operands.push_back(std::move(L));
    }
    bool Terminates = false;
    if (I.Op == Opcode::Bra || I.Op == Opcode::Brx || I.Op == Opcode::Ret || I.Op == Opcode::Exit) {
      Terminates = true;
      if (I.Op == Opcode::Bra && (I.Operands.size() != 1 || I.Operands[0].K != Operand::Symbol ||
                                  I.Operands[0].Sym.K != SymbolRef::Label))
        throw BuildError{I.Loc, "'bra' needs one label operand"};
    }
    current().Insts.push_back(std::move(I));
    if (Terminates)
      startBlock({});
  }

  /// Right after the first operand '|' separates a second destination (`setp.lt.s32 %p|%q`,
  /// `shfl.sync ... %r|%p`); anywhere later it is the bitwise or of a constant expression.
  void mergeOrExpressions(Instruction &I) {
    for (size_t K = 1; K < I.Operands.size(); ++K) {
      if (!I.Operands[K].AfterPipe || K == 1)
        continue;
      Operand &A = I.Operands[K - 1], &B = I.Operands[K];
      if (A.K != Operand::Imm || B.K != Operand::Imm)
        throw BuildError{I.Loc, "'|' after the second operand may only join constants"};
      A.Offset |= B.Offset;
      I.Operands.erase(I.Operands.begin() + K);
      --K;
    }
  }

  void countDefs(Instruction &I) {
    const OpcodeInfo &Info = opcodeInfo(I.Op);
    auto IsReg = [](const Operand &O) {
      if (O.K == Operand::Value || O.K == Operand::Sink)
        return true;
      if (O.K != Operand::Vector)
        return false;
      for (const Operand &E : O.Elements)
        if (E.K != Operand::Value && E.K != Operand::Sink)
          return false;
      return true;
    };
    if (I.Op == Opcode::Call) {
      // `call (ret...), f, (args...)`: registers in the return list are written.
      if (!I.Operands.empty() && I.Operands[0].K == Operand::List)
        I.NumDefs = 1;
      return;
    }
    bool Writes = false;
    switch (Info.Dests) {
    case DestKind::D0:
      break;
    case DestKind::D1:
      Writes = true;
      break;
    case DestKind::DA:
      Writes = !I.Operands.empty() && IsReg(I.Operands[0]);
      if (I.Op == Opcode::Bar || I.Op == Opcode::Barrier)
        Writes = I.has(Mod::Red);
      break;
    }
    if (!Writes)
      return;
    if (I.Operands.empty())
      throw BuildError{I.Loc, fmt::format("'{}' needs a destination operand", Info.Name)};
    if (!IsReg(I.Operands[0]) || I.Operands[0].Negated)
      throw BuildError{I.Loc, fmt::format("the destination of '{}' must be a register", Info.Name)};
    I.NumDefs = 1;
    if (I.Operands.size() > 1 && I.Operands[1].AfterPipe) {
      if (!IsReg(I.Operands[1]))
        throw BuildError{I.Loc, "the second destination after '|' must be a register"};
      I.NumDefs = 2;
    }
  }

  void resolveLabelsAndCFG() {
    // Label ids -> block indices in operands and branch tables.
    auto Fix = [&](Operand &O, auto &Self) -> void {
      if (O.Sym.K == SymbolRef::Label)
        O.Sym.Index = LabelBlock[O.Sym.Index];
      for (Operand &E : O.Elements)
        Self(E, Self);
    };
    for (Block &Bk : F.Blocks)
      for (Instruction &I : Bk.Insts)
        for (Operand &O : I.Operands)
          Fix(O, Fix);
    for (BranchTable &T : F.Tables) {
      for (const std::string &Name : T.Targets) {
        if (T.IsCallTargets) {
          auto It = M.Symbols.find(Name);
          if (It == M.Symbols.end() || It->second.K != SymbolRef::Function) {
            error(F.Loc, fmt::format(".calltargets entry '{}' is not a function", Name));
            continue;
          }
          T.Resolved.push_back(It->second.Index);
        } else {
          auto It = LabelIds.find(Name);
          if (It == LabelIds.end()) {
            error(F.Loc, fmt::format(".branchtargets entry '{}' is not a label", Name));
            continue;
          }
          T.Resolved.push_back(LabelBlock[It->second]);
        }
      }
    }
    // Successors and predecessors.
    uint32_t N = static_cast<uint32_t>(F.Blocks.size());
    for (uint32_t K = 0; K < N; ++K) {
      Block &Bk = F.Blocks[K];
      auto AddSucc = [&](uint32_t S) {
        if (std::find(Bk.Succs.begin(), Bk.Succs.end(), S) == Bk.Succs.end())
          Bk.Succs.push_back(S);
      };
      bool FallsThrough = true;
      if (!Bk.Insts.empty()) {
        const Instruction &Last = Bk.Insts.back();
        bool Guarded = Last.Guard != None;
        if (Last.Op == Opcode::Bra) {
          AddSucc(Last.Operands[0].Sym.Index);
          FallsThrough = Guarded;
        } else if (Last.Op == Opcode::Brx) {
          if (Last.Operands.size() != 2 || Last.Operands[1].K != Operand::Symbol ||
              Last.Operands[1].Sym.K != SymbolRef::BranchTable ||
              F.Tables[Last.Operands[1].Sym.Index].IsCallTargets) {
            error(Last.Loc, "'brx.idx' needs an index and a .branchtargets label");
            return;
          }
          for (uint32_t T : F.Tables[Last.Operands[1].Sym.Index].Resolved)
            AddSucc(T);
          FallsThrough = Guarded;
        } else if (Last.Op == Opcode::Ret || Last.Op == Opcode::Exit) {
          Bk.ReturnsOrExits = true;
          FallsThrough = Guarded;
        }
      }
      if (FallsThrough) {
        if (K + 1 < N)
          AddSucc(K + 1);
        else
          Bk.ReturnsOrExits = true; // falling off the end returns
      }
    }
    for (uint32_t K = 0; K < N; ++K)
      for (uint32_t S : F.Blocks[K].Succs)
        F.Blocks[S].Preds.push_back(K);
  }

  const Module &M;
  Function &F;
  llvm::StringMap<Entry> Names;
  struct UndoRec {
    std::string Name;
    Entry Previous;
    bool HadPrevious;
  };
  std::vector<UndoRec> Undo;
  std::vector<size_t> ScopeMarks;
  unsigned ScopeDepth = 0;
  std::map<std::pair<uint8_t, uint32_t>, unsigned> DeclDepth;
  std::vector<VarId> RegReturns; ///< `.reg` return parameters: read by every `ret`
  llvm::StringMap<uint32_t> LabelIds;
  llvm::StringMap<uint32_t> ProtoByName;
  std::vector<std::string> LabelNames;
  std::vector<uint32_t> LabelBlock;
};

} // namespace

std::string sourceLine(std::string_view Text, uint32_t Line) {
  size_t Pos = 0;
  for (uint32_t L = 1; L < Line && Pos != std::string_view::npos; ++L) {
    Pos = Text.find('\n', Pos);
    if (Pos != std::string_view::npos)
      ++Pos;
  }
  if (Pos == std::string_view::npos || Pos >= Text.size())
    return {};
  size_t End = Text.find('\n', Pos);
  std::string_view L = Text.substr(Pos, End == std::string_view::npos ? End : End - Pos);
  while (!L.empty() && (L.front() == ' ' || L.front() == '\t'))
    L.remove_prefix(1);
  return std::string(L.substr(0, 200));
}

void buildBody(const Module &M, Function &F, const grammar::BodyParse &P) {
  F.Diags.clear();
  if (P.Error) {
    Diagnostic D;
    D.File = M.Source->name();
    D.Loc = P.Error->Loc;
    D.Function = F.Name;
    D.Message = P.Error->Message;
    D.Text = sourceLine(M.Source->text(), D.Loc.line);
    F.Diags.push_back(std::move(D));
    F.St = Function::State::Failed;
    return;
  }
  BodyBuilder B(M, F, M.Source->text());
  try {
    B.run(P.Tree);
  } catch (const BuildError &E) {
    B.Failed = true;
    Diagnostic D;
    D.File = M.Source->name();
    D.Loc = E.Loc;
    D.Function = F.Name;
    D.Message = E.Message;
    B.Diags.push_back(std::move(D));
  }
  if (B.Failed) {
    F.Diags = std::move(B.Diags);
    F.St = Function::State::Failed;
    F.Vars.clear();
    F.Locals.clear();
    F.Blocks.clear();
    return;
  }
  constructSSA(F);
  F.St = Function::State::Built;
}

} // namespace ptx2amd::ir
