//===- FatbinCommands.cpp - `ptx2amd list` and `ptx2amd extract` ----------===//
//
//   ptx2amd list FILE... [--json]   one row per entry of every input
//   ptx2amd extract FILE -o DIR     write each PTX / cubin entry to DIR as
//                                   <stem>.c<container>.e<index>.sm_<arch>.ptx|.cubin
//
// Errors print "ptx2amd: error: <text>" and give exit status 1; usage errors
// give 2.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"

#include "ptx2amd/fatbin/Fatbin.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <string>
#include <vector>

namespace ptx2amd::tool {

namespace fb = ptx2amd::fatbin;

namespace {

void printWarning(const std::string &Text) { fmt::print(stderr, "ptx2amd: warning: {}\n", Text); }
void printNote(const std::string &Text) { fmt::print(stderr, "ptx2amd: note: {}\n", Text); }

namespace list_opts {
#define PTX2AMD_OPTIONS "ListOptions.inc"
#include "OptionTable.def"
} // namespace list_opts

namespace extract_opts {
#define PTX2AMD_OPTIONS "ExtractOptions.inc"
#include "OptionTable.def"
} // namespace extract_opts

const CommandHelp ListHelp = {
    "list", "ptx2amd list FILE... [--json]",
    "Prints one row per fatbin entry of each CUDA binary, fatbin or cubin: container, index,\n"
    "kind, arch, version, sizes, compression, flags, section and identifier.",
    "EXIT STATUS: 0 on success, 1 when a file cannot be read, 2 on usage errors.\n"};

const CommandHelp ExtractHelp = {
    "extract", "ptx2amd extract FILE -o DIR",
    "Writes each PTX and cubin entry of a CUDA binary, fatbin or cubin to DIR as\n"
    "<stem>.c<container>.e<index>.sm_<arch>.ptx|.cubin (opaque entries are skipped).",
    "EXIT STATUS: 0 on success, 1 when the file, an entry or DIR cannot be read or written, 2 on\n"
    "usage errors.\n"};

std::string versionOf(const fb::Entry &E) {
  if (E.CodeVersion == 0)
    return "-";
  return E.versionString();
}

std::string compressionOf(const fb::Entry &E) {
  std::string S = toString(E.compression()).str();
  if (E.Flags & fb::flags::Opaque)
    S += "+opaque";
  return S;
}

/// Identifier strings come from the input: keep the table on one line.
std::string printable(llvm::StringRef S) {
  std::string R;
  for (char C : S)
    R += (C >= 0x20 && C < 0x7f) ? C : '?';
  return R;
}

std::string utf8(llvm::StringRef S) { return llvm::json::fixUTF8(S); }

void entryJSON(llvm::json::OStream &J, const fb::Fatbin &F, const fb::Entry &E) {
  const fb::Container &C = F.containers()[E.Container];
  J.object([&] {
    J.attribute("container", E.Container);
    J.attribute("index", E.Index);
    J.attribute("offset", int64_t(E.Offset));
    J.attribute("section", utf8(C.Section));
    J.attribute("kind", toString(E.Kind));
    J.attribute("raw_kind", E.RawKind);
    J.attribute("arch", E.archName());
    J.attribute("sm", E.Arch);
    J.attribute("version", versionOf(E));
    J.attribute("stored_size", int64_t(E.storedSize()));
    J.attribute("decompressed_size", int64_t(E.decompressedSize()));
    J.attribute("compression", toString(E.compression()));
    J.attribute("opaque", E.isOpaque());
    J.attribute("flags", fmt::format("{:#x}", E.Flags));
    J.attribute("debug", E.isDebug());
    J.attribute("identifier", utf8(E.Identifier));
    J.attribute("options", utf8(E.Options));
  });
}

void fileJSON(llvm::json::OStream &J, const fb::Fatbin &F) {
  J.object([&] {
    J.attribute("file", utf8(F.name()));
    J.attribute("format", toString(F.format()));
    J.attributeArray("containers", [&] {
      for (const fb::Container &C : F.containers())
        J.object([&] {
          J.attribute("index", C.Index);
          J.attribute("offset", int64_t(C.Offset));
          J.attribute("size", int64_t(C.Size));
          J.attribute("section", utf8(C.Section));
          J.attribute("origin", toString(C.Origin));
          J.attribute("entries", C.NumEntries);
        });
    });
    J.attributeArray("entries", [&] {
      for (const fb::Entry &E : F.entries())
        entryJSON(J, F, E);
    });
    J.attributeArray("modules", [&] {
      for (const fb::Module &M : F.modules())
        J.object([&] {
          J.attribute("index", M.Index);
          J.attribute("wrapper_version", M.WrapperVersion);
          J.attribute("wrapper_offset", int64_t(M.WrapperOffset));
          J.attribute("registered", M.Registered);
          J.attribute("container", M.MainContainer ? llvm::json::Value(*M.MainContainer)
                                                   : llvm::json::Value(nullptr));
          J.attributeArray("prelinked", [&] {
            for (unsigned P : M.Prelinked)
              J.value(P);
          });
        });
    });
    J.attributeArray("notes", [&] {
      for (const std::string &N : F.notes())
        J.value(utf8(N));
    });
  });
}

void printTable(const fb::Fatbin &F) {
  fmt::print("{}: {}, {} container{}, {} entr{}", F.name(), toString(F.format()),
             F.containers().size(), F.containers().size() == 1 ? "" : "s", F.entries().size(),
             F.entries().size() == 1 ? "y" : "ies");
  if (!F.modules().empty())
    fmt::print(", {} wrapper{}", F.modules().size(), F.modules().size() == 1 ? "" : "s");
  fmt::print("\n");
  if (F.entries().empty())
    return;
  fmt::print("{:>9} {:>5} {:<7} {:<8} {:>7} {:>10} {:>12} {:<11} {:<10} {:<16} {}\n", "container",
             "index", "kind", "arch", "version", "stored", "decompressed", "compression", "flags",
             "section", "identifier");
  for (const fb::Entry &E : F.entries()) {
    const fb::Container &C = F.containers()[E.Container];
    fmt::print("{:>9} {:>5} {:<7} {:<8} {:>7} {:>10} {:>12} {:<11} {:<10} {:<16} {}\n", E.Container,
               E.Index, toString(E.Kind).str(), E.archName(), versionOf(E), E.storedSize(),
               E.decompressedSize(), compressionOf(E), fmt::format("{:#x}", E.Flags),
               C.Section.empty() ? "-" : C.Section, printable(E.Identifier));
  }
  // What check, compile and the runtime translate of relocatable device code.
  for (const fb::Module &M : F.modules())
    if (!M.Prelinked.empty())
      fmt::print("wrapper {}: relocatable device code (-rdc): the PTX of container{} {} is linked "
                 "into one module\n",
                 M.Index, M.Prelinked.size() == 1 ? "" : "s", fmt::join(M.Prelinked, ", "));
}

} // namespace

int runList(llvm::ArrayRef<std::string> Argv) {
  using namespace list_opts;
  int Exit = 0;
  auto Args = parseCommandLine(table(), OPT_help, ListHelp, Argv, Exit);
  if (!Args)
    return Exit;
  const bool JSON = Args->hasArg(OPT_json);
  const std::vector<std::string> Files = Args->getAllArgValues(OPT_INPUT);
  if (Files.empty())
    return usageError(ListHelp, "no input file");

  int Status = 0;
  std::string JSONText;
  llvm::raw_string_ostream JSONStream(JSONText);
  llvm::json::OStream J(JSONStream, 2);
  if (JSON)
    J.arrayBegin();
  for (const std::string &Path : Files) {
    llvm::Expected<fb::Fatbin> F = fb::Fatbin::open(Path);
    if (!F) {
      std::string Msg = llvm::toString(F.takeError());
      printError(Msg);
      if (JSON)
        J.object([&] {
          J.attribute("file", utf8(Path));
          J.attribute("error", utf8(Msg));
        });
      Status = 1;
      continue;
    }
    for (const std::string &N : F->notes())
      printNote(N);
    if (JSON)
      fileJSON(J, *F);
    else
      printTable(*F);
  }
  if (JSON) {
    J.arrayEnd();
    JSONStream.flush();
    fmt::print("{}\n", JSONText);
  }
  std::fflush(stdout);
  return Status;
}

int runExtract(llvm::ArrayRef<std::string> Argv) {
  using namespace extract_opts;
  int Exit = 0;
  auto Args = parseCommandLine(table(), OPT_help, ExtractHelp, Argv, Exit);
  if (!Args)
    return Exit;
  const std::string OutDir = Args->getLastArgValue(OPT_o).str();
  const std::vector<std::string> Files = Args->getAllArgValues(OPT_INPUT);
  if (Files.empty())
    return usageError(ExtractHelp, "no input file");
  if (Files.size() > 1)
    return usageError(ExtractHelp, "one input file at a time");
  if (OutDir.empty())
    return usageError(ExtractHelp, "missing -o DIR");

  const std::string &Path = Files.front();
  llvm::Expected<fb::Fatbin> F = fb::Fatbin::open(Path);
  if (!F) {
    printError(llvm::toString(F.takeError()));
    return 1;
  }
  for (const std::string &N : F->notes())
    printNote(N);
  if (std::error_code EC = llvm::sys::fs::create_directories(OutDir)) {
    printError(OutDir + ": cannot create directory: " + EC.message());
    return 1;
  }
  const std::string Stem = llvm::sys::path::stem(Path).str();
  int Status = 0;
  unsigned Written = 0, Skipped = 0;
  for (const fb::Entry &E : F->entries()) {
    const char *Ext = ".bin";
    switch (E.Kind) {
    case fb::EntryKind::PTX:
      Ext = ".ptx";
      break;
    case fb::EntryKind::ELF:
      Ext = ".cubin";
      break;
    case fb::EntryKind::LTOIR:
      Ext = ".ltoir";
      break;
    case fb::EntryKind::Unknown:
      break;
    }
    if (E.isOpaque()) {
      printWarning(fmt::format("{}: skipped: {} entry with flags {:#x} is opaque", F->describe(E),
                               toString(E.Kind).str(), E.Flags));
      ++Skipped;
      continue;
    }
    llvm::Expected<fb::Payload> P = E.Kind == fb::EntryKind::PTX ? F->ptx(E) : F->payload(E);
    if (!P) {
      printError(llvm::toString(P.takeError()));
      Status = 1;
      continue;
    }
    llvm::SmallString<256> Out(OutDir);
    llvm::sys::path::append(
        Out, fmt::format("{}.c{}.e{}.{}{}", Stem, E.Container, E.Index, E.archName(), Ext));
    std::error_code EC;
    llvm::raw_fd_ostream OS(Out, EC, llvm::sys::fs::OF_None);
    if (!EC) {
      OS.write(reinterpret_cast<const char *>(P->bytes().data()), P->size());
      OS.close();
      EC = OS.error();
      if (EC)
        OS.clear_error();
    }
    if (EC) {
      printError(fmt::format("{}: cannot write: {}", Out.str().str(), EC.message()));
      Status = 1;
      continue;
    }
    fmt::print("{}\n", Out.str().str());
    ++Written;
  }
  fmt::print(stderr, "ptx2amd: extracted {} entr{} from {} to {}", Written,
             Written == 1 ? "y" : "ies", Path, OutDir);
  if (Skipped)
    fmt::print(stderr, " ({} opaque skipped)", Skipped);
  fmt::print(stderr, "\n");
  std::fflush(stdout);
  return Status;
}

} // namespace ptx2amd::tool
