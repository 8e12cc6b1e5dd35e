// LLVM's new pass manager, set up for the host backend's own passes over a module (WorkGroup.cpp,
// VectorizeWaves.cpp).
#pragma once

#include "llvm/Passes/PassBuilder.h"

namespace ptx2amd::host {

/// The four analysis managers, registered and cross-wired with one PassBuilder.
struct PassSetup {
  llvm::LoopAnalysisManager LAM;
  llvm::FunctionAnalysisManager FAM;
  llvm::CGSCCAnalysisManager CGAM;
  llvm::ModuleAnalysisManager MAM;
  llvm::PassBuilder PB;

  PassSetup() {
    PB.registerModuleAnalyses(MAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerLoopAnalyses(LAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  }
};

} // namespace ptx2amd::host
