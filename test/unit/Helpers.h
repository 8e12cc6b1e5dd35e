// Shared helpers for front-end unit tests.
#pragma once

#include "ptx2amd/ptx-ir/Printer.h"
#include "ptx2amd/ptx-ir/Reader.h"

#include <string>

namespace ptx2amd::test {

inline std::shared_ptr<const SourceText> source(std::string Text, std::string Name = "t.ptx") {
  return std::make_shared<const SourceText>(std::move(Name), std::move(Text));
}

/// A module with the usual header around \p Body.
inline std::string module(const std::string &Body) {
  return ".version 9.0\n.target sm_90\n.address_size 64\n" + Body;
}

struct ReadResult {
  std::unique_ptr<ir::Module> M;
  std::string Error; ///< module-level error text, empty when the module was read
};

inline ReadResult read(const std::string &Text, ir::ReadOptions Opts = {}) {
  ReadResult R;
  auto M = ir::readModule(source(Text), Opts);
  if (!M)
    R.Error = llvm::toString(M.takeError());
  else
    R.M = std::move(*M);
  return R;
}

inline std::string print(const ir::Module &M, ir::PrintMode Mode = ir::PrintMode::SSA) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  ir::printModule(OS, M, Mode);
  return S;
}

inline std::string diags(const ir::Function &F) {
  std::string S;
  for (const auto &D : F.Diags)
    S += D.str() + "\n";
  return S;
}

} // namespace ptx2amd::test
