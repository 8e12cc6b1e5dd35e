// bench-quality: code quality of our translation beside the same CUDA source compiled natively.
// For each test program (a .cu file) and target: our code object from nvcc's PTX of the file
// (read, lower, compile at -O3, as `ptx2amd compile` does) and clang++-22's HIP-mode code object
// of the same .cu through bench/native-shim/shim.h. Per kernel (matched by mangled name): the
// instructions of the kernel's symbol in llvm-objdump-22's disassembly (alignment padding left
// out) and the calls among them, VGPRs (+AGPRs), SGPRs, scratch and LDS bytes (code object
// metadata); per file the instructions of all functions, callees included. One figure per line,
// then per target the geometric mean of the instruction-count ratio and the kernels that use
// scratch where the native build uses none.
//
// Usage: bench-quality --shim-dir DIR --ptx-dir DIR [--arch T]... [--flavour sm90|sm75]
//                      [--keep DIR] [--clang PATH] [--objdump PATH] FILE.cu...
#include "ptx2amd/amdgpu-backend/Codegen.h"
#include "ptx2amd/lowering/Lowering.h"
#include "ptx2amd/ptx-ir/Reader.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

using namespace ptx2amd;

namespace {

struct Tools {
  std::string Clang, Objdump, ShimDir, PtxDir, Flavour = "sm90", KeepDir;
};

/// The figures of one kernel in one code object.
struct KernelFigures {
  uint64_t Instructions = 0, Calls = 0, Vgprs = 0, Sgprs = 0, Scratch = 0, Lds = 0;
  bool DynamicStack = false;
};

/// One code object's kernels by name, or why there is none.
struct Build {
  std::map<std::string, KernelFigures> Kernels;
  std::map<std::string, std::string> Failed; ///< kernel -> reason (ours only)
  uint64_t AllInstructions = 0;              ///< every function of the code object
  std::string Error;                         ///< the whole file failed
};

/// A temporary file removed when this goes out of scope.
struct TempFile {
  llvm::SmallString<128> Path;
  explicit TempFile(llvm::StringRef Suffix) {
    if (llvm::sys::fs::createTemporaryFile("bench-quality", Suffix, Path))
      Path.clear();
  }
  ~TempFile() {
    if (!Path.empty())
      llvm::sys::fs::remove(Path);
  }
};

std::string firstLines(llvm::StringRef Text, unsigned N) {
  std::string R;
  for (unsigned K = 0; K < N && !Text.empty(); ++K) {
    auto [Line, Rest] = Text.split('\n');
    if (!R.empty())
      R += " | ";
    R += Line.trim().str();
    Text = Rest;
  }
  return R;
}

/// Runs \p Args[0]; its stdout lands in \p Out. An error carries the first lines of stderr.
llvm::Error run(llvm::ArrayRef<llvm::StringRef> Args, std::string *Out) {
  TempFile OutF("out"), ErrF("err");
  if (OutF.Path.empty() || ErrF.Path.empty())
    return llvm::createStringError("cannot create temporary files");
  std::optional<llvm::StringRef> Redirects[] = {
      llvm::StringRef("/dev/null"), llvm::StringRef(OutF.Path), llvm::StringRef(ErrF.Path)};
  std::string Msg;
  int RC = llvm::sys::ExecuteAndWait(Args[0], Args, std::nullopt, Redirects, 0, 0, &Msg);
  if (Out)
    if (auto B = llvm::MemoryBuffer::getFile(OutF.Path))
      *Out = (*B)->getBuffer().str();
  if (RC == 0)
    return llvm::Error::success();
  std::string Err = Msg;
  if (auto B = llvm::MemoryBuffer::getFile(ErrF.Path)) {
    // clang's "error:" lines say most; fall back to the start of stderr.
    std::string Errors;
    llvm::StringRef Text = (*B)->getBuffer();
    while (!Text.empty() && std::count(Errors.begin(), Errors.end(), '|') < 2) {
      auto [Line, Rest] = Text.split('\n');
      if (Line.contains("error:"))
        Errors += (Errors.empty() ? "" : " | ") + Line.trim().str();
      Text = Rest;
    }
    Err = Errors.empty() ? firstLines((*B)->getBuffer(), 2) : Errors;
  }
  return llvm::createStringError(Err.empty() ? "exit status " + std::to_string(RC) : Err);
}

struct FunctionCounts {
  uint64_t Instructions = 0, Calls = 0;
};

/// Instructions (and calls) per function symbol in llvm-objdump's disassembly of \p Path; the
/// s_nop and s_code_end padding after each function's last instruction is not counted.
llvm::Expected<llvm::StringMap<FunctionCounts>>
countInstructions(const Tools &Tl, llvm::StringRef Path, llvm::StringRef Arch) {
  std::string Mcpu = "--mcpu=" + Arch.str(), Text;
  llvm::StringRef Args[] = {Tl.Objdump,          "-d", Mcpu, "--no-show-raw-insn",
                            "--no-leading-addr", Path};
  if (auto E = run(Args, &Text))
    return E;
  llvm::StringMap<FunctionCounts> Counts;
  std::string Current;
  uint64_t Count = 0, Padding = 0, Calls = 0;
  auto Flush = [&] {
    if (!Current.empty())
      Counts[Current] = {Count - Padding, Calls};
  };
  llvm::StringRef Rest = Text;
  while (!Rest.empty()) {
    auto [Line, Next] = Rest.split('\n');
    Rest = Next;
    if (Line.starts_with("<") && Line.ends_with(">:")) {
      Flush();
      Current = Line.drop_front().drop_back(2).str();
      Count = Padding = Calls = 0;
      continue;
    }
    if (Current.empty() || !Line.starts_with("\t"))
      continue;
    llvm::StringRef Mnemonic = Line.trim().split(' ').first;
    if (Mnemonic.empty() || Mnemonic.starts_with("//"))
      continue;
    ++Count;
    Calls += Mnemonic == "s_swappc_b64" || Mnemonic == "s_call_b64";
    bool Pad =
        Line.trim() == "s_nop 0" || Mnemonic == "s_code_end" || Line.trim().starts_with("s_nop 0 ");
    Padding = Pad ? Padding + 1 : 0;
  }
  Flush();
  return Counts;
}

/// Fills \p Out from a code object's bytes: metadata, and instruction counts from its
/// disassembly (written to \p KeepAs when --keep is given, else to a temporary file).
llvm::Error measure(const Tools &Tl, llvm::ArrayRef<uint8_t> Bytes, llvm::StringRef Arch,
                    const std::string &KeepAs, Build &Out) {
  auto Md = amdgpu::readKernelMetadata(Bytes);
  if (!Md)
    return Md.takeError();
  TempFile Tmp("hsaco");
  std::string Path = KeepAs.empty() ? std::string(Tmp.Path) : KeepAs;
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC, llvm::sys::fs::OF_None);
    if (EC)
      return llvm::createStringError("cannot write " + Path + ": " + EC.message());
    OS.write(reinterpret_cast<const char *>(Bytes.data()), Bytes.size());
  }
  auto Counts = countInstructions(Tl, Path, Arch);
  if (!Counts)
    return Counts.takeError();
  for (const auto &C : *Counts)
    Out.AllInstructions += C.getValue().Instructions;
  for (const amdgpu::KernelMetadata &K : *Md) {
    KernelFigures F;
    auto It = Counts->find(K.Name);
    if (It != Counts->end()) {
      F.Instructions = It->second.Instructions;
      F.Calls = It->second.Calls;
    }
    F.Vgprs = K.VgprCount + K.AgprCount;
    F.Sgprs = K.SgprCount;
    F.Scratch = K.PrivateSegmentFixedSize;
    F.Lds = K.GroupSegmentFixedSize;
    F.DynamicStack = K.UsesDynamicStack;
    Out.Kernels[K.Name] = F;
  }
  return llvm::Error::success();
}

std::string keepPath(const Tools &Tl, llvm::StringRef Stem, llvm::StringRef Arch,
                     llvm::StringRef Side) {
  if (Tl.KeepDir.empty())
    return "";
  return Tl.KeepDir + "/" + Stem.str() + "." + Arch.str() + "." + Side.str() + ".hsaco";
}

Build ours(const Tools &Tl, llvm::StringRef Stem, const amdgpu::Target &T) {
  Build Out;
  std::string PtxPath = Tl.PtxDir + "/" + Stem.str() + "." + Tl.Flavour + ".ptx";
  auto Buf = llvm::MemoryBuffer::getFile(PtxPath);
  if (!Buf) {
    Out.Error = "cannot read " + PtxPath + ": " + Buf.getError().message();
    return Out;
  }
  auto M = ir::readModule(std::make_shared<const SourceText>(PtxPath, (*Buf)->getBuffer().str()));
  if (!M) {
    Out.Error = llvm::toString(M.takeError());
    return Out;
  }
  auto L = lowering::lowerModule(**M, {std::string(T.Name), T.WaveSize, T.IsaVersion});
  if (!L) {
    Out.Error = llvm::toString(L.takeError());
    return Out;
  }
  for (const lowering::FunctionStatus &F : L->Functions)
    if (F.IsKernel && !F.Lowered)
      Out.Failed[F.Name] = F.Diags.empty() ? "not lowered" : F.Diags.front().Message;
  auto CO = amdgpu::compileToCodeObject(*L->Module, T, {});
  if (!CO) {
    Out.Error = firstLines(llvm::toString(CO.takeError()), 2);
    return Out;
  }
  if (auto E = measure(Tl, CO->Bytes, T.Name, keepPath(Tl, Stem, T.Name, "ours"), Out))
    Out.Error = llvm::toString(std::move(E));
  return Out;
}

Build native(const Tools &Tl, llvm::StringRef Source, llvm::StringRef Stem,
             const amdgpu::Target &T) {
  Build Out;
  TempFile Obj("hsaco");
  std::string Arch = "--offload-arch=" + std::string(T.Name);
  std::string Include = "-I" + Tl.ShimDir + "/include";
  std::string Shim = Tl.ShimDir + "/shim.h";
  // Code object v5 like ours; buffered printf needs no device library (-nogpulib).
  llvm::StringRef Args[] = {Tl.Clang,
                            "-x",
                            "hip",
                            Arch,
                            "-nogpulib",
                            "-nogpuinc",
                            "-mcode-object-version=5",
                            "-mprintf-kind=buffered",
                            Include,
                            "-include",
                            Shim,
                            "--cuda-device-only",
                            "--no-gpu-bundle-output",
                            "-O3",
                            "-c",
                            Source,
                            "-o",
                            Obj.Path};
  if (auto E = run(Args, nullptr)) {
    Out.Error = llvm::toString(std::move(E));
    return Out;
  }
  auto Buf = llvm::MemoryBuffer::getFile(Obj.Path);
  if (!Buf) {
    Out.Error = "cannot read clang's output";
    return Out;
  }
  llvm::ArrayRef<uint8_t> Bytes(reinterpret_cast<const uint8_t *>((*Buf)->getBufferStart()),
                                (*Buf)->getBufferSize());
  if (auto E = measure(Tl, Bytes, T.Name, keepPath(Tl, Stem, T.Name, "native"), Out))
    Out.Error = llvm::toString(std::move(E));
  return Out;
}

std::string ratio(uint64_t Ours, uint64_t Native) {
  if (Native == 0)
    return Ours == 0 ? "1.00" : "inf";
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.2f", static_cast<double>(Ours) / Native);
  return Buf;
}

/// Keeps a one-line reason short enough for one output line.
std::string oneLine(std::string S) {
  std::replace(S.begin(), S.end(), '\n', ' ');
  return S.size() > 160 ? S.substr(0, 157) + "..." : S;
}

} // namespace

int main(int argc, char **argv) {
  Tools Tl;
  std::vector<const amdgpu::Target *> Targets;
  std::vector<std::string> Sources;
  for (int K = 1; K < argc; ++K) {
    std::string A = argv[K];
    bool HasNext = K + 1 < argc;
    if (A == "--arch" && HasNext) {
      const amdgpu::Target *T = amdgpu::findTarget(argv[++K]);
      if (!T) {
        std::fprintf(stderr, "bench-quality: unknown target '%s'\n", argv[K]);
        return 2;
      }
      Targets.push_back(T);
    } else if (A == "--shim-dir" && HasNext)
      Tl.ShimDir = argv[++K];
    else if (A == "--ptx-dir" && HasNext)
      Tl.PtxDir = argv[++K];
    else if (A == "--flavour" && HasNext)
      Tl.Flavour = argv[++K];
    else if (A == "--keep" && HasNext)
      Tl.KeepDir = argv[++K];
    else if (A == "--clang" && HasNext)
      Tl.Clang = argv[++K];
    else if (A == "--objdump" && HasNext)
      Tl.Objdump = argv[++K];
    else if (!A.empty() && A[0] != '-')
      Sources.push_back(A);
    else {
      std::fprintf(stderr, "bench-quality: unknown option '%s'\n", A.c_str());
      return 2;
    }
  }
  if (Targets.empty())
    Targets = {amdgpu::findTarget("gfx90a"), amdgpu::findTarget("gfx1100")};
  for (auto [Path, Name] : {std::pair{&Tl.Clang, "clang++-22"}, {&Tl.Objdump, "llvm-objdump-22"}})
    if (Path->empty()) {
      auto P = llvm::sys::findProgramByName(Name);
      if (!P) {
        std::fprintf(stderr, "bench-quality: %s not found on PATH\n", Name);
        return 2;
      }
      *Path = *P;
    }
  if (Sources.empty() || Tl.ShimDir.empty() || Tl.PtxDir.empty()) {
    std::fprintf(stderr, "usage: bench-quality --shim-dir DIR --ptx-dir DIR [--arch T]... "
                         "[--flavour sm90|sm75] [--keep DIR] FILE.cu...\n");
    return 2;
  }
  if (!Tl.KeepDir.empty())
    if (auto EC = llvm::sys::fs::create_directories(Tl.KeepDir)) {
      std::fprintf(stderr, "bench-quality: %s: %s\n", Tl.KeepDir.c_str(), EC.message().c_str());
      return 1;
    }

  for (const amdgpu::Target *T : Targets) {
    double LogSum = 0;
    unsigned Compared = 0;
    std::vector<std::string> ScratchOnlyOurs, Excluded;
    for (const std::string &Source : Sources) {
      std::string Stem = llvm::sys::path::stem(Source).str();
      Build O = ours(Tl, Stem, *T), N = native(Tl, Source, Stem, *T);
      if (!O.Error.empty() || !N.Error.empty()) {
        Excluded.push_back(Stem + ": " +
                           oneLine(!O.Error.empty() ? "ours: " + O.Error : "native: " + N.Error));
        continue;
      }
      for (auto &[Name, Why] : O.Failed)
        Excluded.push_back(Stem + " " + Name + ": ours: " + oneLine(Why));
      for (auto &[Name, F] : O.Kernels) {
        auto It = N.Kernels.find(Name);
        if (It == N.Kernels.end()) {
          Excluded.push_back(Stem + " " + Name + ": no native kernel of that name");
          continue;
        }
        const KernelFigures &NF = It->second;
        struct {
          const char *What;
          uint64_t Ours, Native;
        } Rows[] = {{"instructions", F.Instructions, NF.Instructions},
                    {"calls", F.Calls, NF.Calls},
                    {"vgprs", F.Vgprs, NF.Vgprs},
                    {"sgprs", F.Sgprs, NF.Sgprs},
                    {"scratch", F.Scratch, NF.Scratch},
                    {"lds", F.Lds, NF.Lds}};
        for (auto &R : Rows)
          std::printf("%s %s %s %s: ours %llu, native %llu, ratio %s\n", T->Name.data(),
                      Stem.c_str(), Name.c_str(), R.What, static_cast<unsigned long long>(R.Ours),
                      static_cast<unsigned long long>(R.Native), ratio(R.Ours, R.Native).c_str());
        if (F.Instructions && NF.Instructions) {
          LogSum += std::log(static_cast<double>(F.Instructions) / NF.Instructions);
          ++Compared;
        }
        bool OursScratch = F.Scratch || F.DynamicStack,
             NativeScratch = NF.Scratch || NF.DynamicStack;
        if (OursScratch && !NativeScratch)
          ScratchOnlyOurs.push_back(Stem + " " + Name);
      }
      for (auto &[Name, F] : N.Kernels)
        if (!O.Kernels.count(Name) && !O.Failed.count(Name))
          Excluded.push_back(Stem + " " + Name + ": no kernel of that name in ours");
      // Inlining differs (PTX .func calls may be inlined by us, __noinline__ ones are not
      // natively): every function of the code object, callees included.
      std::printf("%s %s all functions instructions: ours %llu, native %llu, ratio %s\n",
                  T->Name.data(), Stem.c_str(), static_cast<unsigned long long>(O.AllInstructions),
                  static_cast<unsigned long long>(N.AllInstructions),
                  ratio(O.AllInstructions, N.AllInstructions).c_str());
    }
    for (const std::string &E : Excluded)
      std::printf("%s excluded: %s\n", T->Name.data(), E.c_str());
    std::printf("%s kernels compared: %u\n", T->Name.data(), Compared);
    std::printf("%s geometric mean instruction ratio (ours/native): %.3f\n", T->Name.data(),
                Compared ? std::exp(LogSum / Compared) : 0.0);
    std::printf("%s kernels using scratch where native uses none: %zu\n", T->Name.data(),
                ScratchOnlyOurs.size());
    for (const std::string &K : ScratchOnlyOurs)
      std::printf("%s scratch only in ours: %s\n", T->Name.data(), K.c_str());
  }
  return 0;
}
