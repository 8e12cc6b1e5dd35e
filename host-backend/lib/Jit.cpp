// ORC LLJIT per loaded module: the retargeted module is optimised with the host's target machine
// (the kernels' loop wrappers inline the kernel bodies there), then compiled on first lookup.
#include "Jit.h"

#include "Retarget.h"

#include "ptx2amd/amdgpu-backend/Codegen.h"

#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"

#include <mutex>

using namespace llvm;
using namespace llvm::orc;

namespace ptx2amd::host {
namespace {

Error makeError(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), "host backend: " + Msg);
}

Expected<JITTargetMachineBuilder> hostMachine() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
  });
  auto JTMB = JITTargetMachineBuilder::detectHost();
  if (!JTMB)
    return JTMB.takeError();
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
  return HostTarget{JTMB->getTargetTriple().str(), hostDataLayout(*DL)};
}

Expected<std::unique_ptr<JitModule>>
JitModule::create(std::unique_ptr<LLVMContext> Ctx, std::unique_ptr<Module> M, unsigned OptLevel,
                  const std::vector<std::pair<const char *, void *>> &Runtime) {
  auto JTMB = hostMachine();
  if (!JTMB)
    return JTMB.takeError();
  auto TM = JTMB->createTargetMachine();
  if (!TM)
    return TM.takeError();
  amdgpu::runDefaultPipeline(*M, **TM, OptLevel);
  DataLayout DL = M->getDataLayout();
  auto J = LLJITBuilder().setJITTargetMachineBuilder(std::move(*JTMB)).setDataLayout(DL).create();
  if (!J)
    return J.takeError();
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
  if (Error E = (*J)->addIRModule(ThreadSafeModule(std::move(M), std::move(Ctx))))
    return E;
  std::unique_ptr<JitModule> R(new JitModule);
  R->J = std::move(*J);
  return R;
}

JitModule::~JitModule() = default;

Expected<uint64_t> JitModule::lookup(StringRef Name) {
  auto A = J->lookup(Name);
  if (!A)
    return makeError("symbol '" + Name +
                     "' not found in the JIT-compiled module: " + toString(A.takeError()));
  return A->getValue();
}

} // namespace ptx2amd::host
