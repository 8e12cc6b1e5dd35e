//===- ToolkitTest.cpp - the CUDA toolkit's own libraries -----------------===//
//
// libcurand is read in the default run (when present). The census over every
// library of the toolkit is hidden: run `fatbin_tests "[toolkit]"`.
//
//===----------------------------------------------------------------------===//
#include "ptx2amd/fatbin/Fatbin.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>

using namespace ptx2amd::fatbin;

namespace {
/// The first line that is not blank and not a (minified) comment.
llvm::StringRef firstDirective(llvm::StringRef Text) {
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Line = Line.trim();
    if (!Line.empty() && !Line.starts_with("//"))
      return Line;
    Text = Rest;
  }
  return "";
}

struct Census {
  std::map<std::string, unsigned> Sections;
  unsigned Containers = 0, Ptx = 0, Elf = 0, Lto = 0, Other = 0;
  unsigned Lz4 = 0, Zstd = 0, Failed = 0;
  uint64_t PtxStored = 0, PtxBytes = 0;
  std::string FirstError;
};

Census census(const Fatbin &F) {
  Census C;
  C.Containers = F.containers().size();
  for (const Container &K : F.containers())
    ++C.Sections[K.Section.empty() ? "-" : K.Section];
  for (const Entry &E : F.entries()) {
    C.Ptx += E.Kind == EntryKind::PTX;
    C.Elf += E.Kind == EntryKind::ELF;
    C.Lto += E.Kind == EntryKind::LTOIR;
    C.Other += E.Kind == EntryKind::Unknown;
    C.Lz4 += E.compression() == Compression::LZ4;
    C.Zstd += E.compression() == Compression::Zstd;
    if (E.isOpaque())
      continue;
    llvm::Expected<Payload> P = E.Kind == EntryKind::PTX ? F.ptx(E) : F.payload(E);
    if (!P) {
      if (C.FirstError.empty())
        C.FirstError = llvm::toString(P.takeError());
      else
        llvm::consumeError(P.takeError());
      ++C.Failed;
      continue;
    }
    if (E.Kind == EntryKind::PTX) {
      C.PtxStored += E.storedSize();
      C.PtxBytes += P->size();
      if (!firstDirective(P->text()).starts_with(".version") && C.FirstError.empty()) {
        C.FirstError = F.describe(E) + ": PTX does not start with .version";
        ++C.Failed;
      }
    }
  }
  return C;
}
} // namespace

TEST_CASE("toolkit: libcurand", "[fatbin][toolkit-quick]") {
  std::filesystem::path Lib = std::filesystem::path(FATBIN_TEST_TOOLKIT_LIB) / "libcurand.so";
  if (std::string(FATBIN_TEST_TOOLKIT_LIB).empty() || !std::filesystem::exists(Lib)) {
    WARN("libcurand.so not found; skipped");
    return;
  }
  llvm::Expected<Fatbin> F = Fatbin::open(Lib.string());
  if (!F)
    FAIL(llvm::toString(F.takeError()));
  Census C = census(*F);
  INFO(C.FirstError);
  CHECK(C.Failed == 0);
  CHECK(C.Ptx >= 1);
  CHECK(C.Elf >= 1);
  CHECK(C.Containers == C.Sections[".nv_fatbin"]);
  CHECK(!F->modules().empty());
}

TEST_CASE("toolkit census: every library", "[.][toolkit]") {
  std::string Dir = FATBIN_TEST_TOOLKIT_LIB;
  if (Dir.empty() || !std::filesystem::is_directory(Dir)) {
    WARN("no toolkit lib64 directory; skipped");
    return;
  }
  std::vector<std::filesystem::path> Libs;
  for (const auto &D : std::filesystem::directory_iterator(Dir))
    if (D.is_regular_file() && !D.is_symlink() &&
        D.path().filename().string().find(".so") != std::string::npos)
      Libs.push_back(D.path());
  std::sort(Libs.begin(), Libs.end());
  Census Total;
  double TotalSec = 0;
  std::printf("%-44s %8s %7s %6s %6s %6s %5s %5s %9s %9s %7s  %s\n", "library", "contain.", "PTX",
              "ELF", "LTO", "lz4", "zstd", "fail", "PTX MB", "stored MB", "sec", "sections");
  for (const auto &L : Libs) {
    auto T0 = std::chrono::steady_clock::now();
    llvm::Expected<Fatbin> F = Fatbin::open(L.string());
    if (!F) {
      std::string Msg = llvm::toString(F.takeError());
      std::printf("%-44s error: %s\n", L.filename().c_str(), Msg.c_str());
      CHECK(false);
      continue;
    }
    Census C = census(*F);
    double Sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
    TotalSec += Sec;
    if (C.Containers == 0)
      continue;
    std::string Secs;
    for (const auto &[Name, N] : C.Sections)
      Secs += Name + " " + std::to_string(N) + "  ";
    std::printf("%-44s %8u %7u %6u %6u %6u %5u %5u %9.1f %9.1f %7.2f  %s\n", L.filename().c_str(),
                C.Containers, C.Ptx, C.Elf, C.Lto, C.Lz4, C.Zstd, C.Failed, C.PtxBytes / 1e6,
                C.PtxStored / 1e6, Sec, Secs.c_str());
    if (!C.FirstError.empty())
      std::printf("    first error: %s\n", C.FirstError.c_str());
    for (const std::string &N : F->notes())
      std::printf("    note: %s\n", N.c_str());
    Total.Containers += C.Containers;
    Total.Ptx += C.Ptx;
    Total.Elf += C.Elf;
    Total.Lto += C.Lto;
    Total.Failed += C.Failed;
    Total.PtxBytes += C.PtxBytes;
    Total.PtxStored += C.PtxStored;
    CHECK(C.Failed == 0);
  }
  std::printf("%-44s %8u %7u %6u %6u %6s %5s %5u %9.1f %9.1f %7.2f\n", "TOTAL", Total.Containers,
              Total.Ptx, Total.Elf, Total.Lto, "", "", Total.Failed, Total.PtxBytes / 1e6,
              Total.PtxStored / 1e6, TotalSec);
}
