// Internal: state shared by the lowering passes of one module.
#pragma once

#include "ptx2amd/lowering/Lowering.h"

#include <llvm/IR/IRBuilder.h>

namespace ptx2amd::lowering {

/// AMDGPU address spaces (see DESIGN.md's memory-space table).
enum AddrSpace : unsigned { ASFlat = 0, ASGlobal = 1, ASLDS = 3, ASConst = 4, ASPrivate = 5 };

struct ModuleState {
  ir::Module &PTX;
  const TargetDesc &Target;
  llvm::LLVMContext &Ctx;
  llvm::Module &M;
  /// By ir::Module::Globals index; null when the global could not be lowered (see GlobalProblem).
  std::vector<llvm::GlobalVariable *> Globals;
  std::vector<std::string> GlobalProblem;
  /// By ir::Module::Functions index; null when not lowered.
  std::vector<llvm::Function *> Functions;
  std::vector<FunctionStatus> Status;
  /// Barrier ids (bit K: id K) that take the LDS barrier rather than s_barrier (planBarriers).
  uint16_t LdsBarrierIds = 0;
};

/// Thrown inside a function's lowering only (caught by the pass): fails that function.
struct LoweringError {
  SourceLoc Loc;
  std::string Message;
};

// The passes, in the order lib/Pipeline.cpp runs them.
void declareGlobals(ModuleState &S);
void declareFunctions(ModuleState &S);
void planBarriers(ModuleState &S);
void lowerBodies(ModuleState &S);
void dropFunctionsWithFailedCallees(ModuleState &S);
void initBarrierState(ModuleState &S);
void collectExternalCallees(ModuleState &S);

/// The handle variable of kernel \p FunctionIndex (KernelHandlePrefix), made on first use.
llvm::GlobalVariable *kernelHandle(ModuleState &S, size_t FunctionIndex);

/// The LLVM type a PTX register of type \p T lives in: iN (i1 for predicates).
llvm::Type *storageType(llvm::LLVMContext &C, ir::Type T);
/// The LLVM type an instruction of type \p T computes in (float types as LLVM floats).
llvm::Type *valueType(llvm::LLVMContext &C, ir::Type T);
/// The LLVM type of a device-function parameter, and a device function's type.
llvm::Type *paramType(llvm::LLVMContext &C, const ir::Variable &P);
llvm::FunctionType *deviceFunctionType(llvm::LLVMContext &C,
                                       const std::vector<ir::Variable> &Returns,
                                       const std::vector<ir::Variable> &Params);
/// Size and alignment of a PTX variable.
uint64_t variableSize(const ir::Variable &V);
unsigned variableAlign(const ir::Variable &V);

} // namespace ptx2amd::lowering
