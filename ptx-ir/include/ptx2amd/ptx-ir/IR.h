// The PTX IR: a typed SSA form of one PTX module.
//
// Module ▸ globals and functions ▸ basic blocks ▸ instructions. Instructions keep PTX's opcode,
// modifiers, type suffixes and operand order as structured data; PTX's re-assignable virtual
// registers become SSA values (phis at block entries, and a "prior" value for each register a
// predicated instruction writes). State-space variables (.param, .local, .shared, globals) stay
// memory, named by symbols.
#pragma once

#include "ptx2amd/ptx-grammar/Source.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringMap.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ptx2amd::ir {

enum class Type : uint8_t {
#define PTX_TYPE(E, N, BITS, CLASS) E,
#include "ptx2amd/ptx-ir/Types.def"
  None,
};
std::string_view typeName(Type T);
unsigned typeBits(Type T);
char typeClass(Type T); ///< 'B','U','S','F','P','O'
std::optional<Type> parseType(std::string_view Spelling);

enum class Mod : uint16_t {
#define PTX_MOD(E, N, G) E,
#include "ptx2amd/ptx-ir/Modifiers.def"
};

struct Modifier {
  Mod Id;
  uint32_t Value = 0; ///< Shape: m<<20 | n<<10 | k; Extra: index of an interned spelling
  bool operator==(const Modifier &) const = default;
};
std::string modifierSpelling(Modifier M);

enum class Family : uint8_t {
  IntArith,
  FloatArith,
  Compare,
  Logic,
  Data,
  Convert,
  Memory,
  Async,
  Tensor,
  Texture,
  Surface,
  Control,
  Sync,
  Atomic,
  Warp,
  Video,
  Misc,
  Unknown
};
std::string_view familyName(Family F);

enum class Opcode : uint16_t {
#define PTX_OPCODE(E, N, F, G, MINT, MAXT, TC, D) E,
#include "ptx2amd/ptx-ir/Opcodes.def"
  Unknown,
};

/// How an opcode's leading operands are written (see Opcodes.def).
enum class DestKind : uint8_t { D0, D1, DA };

struct OpcodeInfo {
  Opcode Op;
  std::string_view Name;
  Family Fam;
  uint64_t ModGroups;
  uint8_t MinTypes, MaxTypes;
  std::string_view TypeClasses;
  DestKind Dests;
};
const OpcodeInfo &opcodeInfo(Opcode Op);
std::string_view opcodeName(Opcode Op);

enum class Space : uint8_t { Generic, Reg, Param, Global, Const, Shared, Local, Tex, Sreg };
std::string_view spaceName(Space S);

enum class Linkage : uint8_t { Internal, Visible, Extern, Weak, Common };
std::string_view linkageName(Linkage L);

enum class SpecialReg : uint8_t {
  Tid,
  Ntid,
  Ctaid,
  Nctaid,
  Laneid,
  Warpid,
  Nwarpid,
  Smid,
  Nsmid,
  Gridid,
  LanemaskEq,
  LanemaskLe,
  LanemaskLt,
  LanemaskGe,
  LanemaskGt,
  Clock,
  ClockHi,
  Clock64,
  Globaltimer,
  GlobaltimerLo,
  GlobaltimerHi,
  DynamicSmemSize,
  TotalSmemSize,
  AggrSmemSize,
  Envreg,
  Pm,
  Pm64,
  ClusterId,
  Nclusterid,
  ClusterCtaid,
  ClusterNctaid,
  ClusterCtarank,
  ClusterNctarank,
  IsExplicitCluster,
  ReservedSmem,
  CurrentGraphExec,
  WarpSz, ///< the WARP_SZ constant (32 on every target, see DESIGN.md)
};
std::string_view specialRegName(SpecialReg R);

using ValueId = uint32_t;
using VarId = uint32_t;
constexpr uint32_t None = ~0u;

/// A reference to a named memory object or code address.
struct SymbolRef {
  enum Kind : uint8_t { Global, Function, Local, Param, Label, BranchTable, Prototype, Unresolved };
  Kind K = Unresolved;
  uint32_t Index =
      None; ///< into Module::Globals/Functions, Function::Locals/Params(+Returns)/Blocks/...
};

struct Operand {
  enum Kind : uint8_t {
    Value,   ///< SSA value (a register); Negated for `!%p`
    Imm,     ///< integer immediate
    FImm,    ///< float immediate: raw IEEE bits, FBits wide (32 or 64)
    Symbol,  ///< symbol address (+ Offset)
    Address, ///< `[base + Offset]`: base a Value, a Symbol or nothing; Elements: extra tex/surf
             ///< operands
    Vector,  ///< `{a, b, ...}`
    List,    ///< `(a, b, ...)`: call return values and arguments
    Special, ///< special register, Component 0..3 for .x/.y/.z/.w (or the %envreg number)
    Sink,    ///< `_`
  };
  Kind K = Imm;
  bool Negated = false;   ///< `!%p` on a predicate, `-%r` on a video instruction operand
  bool AfterPipe = false; ///< separated from the previous operand by '|'
  uint8_t FBits = 0;
  uint8_t Component = 0; ///< Special: .x/.y/.z/.w = 0..3 (or N of %envregN); Value: 0 = whole
                         ///< register, 1..4 = element .x/.y/.z/.w of a vector register
  /// Value: video byte/half selector (`%r1.b0`, `.h10`, `.b3210`): 0 = none, else bit 15 set for
  /// halves, bits 12-14 the digit count, bits 0-11 the digits (3 bits each, first digit highest).
  uint16_t Select = 0;
  bool Unified = false; ///< Address: `[a].unified`
  ValueId V = None;
  SymbolRef Sym;
  SpecialReg SReg = SpecialReg::Tid;
  int64_t Offset = 0; ///< Imm value, FImm bits, or address/symbol offset
  std::vector<Operand> Elements;

  bool hasValueBase() const { return K == Address && V != None; }
  bool hasSymbolBase() const { return K == Address && Sym.K != SymbolRef::Unresolved; }
};

struct Instruction {
  Opcode Op = Opcode::Unknown;
  llvm::SmallVector<Modifier, 4> Mods;
  llvm::SmallVector<Type, 2> Types;
  /// Bit K set: the K-th dotted suffix in the source was a type (the others were modifiers), so
  /// the instruction prints with PTX's own order (`prmt.b32.f4e`, `suld.b.2d.b32.clamp`).
  uint32_t TypeSlots = 0;
  ValueId Guard = None;
  bool GuardNegated = false;
  uint8_t NumDefs = 0; ///< the first NumDefs operands are written (vectors and '|' pairs included)
  llvm::SmallVector<Operand, 4> Operands;
  /// For a guarded instruction: for each value it defines (in operand order), the value the
  /// register held before; the register keeps it when the guard is false.
  llvm::SmallVector<ValueId, 1> Prior;
  SourceLoc Loc;
  uint32_t TextOffset = 0, TextSize = 0; ///< the statement's PTX text in the module source

  bool has(Mod M) const {
    for (const Modifier &X : Mods)
      if (X.Id == M)
        return true;
    return false;
  }
};

struct Phi {
  ValueId Result = None;
  VarId Var = None;
  llvm::SmallVector<ValueId, 2> Incoming; ///< one per predecessor, in Block::Preds order
};

struct Block {
  std::string Label; ///< empty for blocks that start after a branch without a label
  /// `.pragma` strings in the body, with the index of the instruction they precede.
  std::vector<std::pair<uint32_t, std::string>> Pragmas;
  std::vector<Phi> Phis;
  std::vector<Instruction> Insts;
  llvm::SmallVector<uint32_t, 2> Succs, Preds;
  bool ReturnsOrExits = false;
};

/// A PTX virtual register (`.reg`).
struct Var {
  std::string Name;
  Type Ty = Type::B32;
  uint8_t VecWidth = 0;
  uint32_t ParamIndex = None;  ///< a `.reg` parameter of the function: defined at entry
  uint32_t ReturnIndex = None; ///< a `.reg` return value of the function: read by `ret`
};

struct ValueInfo {
  enum DefKind : uint8_t { Undef, Inst, PhiDef, Arg };
  Type Ty = Type::B32;
  DefKind Def = Undef;
  VarId Var = None;
  uint32_t Version = 0;
  uint32_t Block = None, Index = None; ///< defining block and instruction/phi index
};

struct Initializer {
  enum Kind : uint8_t { None, Data, Int, Float, Symbol, List, Named };
  Kind K = None;
  std::vector<uint8_t> Bytes; ///< Data: flat numeric list packed in element width
  unsigned ElemBytes = 0;
  int64_t Value = 0;   ///< Int value, Float bits, Symbol offset
  std::string Name;    ///< Symbol name, Named key
  std::string Wrapper; ///< "generic" around a symbol, or Named value
  uint64_t Mask = 0;   ///< Symbol: `0xFF00(sym)` takes the masked bits of the address
  std::vector<Initializer> Elements;
};

/// A variable in a state space: module globals, and .local/.shared/.param variables of a body.
struct Variable {
  std::string Name;
  Space Sp = Space::Global;
  Linkage Link = Linkage::Internal;
  Type Ty = Type::B8;
  uint8_t VecWidth = 0;
  uint32_t Align = 0;                  ///< 0 = natural
  llvm::SmallVector<uint64_t, 1> Dims; ///< 0 = unsized (`[]`)
  bool Managed = false, Unified = false;
  uint64_t UnifiedId[2] = {0, 0}; ///< `.attribute(.unified(uuid1, uuid2))`
  bool IsPtr = false;             ///< kernel .param .ptr
  Space PtrSpace = Space::Generic;
  uint32_t PtrAlign = 0;
  Initializer Init;
  SourceLoc Loc;
  uint64_t sizeInBytes() const;
};

struct Diagnostic {
  enum Severity : uint8_t { Error, Warning, Note };
  Severity Sev = Error;
  std::string File;
  SourceLoc Loc;
  std::string Function; ///< empty at module level
  std::string Message;
  std::string Text; ///< the offending PTX text, if any
  std::string str() const;
};

struct CallPrototype {
  std::string Name;
  std::vector<Variable> Returns, Params;
  bool NoReturn = false;
};

struct BranchTable {
  std::string Name;
  bool IsCallTargets = false;
  std::vector<std::string> Targets; ///< resolved to block indices (branch) or functions (call)
  std::vector<uint32_t> Resolved;
};

struct Function {
  enum class State : uint8_t { Declared, Unparsed, Built, Failed };

  std::string Name;
  bool IsKernel = false;
  Linkage Link = Linkage::Internal;
  std::vector<Variable> Returns, Params;
  SourceLoc Loc;
  // Performance and other directives
  llvm::SmallVector<uint32_t, 3> MaxNTid, ReqNTid, ReqNCtaPerCluster;
  uint32_t MinNCtaPerSm = 0, MaxNCtaPerSm = 0, MaxNReg = 0, MaxClusterRank = 0;
  bool NoReturn = false, ExplicitCluster = false, BlocksAreClusters = false;
  uint32_t AbiPreserve = None, AbiPreserveControl = None; ///< `.abi_preserve N` etc., None = absent
  bool Unified = false;
  uint64_t UnifiedId[2] = {0, 0};   ///< `.attribute(.unified(uuid1, uuid2))` on a function
  std::vector<std::string> Pragmas; ///< `.pragma` in the function header

  State St = State::Declared;
  TextRange Body; ///< the `{...}` range in the module source

  // Body (State::Built)
  std::vector<Var> Vars;
  std::vector<Variable> Locals;
  std::vector<Block> Blocks;
  std::vector<ValueInfo> Values;
  std::vector<CallPrototype> Prototypes;
  std::vector<BranchTable> Tables;
  std::vector<Diagnostic> Diags; ///< why the function failed (State::Failed)

  bool isDefinition() const { return St != State::Declared; }
  /// Frees the body's IR (the function can be built again from its text).
  void dropBody();
};

struct Module {
  std::shared_ptr<const SourceText> Source;
  uint32_t VersionMajor = 0, VersionMinor = 0;
  std::vector<std::string> Target;
  uint32_t AddressSize = 64;
  std::vector<Variable> Globals;
  std::vector<std::unique_ptr<Function>> Functions;
  std::vector<std::pair<std::string, std::string>> Aliases;
  std::vector<std::string> Pragmas; ///< module-level `.pragma` strings
  llvm::StringMap<SymbolRef> Symbols;
  std::vector<Diagnostic> Diags; ///< module-level diagnostics (warnings; errors fail the read)

  Function *function(std::string_view Name);
  const Variable *global(std::string_view Name) const;
};

} // namespace ptx2amd::ir
