// The one table of opcodes, modifiers and types, and what is derived from it.
#include "Tables.h"

#include <fmt/format.h>
#include <llvm/ADT/StringMap.h>

#include <deque>
#include <mutex>

namespace ptx2amd::ir {
namespace {

struct TypeRow {
  std::string_view Name;
  unsigned Bits;
  char Class;
};
constexpr TypeRow TypeRows[] = {
#define PTX_TYPE(E, N, BITS, CLASS) {N, BITS, #CLASS[0]},
#include "ptx2amd/ptx-ir/Types.def"
};

enum : uint64_t {
  G_Round = 1ull << 0,
  G_IntRound = 1ull << 1,
  G_Ftz = 1ull << 2,
  G_Sat = 1ull << 3,
  G_Approx = 1ull << 4,
  G_MulMode = 1ull << 5,
  G_Carry = 1ull << 6,
  G_Cmp = 1ull << 7,
  G_BoolOp = 1ull << 8,
  G_AtomOp = 1ull << 9,
  G_Bar = 1ull << 10,
  G_Redux = 1ull << 11,
  G_Space = 1ull << 12,
  G_Vec = 1ull << 13,
  G_Sem = 1ull << 14,
  G_Scope = 1ull << 15,
  G_Cache = 1ull << 16,
  G_Hint = 1ull << 17,
  G_Shfl = 1ull << 18,
  G_Vote = 1ull << 19,
  G_Sync = 1ull << 20,
  G_Control = 1ull << 21,
  G_Shift = 1ull << 22,
  G_Prmt = 1ull << 23,
  G_Relu = 1ull << 24,
  G_Testp = 1ull << 25,
  G_Texture = 1ull << 26,
  G_Surface = 1ull << 27,
  G_Tensor = 1ull << 28,
  G_Async = 1ull << 29,
};

struct ModRow {
  std::string_view Spelling;
  uint64_t Groups;
};
constexpr ModRow ModRows[] = {
#define PTX_MOD(E, N, G) {N, G},
#include "ptx2amd/ptx-ir/Modifiers.def"
};

constexpr OpcodeInfo OpcodeRows[] = {
#define PTX_OPCODE(E, N, F, G, MINT, MAXT, TC, D)                                                  \
  {Opcode::E, N, Family::F, G, MINT, MAXT, TC, DestKind::D},
#include "ptx2amd/ptx-ir/Opcodes.def"
    {Opcode::Unknown, "<unknown>", Family::Unknown, 0, 0, 0, "", DestKind::D0},
};

template <typename Rows, typename F> auto buildMap(const Rows &R, F Name) {
  llvm::StringMap<uint32_t> M;
  uint32_t I = 0;
  for (const auto &Row : R)
    M.try_emplace(Name(Row), I++);
  return M;
}

const llvm::StringMap<uint32_t> &typeMap() {
  static const auto M = buildMap(TypeRows, [](const TypeRow &R) { return R.Name; });
  return M;
}
const llvm::StringMap<uint32_t> &modMap() {
  static const auto M = buildMap(ModRows, [](const ModRow &R) { return R.Spelling; });
  return M;
}
const llvm::StringMap<uint32_t> &opcodeMap() {
  static const auto M = buildMap(OpcodeRows, [](const OpcodeInfo &R) { return R.Name; });
  return M;
}

/// Spellings of modifiers no table knows (accepted by loosely checked families). Interned for the
/// life of the process; a deque keeps references stable as it grows.
struct Interner {
  std::mutex Lock;
  llvm::StringMap<uint32_t> Index;
  std::deque<std::string> Strings;
  uint32_t intern(std::string_view S) {
    std::lock_guard<std::mutex> G(Lock);
    auto [It, New] = Index.try_emplace(S, static_cast<uint32_t>(Strings.size()));
    if (New)
      Strings.emplace_back(S);
    return It->second;
  }
  std::string get(uint32_t I) {
    std::lock_guard<std::mutex> G(Lock);
    return I < Strings.size() ? Strings[I] : std::string("?");
  }
};
Interner &interner() {
  static Interner I;
  return I;
}

bool parseShape(std::string_view W, uint32_t &Value) {
  // m<M>n<N>[k<K>]
  auto Num = [&](char C, size_t &P, uint32_t &Out) {
    if (P >= W.size() || W[P] != C)
      return false;
    ++P;
    size_t S = P;
    Out = 0;
    while (P < W.size() && W[P] >= '0' && W[P] <= '9')
      Out = Out * 10 + (W[P++] - '0');
    return P > S && Out < 1024;
  };
  size_t P = 0;
  uint32_t M = 0, N = 0, K = 0;
  if (!Num('m', P, M) || !Num('n', P, N))
    return false;
  if (P < W.size() && !Num('k', P, K))
    return false;
  if (P != W.size())
    return false;
  Value = M << 20 | N << 10 | K;
  return true;
}

} // namespace

std::string_view typeName(Type T) {
  return T == Type::None ? "none" : TypeRows[static_cast<unsigned>(T)].Name;
}
unsigned typeBits(Type T) { return T == Type::None ? 0 : TypeRows[static_cast<unsigned>(T)].Bits; }
char typeClass(Type T) { return T == Type::None ? '?' : TypeRows[static_cast<unsigned>(T)].Class; }
std::optional<Type> parseType(std::string_view S) {
  auto It = typeMap().find(S);
  if (It == typeMap().end())
    return std::nullopt;
  return static_cast<Type>(It->second);
}

std::string modifierSpelling(Modifier M) {
  if (M.Id == Mod::Shape) {
    std::string S = fmt::format("m{}n{}", M.Value >> 20, (M.Value >> 10) & 1023);
    if (M.Value & 1023)
      S += fmt::format("k{}", M.Value & 1023);
    return S;
  }
  if (M.Id == Mod::Extra)
    return interner().get(M.Value);
  return std::string(ModRows[static_cast<unsigned>(M.Id)].Spelling);
}

const OpcodeInfo &opcodeInfo(Opcode Op) { return OpcodeRows[static_cast<unsigned>(Op)]; }
std::string_view opcodeName(Opcode Op) { return opcodeInfo(Op).Name; }

std::string_view familyName(Family F) {
  static constexpr std::string_view Names[] = {
      "integer", "float",   "compare", "logic", "data",   "convert", "memory", "async", "tensor",
      "texture", "surface", "control", "sync",  "atomic", "warp",    "video",  "misc",  "unknown"};
  return Names[static_cast<unsigned>(F)];
}

std::string_view spaceName(Space S) {
  static constexpr std::string_view Names[] = {"generic", "reg",   "param", "global", "const",
                                               "shared",  "local", "tex",   "sreg"};
  return Names[static_cast<unsigned>(S)];
}

std::string_view linkageName(Linkage L) {
  static constexpr std::string_view Names[] = {"", "visible", "extern", "weak", "common"};
  return Names[static_cast<unsigned>(L)];
}

namespace {
struct SpecialRow {
  std::string_view Name;
  SpecialReg Reg;
  bool HasComponents;
};
constexpr SpecialRow SpecialRows[] = {
    {"tid", SpecialReg::Tid, true},
    {"ntid", SpecialReg::Ntid, true},
    {"ctaid", SpecialReg::Ctaid, true},
    {"nctaid", SpecialReg::Nctaid, true},
    {"laneid", SpecialReg::Laneid, false},
    {"warpid", SpecialReg::Warpid, false},
    {"nwarpid", SpecialReg::Nwarpid, false},
    {"smid", SpecialReg::Smid, false},
    {"nsmid", SpecialReg::Nsmid, false},
    {"gridid", SpecialReg::Gridid, false},
    {"lanemask_eq", SpecialReg::LanemaskEq, false},
    {"lanemask_le", SpecialReg::LanemaskLe, false},
    {"lanemask_lt", SpecialReg::LanemaskLt, false},
    {"lanemask_ge", SpecialReg::LanemaskGe, false},
    {"lanemask_gt", SpecialReg::LanemaskGt, false},
    {"clock", SpecialReg::Clock, false},
    {"clock_hi", SpecialReg::ClockHi, false},
    {"clock64", SpecialReg::Clock64, false},
    {"globaltimer", SpecialReg::Globaltimer, false},
    {"globaltimer_lo", SpecialReg::GlobaltimerLo, false},
    {"globaltimer_hi", SpecialReg::GlobaltimerHi, false},
    {"dynamic_smem_size", SpecialReg::DynamicSmemSize, false},
    {"total_smem_size", SpecialReg::TotalSmemSize, false},
    {"aggr_smem_size", SpecialReg::AggrSmemSize, false},
    {"envreg", SpecialReg::Envreg, false},
    {"pm", SpecialReg::Pm, false},
    {"pm64", SpecialReg::Pm64, false},
    {"clusterid", SpecialReg::ClusterId, true},
    {"nclusterid", SpecialReg::Nclusterid, true},
    {"cluster_ctaid", SpecialReg::ClusterCtaid, true},
    {"cluster_nctaid", SpecialReg::ClusterNctaid, true},
    {"cluster_ctarank", SpecialReg::ClusterCtarank, false},
    {"cluster_nctarank", SpecialReg::ClusterNctarank, false},
    {"is_explicit_cluster", SpecialReg::IsExplicitCluster, false},
    {"current_graph_exec", SpecialReg::CurrentGraphExec, false},
};
} // namespace

std::string_view specialRegName(SpecialReg R) {
  if (R == SpecialReg::WarpSz)
    return "WARP_SZ";
  if (R == SpecialReg::ReservedSmem)
    return "reserved_smem_offset";
  for (const SpecialRow &S : SpecialRows)
    if (S.Reg == R)
      return S.Name;
  return "?";
}

const std::string_view ReservedSmemNames[5] = {"begin", "end", "cap", "0", "1"};

std::optional<SpecialOperand> parseSpecialRegister(std::string_view Name) {
  // Name without '%'. Numbered forms: %envreg<N>, %pm<N>, %pm<N>_64, %reserved_smem_offset_<...>.
  std::string_view Base = Name, Comp;
  if (size_t Dot = Name.find('.'); Dot != std::string_view::npos) {
    Base = Name.substr(0, Dot);
    Comp = Name.substr(Dot + 1);
  }
  auto Component = [&](const SpecialRow &S) -> std::optional<SpecialOperand> {
    if (Comp.empty())
      return SpecialOperand{S.Reg, 0, !S.HasComponents};
    if (!S.HasComponents || Comp.size() != 1)
      return std::nullopt;
    size_t C = std::string_view("xyzw").find(Comp[0]);
    if (C == std::string_view::npos)
      return std::nullopt;
    return SpecialOperand{S.Reg, static_cast<uint8_t>(C), true};
  };
  for (const SpecialRow &S : SpecialRows)
    if (S.Name == Base)
      return Component(S);
  auto Numbered = [&](std::string_view Prefix, SpecialReg R, unsigned Limit,
                      std::string_view Suffix = {}) -> std::optional<SpecialOperand> {
    if (Base.size() <= Prefix.size() + Suffix.size() || Base.substr(0, Prefix.size()) != Prefix ||
        !Comp.empty())
      return std::nullopt;
    std::string_view Digits =
        Base.substr(Prefix.size(), Base.size() - Prefix.size() - Suffix.size());
    if (Base.substr(Base.size() - Suffix.size()) != Suffix)
      return std::nullopt;
    unsigned N = 0;
    for (char C : Digits) {
      if (C < '0' || C > '9')
        return std::nullopt;
      N = N * 10 + (C - '0');
      if (N > 255)
        return std::nullopt;
    }
    if (N >= Limit)
      return std::nullopt;
    return SpecialOperand{R, static_cast<uint8_t>(N), true};
  };
  if (auto S = Numbered("envreg", SpecialReg::Envreg, 32))
    return S;
  if (auto S = Numbered("pm", SpecialReg::Pm64, 8, "_64"))
    return S;
  if (auto S = Numbered("pm", SpecialReg::Pm, 8))
    return S;
  if (Base.rfind("reserved_smem_offset_", 0) == 0 && Comp.empty())
    for (uint8_t K = 0; K < 5; ++K)
      if (Base.substr(21) == ReservedSmemNames[K])
        return SpecialOperand{SpecialReg::ReservedSmem, K, true};
  return std::nullopt;
}

std::optional<std::string> decodeOpcode(std::string_view Text, DecodedOpcode &Out) {
  size_t Dot = Text.find('.');
  std::string_view Base = Text.substr(0, Dot);
  auto It = opcodeMap().find(Base);
  if (It == opcodeMap().end())
    return fmt::format("unknown instruction '{}'", Base);
  Out.Op = static_cast<Opcode>(It->second);
  const OpcodeInfo &Info = opcodeInfo(Out.Op);
  bool Loose = Info.ModGroups == ~0ull;
  for (unsigned Slot = 0; Dot != std::string_view::npos; ++Slot) {
    size_t Next = Text.find('.', Dot + 1);
    std::string_view W =
        Text.substr(Dot + 1, Next == std::string_view::npos ? Next : Next - Dot - 1);
    Dot = Next;
    if (Slot >= 32)
      return fmt::format("too many modifiers on '{}'", Info.Name);
    if (auto T = typeMap().find(W); T != typeMap().end()) {
      Out.Types.push_back(static_cast<Type>(T->second));
      Out.TypeSlots |= 1u << Slot;
      continue;
    }
    if (auto M = modMap().find(W); M != modMap().end()) {
      if (!(ModRows[M->second].Groups & Info.ModGroups))
        return fmt::format("modifier '.{}' is not valid for '{}'", W, Info.Name);
      Out.Mods.push_back({static_cast<Mod>(M->second), 0});
      continue;
    }
    uint32_t Shape;
    if (parseShape(W, Shape) && (Info.ModGroups & (G_Tensor | G_Async))) {
      Out.Mods.push_back({Mod::Shape, Shape});
      continue;
    }
    if (Loose) {
      Out.Mods.push_back({Mod::Extra, interner().intern(W)});
      continue;
    }
    return fmt::format("unknown modifier '.{}' for '{}'", W, Info.Name);
  }
  if (Out.Types.size() < Info.MinTypes || Out.Types.size() > Info.MaxTypes) {
    if (Info.MinTypes == Info.MaxTypes)
      return fmt::format("'{}' takes {} type suffix{}, found {}", Info.Name, Info.MinTypes,
                         Info.MinTypes == 1 ? "" : "es", Out.Types.size());
    return fmt::format("'{}' takes {} to {} type suffixes, found {}", Info.Name, Info.MinTypes,
                       Info.MaxTypes, Out.Types.size());
  }
  for (Type T : Out.Types)
    if (Info.TypeClasses.find(typeClass(T)) == std::string_view::npos)
      return fmt::format("type '.{}' is not valid for '{}'", typeName(T), Info.Name);
  return std::nullopt;
}

} // namespace ptx2amd::ir
