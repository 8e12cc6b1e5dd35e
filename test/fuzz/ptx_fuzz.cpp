// libFuzzer target for the PTX front end: any bytes must give a module or located diagnostics,
// never a crash, a hang or unbounded memory.
#include "ptx2amd/ptx-ir/Printer.h"
#include "ptx2amd/ptx-ir/Reader.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  using namespace ptx2amd;
  auto Source = std::make_shared<const SourceText>(
      "fuzz.ptx", std::string(reinterpret_cast<const char *>(Data), Size));
  auto M = ir::readModule(Source);
  if (!M) {
    llvm::consumeError(M.takeError());
    return 0;
  }
  // Printing walks every operand of every built function.
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  ir::printModule(OS, **M, ir::PrintMode::SSA);
  ir::printModule(OS, **M, ir::PrintMode::PTX);
  return 0;
}
