//===- Select.cpp - choose the PTX to translate ---------------------------===//
#include "ptx2amd/fatbin/Select.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <set>

using namespace llvm;

namespace ptx2amd::fatbin {

static Error selectError(StringRef Context, const Twine &What) {
  return createStringError(inconvertibleErrorCode(), Twine(Context) + ": " + What);
}

namespace {
/// Distinct arch names of the entries of one kind, lowest first.
std::string archList(ArrayRef<const Entry *> Entries, EntryKind K) {
  std::set<std::pair<unsigned, std::string>> Names;
  for (const Entry *E : Entries)
    if (E->Kind == K)
      Names.insert({E->Arch, E->archName()});
  std::string S;
  for (const auto &N : Names)
    S += (S.empty() ? "" : ", ") + N.second;
  return S;
}

const Entry *highestOf(ArrayRef<const Entry *> Entries, EntryKind K) {
  const Entry *Best = nullptr;
  for (const Entry *E : Entries)
    if (E->Kind == K && (!Best || E->Arch > Best->Arch))
      Best = E;
  return Best;
}
} // namespace

Expected<const Entry *> selectPTX(ArrayRef<const Entry *> Entries, const SelectionPolicy &Policy,
                                  StringRef Context) {
  const Entry *Best = nullptr;
  auto Better = [&](const Entry *A, const Entry *B) {
    // Is A better than B?
    if (A->Arch != B->Arch)
      return A->Arch > B->Arch;
    bool AGeneric = A->archSuffix().empty(), BGeneric = B->archSuffix().empty();
    if (AGeneric != BGeneric)
      return AGeneric;
    return A->CodeVersion > B->CodeVersion;
  };
  const Entry *LowestAbove = nullptr;
  bool AnyPTX = false;
  for (const Entry *E : Entries) {
    if (E->Kind != EntryKind::PTX)
      continue;
    AnyPTX = true;
    if (Policy.MaxPTXVersion && E->CodeVersion > Policy.MaxPTXVersion)
      continue;
    if (!Policy.AllowSpecific && !E->archSuffix().empty())
      continue;
    if (Policy.Kind == SelectionPolicy::Mode::HighestArchAtMost && E->Arch > Policy.MaxArch) {
      // Arch- and family-specific PTX (sm_90a, sm_100f) is for those GPUs alone.
      if (E->archSuffix().empty() &&
          (!LowestAbove || E->Arch < LowestAbove->Arch ||
           (E->Arch == LowestAbove->Arch && Better(E, LowestAbove))))
        LowestAbove = E;
      continue;
    }
    if (!Best || Better(E, Best))
      Best = E;
  }
  if (Best)
    return Best;
  if (LowestAbove && Policy.AboveIfNone)
    return LowestAbove;

  if (AnyPTX) {
    std::string Why;
    if (Policy.Kind == SelectionPolicy::Mode::HighestArchAtMost)
      Why += "for sm_" + std::to_string(Policy.MaxArch) + " or lower";
    if (Policy.MaxPTXVersion)
      Why += std::string(Why.empty() ? "" : ", ") +
             "with PTX ISA <= " + std::to_string(Policy.MaxPTXVersion >> 16) + "." +
             std::to_string(Policy.MaxPTXVersion & 0xffff);
    if (!Policy.AllowSpecific)
      Why += std::string(Why.empty() ? "" : ", ") + "for a generic (not a/f) target";
    std::string Have;
    for (const Entry *E : Entries)
      if (E->Kind == EntryKind::PTX)
        Have += (Have.empty() ? "" : ", ") + E->archName() + " (PTX " + E->versionString() + ")";
    return selectError(Context, "no PTX entry " + Why + "; the module carries PTX for " + Have);
  }

  std::string Sass = archList(Entries, EntryKind::ELF);
  std::string Lto = archList(Entries, EntryKind::LTOIR);
  std::string Carries;
  if (!Sass.empty())
    Carries = "SASS for " + Sass;
  if (!Lto.empty())
    Carries += (Carries.empty() ? "" : " and ") + ("LTO-IR for " + Lto);
  if (Carries.empty())
    Carries = Entries.empty() ? "no entries at all" : "no PTX, SASS or LTO-IR";
  const Entry *Top = highestOf(Entries, EntryKind::ELF);
  if (!Top)
    Top = highestOf(Entries, EntryKind::LTOIR);
  std::string Compute =
      Top ? "compute_" + std::to_string(Top->Arch) + Top->archSuffix().str() : "compute_75";
  return selectError(Context, "no PTX to translate: the module carries only " + Carries +
                                  ", which ptx2amd cannot use; rebuild with `-gencode arch=" +
                                  Compute + ",code=" + Compute + "` to embed PTX");
}

Expected<const Entry *> selectPTX(ArrayRef<Entry> Entries, const SelectionPolicy &Policy,
                                  StringRef Context) {
  std::vector<const Entry *> Ptrs;
  Ptrs.reserve(Entries.size());
  for (const Entry &E : Entries)
    Ptrs.push_back(&E);
  return selectPTX(Ptrs, Policy, Context);
}

Expected<std::vector<const Entry *>> selectRdcGroup(const Fatbin &F, const Module &M,
                                                    const SelectionPolicy &Policy) {
  std::vector<const Entry *> Group;
  if (M.Prelinked.empty())
    return selectError(F.name(),
                       "module " + Twine(M.Index) + " has no prelinked (-rdc) containers");
  for (unsigned CI : M.Prelinked) {
    if (CI >= F.containers().size())
      return selectError(F.name(),
                         "module " + Twine(M.Index) + ": bad container index " + Twine(CI));
    const Container &C = F.containers()[CI];
    Expected<const Entry *> E = selectPTX(
        F.entries(C), Policy,
        F.name().str() + ": module " + std::to_string(M.Index) + ": relocatable container " +
            std::to_string(CI) + " (offset 0x" + utohexstr(C.Offset, /*LowerCase=*/true) + ")");
    if (!E)
      return E.takeError();
    Group.push_back(*E);
  }
  return Group;
}

Expected<ModuleSelection> selectForModule(const Fatbin &F, const Module &M,
                                          const SelectionPolicy &Policy) {
  ModuleSelection S;
  if (!M.Prelinked.empty()) {
    Expected<std::vector<const Entry *>> G = selectRdcGroup(F, M, Policy);
    if (!G)
      return G.takeError();
    S.PTX = std::move(*G);
    S.NeedsLinking = true;
    return S;
  }
  if (!M.MainContainer || *M.MainContainer >= F.containers().size())
    return selectError(F.name(), "module " + Twine(M.Index) + " has no container");
  const Container &C = F.containers()[*M.MainContainer];
  Expected<const Entry *> E = selectPTX(F.entries(C), Policy,
                                        F.name().str() + ": module " + std::to_string(M.Index) +
                                            " (container " + std::to_string(C.Index) + ")");
  if (!E)
    return E.takeError();
  S.PTX.push_back(*E);
  // A lone relocatable container still needs linking (it may use .extern).
  S.NeedsLinking = C.isRelocatable();
  return S;
}

} // namespace ptx2amd::fatbin
