// ORC LLJIT per loaded module: the retargeted module is optimised with the host's target machine
// (the kernels' loop wrappers inline the kernel bodies there) and compiled to an object here, so
// that the object can be kept (LoadedModule::compiled) and linked again without the IR.
#include "Jit.h"

#include "MaskBits.h"
#include "Retarget.h"

#include "ptx2amd/amdgpu-backend/Codegen.h"
#include "ptx2amd/support/Error.h"

#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/X86TargetParser.h"

#include <cstdlib>
#include <mutex>

using namespace llvm;
using namespace llvm::orc;

namespace ptx2amd::host {
namespace {

/// Errors of this file, prefixed with what failed.
Error fail(ErrorKind K, const Twine &Msg) { return makeError(K, "host backend: " + Msg); }

// Instructions whose results differ from the PTX ISA's: AVX512-BF16's and AVX-NE-CONVERT's
// vcvtneps2bf16 (which LLVM selects for fptrunc to bfloat) treat subnormal inputs as zero and
// flush subnormal results, whatever MXCSR says. Turning avx512bf16 off turns off AVX10.x too,
// whose BF16 arithmetic flushes as well. The device's results must not depend on the CPU.
constexpr const char *NonConformingFeatures[] = {"avx512bf16", "avxneconvert"};

// Features that enable only their own intrinsics: system and OS facilities (privileged or
// state-saving instructions, random numbers, cache and TSX control, protection keys). Code
// generation from kernels, which never call these intrinsics, does not emit them, and a
// hypervisor often hides some (invpcid on many EPYC guests), so they never refuse a named CPU.
constexpr const char *IntrinsicOnlyFeatures[] = {
    "cldemote",  "clflushopt", "clwb",  "clzero",    "enqcmd",   "fsgsbase", "hreset",
    "invpcid",   "kl",         "lwp",   "movdir64b", "movdiri",  "mwaitx",   "pconfig",
    "pku",       "ptwrite",    "rdpid", "rdpru",     "rdrnd",    "rdseed",   "rtm",
    "serialize", "sgx",        "shstk", "tsxldtrk",  "uintr",    "usermsr",  "waitpkg",
    "wbnoinvd",  "widekl",     "xsave", "xsavec",    "xsaveopt", "xsaves"};

/// The CPU host code is generated for: the host's own (detected), or PTX2AMD_HOST_CPU.
Expected<JITTargetMachineBuilder> configuredMachine() {
  auto JTMB = JITTargetMachineBuilder::detectHost();
  if (!JTMB)
    return JTMB.takeError();
  const char *Env = getenv("PTX2AMD_HOST_CPU");
  if (!Env || !*Env || StringRef(Env) == "native")
    return JTMB;
  // A named CPU: exactly its features (x86-64 is the baseline every x86-64 CPU runs), not the
  // host's, which detectHost() filled in; refused where this CPU lacks one that code generation
  // can use.
  const Triple &TT = JTMB->getTargetTriple();
  if (!TT.isX86())
    return fail(ErrorKind::BadInput,
                "PTX2AMD_HOST_CPU is only for x86-64 hosts; this one is " + TT.str());
  if (X86::parseArchX86(Env, /*Only64Bit=*/true) == X86::CK_None)
    return fail(ErrorKind::BadInput, "PTX2AMD_HOST_CPU='" + Twine(Env) +
                                         "' is not an x86-64 CPU LLVM knows " +
                                         "(try x86-64, x86-64-v2, x86-64-v3, x86-64-v4 or native)");
  SmallVector<StringRef, 64> Wanted;
  X86::getFeaturesForCPU(Env, Wanted);
  StringMap<bool> Have = sys::getHostCPUFeatures();
  // The host's map has every feature it probes, true or false; what it does not probe (x87,
  // cmov, ...) every x86-64 CPU has.
  for (StringRef F : Wanted)
    if (auto It = Have.find(F);
        It != Have.end() && !It->second && !is_contained(IntrinsicOnlyFeatures, F))
      return fail(ErrorKind::BadInput, "PTX2AMD_HOST_CPU='" + Twine(Env) + "' has instructions (" +
                                           F + ") this CPU (" + JTMB->getCPU() + ") lacks");
  JTMB->setCPU(Env);
  JTMB->setFeatures("");
  return JTMB;
}

Expected<JITTargetMachineBuilder> hostMachine() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
  });
  auto JTMB = configuredMachine();
  if (!JTMB)
    return JTMB.takeError();
  for (const char *F : NonConformingFeatures)
    JTMB->getFeatures().AddFeature(F, /*Enable=*/false);
  JTMB->setCodeGenOptLevel(CodeGenOptLevel::Aggressive);
  return std::move(*JTMB);
}

} // namespace

Expected<HostTarget> hostTarget() {
  auto JTMB = hostMachine();
  if (!JTMB)
    return JTMB.takeError();
  auto DL = JTMB->getDefaultDataLayoutForTarget();
  if (!DL)
    return DL.takeError();
  SmallVector<StringRef, 64> CpuFeatures;
  X86::getFeaturesForCPU(JTMB->getCPU(), CpuFeatures);
  bool Avx512 = StringRef(JTMB->getFeatures().getString()).contains("+avx512f") ||
                (JTMB->getFeatures().getString().empty() && is_contained(CpuFeatures, "avx512f"));
  return HostTarget{JTMB->getTargetTriple().str(), hostDataLayout(*DL), Avx512};
}

Expected<std::string> hostIdentity(bool WaveVectors, bool EveryPlan) {
  auto JTMB = hostMachine();
  if (!JTMB)
    return JTMB.takeError();
  return JTMB->getTargetTriple().str() + " " + JTMB->getCPU() + " " +
         JTMB->getFeatures().getString() + (WaveVectors ? "" : " no-wave-vectors") +
         (EveryPlan ? " every-plan" : "");
}

Expected<std::unique_ptr<JitModule>> JitModule::link(ArrayRef<uint8_t> Object,
                                                     const RuntimeSymbols &Runtime) {
  auto JTMB = hostMachine();
  if (!JTMB)
    return JTMB.takeError();
  auto J = LLJITBuilder().setJITTargetMachineBuilder(std::move(*JTMB)).create();
  if (!J)
    return J.takeError();
  const DataLayout &DL = (*J)->getDataLayout();
  auto Gen = DynamicLibrarySearchGenerator::GetForCurrentProcess(DL.getGlobalPrefix());
  if (!Gen)
    return Gen.takeError();
  JITDylib &Main = (*J)->getMainJITDylib();
  Main.addGenerator(std::move(*Gen));
  SymbolMap Symbols;
  for (auto &[Name, Address] : Runtime)
    Symbols[(*J)->mangleAndIntern(Name)] = {ExecutorAddr::fromPtr(Address),
                                            JITSymbolFlags::Exported | JITSymbolFlags::Callable};
  if (Error E = Main.define(absoluteSymbols(std::move(Symbols))))
    return E;
  std::unique_ptr<JitModule> R(new JitModule);
  R->Object.assign(Object.begin(), Object.end());
  // ORC reads the object from a buffer that refers to R->Object, which outlives the LLJIT.
  if (Error E = (*J)->addObjectFile(MemoryBuffer::getMemBuffer(
          StringRef(reinterpret_cast<const char *>(R->Object.data()), R->Object.size()),
          "ptx2amd-host-object", /*RequiresNullTerminator=*/false)))
    return E;
  R->J = std::move(*J);
  return R;
}

Expected<std::unique_ptr<JitModule>> JitModule::create(std::unique_ptr<LLVMContext> Ctx,
                                                       std::unique_ptr<Module> M, unsigned OptLevel,
                                                       const RuntimeSymbols &Runtime) {
  auto JTMB = hostMachine();
  if (!JTMB)
    return JTMB.takeError();
  auto TM = JTMB->createTargetMachine();
  if (!TM)
    return TM.takeError();
  amdgpu::runDefaultPipeline(*M, **TM, OptLevel);
  if (!(*TM)->getMCSubtargetInfo()->checkFeatures("+avx512bw"))
    carryMasksAsBits(*M);
  auto Object = SimpleCompiler(**TM)(*M);
  if (!Object)
    return Object.takeError();
  // The IR is no longer needed: free it before linking.
  M.reset();
  Ctx.reset();
  return link(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>((*Object)->getBufferStart()),
                                (*Object)->getBufferSize()),
              Runtime);
}

JitModule::~JitModule() = default;

Expected<uint64_t> JitModule::lookup(StringRef Name) {
  auto A = J->lookup(Name);
  if (!A)
    return fail(ErrorKind::Internal,
                "symbol '" + Name +
                    "' not found in the JIT-compiled module: " + toString(A.takeError()));
  return A->getValue();
}

} // namespace ptx2amd::host
