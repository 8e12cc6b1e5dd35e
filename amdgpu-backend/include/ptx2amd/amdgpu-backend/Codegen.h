//===- ptx2amd/amdgpu-backend/Codegen.h - LLVM IR to AMDGPU code object -*- C++ -*-===//
//
// The last stage of the pipeline: an LLVM module for amdgcn-amd-amdhsa becomes
// an AMDGPU code object (HSACO), all in-process:
//
//   verify ─► set triple, data layout, amdhsa_code_object_version
//          ─► optimise (new pass manager, -O0..-O3)
//          ─► codegen (TargetMachine, relocatable object in memory)
//          ─► lld -shared --no-undefined ─► HSACO bytes + kernel metadata
//
// Every failure (invalid IR, error diagnostics from code generation such as LDS
// over the target's limit, link errors) is returned as an llvm::Error with the
// text of the problem. Two limits: LLVM reports some instruction-selection
// failures ("Cannot select") with report_fatal_error, which ends the process;
// the lowering must not produce such IR.
//
// Thread safety: calls on different modules (each in its own LLVMContext) may
// run concurrently. Optimisation and code generation run in parallel; the lld
// step is serialised inside the library (lld as a library is not re-entrant).
// Every function below modifies the module it is given (triple, data layout,
// optimisation): pass a clone to keep the original.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ptx2amd/amdgpu-backend/KernelMetadata.h"
#include "ptx2amd/amdgpu-backend/Target.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace ptx2amd::amdgpu {

inline constexpr const char *AmdgpuTriple = "amdgcn-amd-amdhsa";

struct CodegenOptions {
  unsigned OptLevel = 3;          ///< 0..3: the IR pipeline and the codegen level
  unsigned CodeObjectVersion = 5; ///< 4, 5 or 6 (the HSA runtime in Debian knows up to 5)
  /// Code generation of a large module runs in parallel on partitions of its kernels (kernels
  /// that share internal functions or LDS stay together), linked into one code object.
  /// 0: automatic (up to 8 partitions, for modules of at least MinPartitionKernels kernels and
  /// PartitionInstructions IR instructions per partition); 1: never; N: at most N partitions.
  /// The output depends on the module and these options only, not on the threads available.
  unsigned CodegenPartitions = 0;
  unsigned MinPartitionKernels = 8;
  unsigned PartitionInstructions = 10000;
  /// Keep the software texture path's entry points (isSoftwareTextureEntry) out of line: the
  /// CPU device calls them once per lane of a vectorised wave. The GPU inlines them.
  bool OutlineSoftwareTextures = false;
  /// The module's declared `.global`/`.const` variables are defined at load by another module
  /// (lazy per-kernel translation's data slice, loader/README.md): the kernels using them stay,
  /// and the code object leaves them undefined, for the loader to define.
  bool ExternalVariables = false;
  /// Dynamic shared memory lies in global memory, one slice per block, given at launch
  /// (placeDynamicSharedInGlobal): for launches that ask for more than the target's LDS.
  bool DynamicSharedInGlobal = false;
};

/// Whether \p Name is an entry point of the software texture path (device-lib/
/// ptx2amd-texture.c), which the lowering calls for what the image unit cannot do.
bool isSoftwareTextureEntry(llvm::StringRef Name);

/// Wall-clock milliseconds of each step of one compileToCodeObject() call.
struct PhaseTimes {
  double OptimizeMs = 0; ///< verify + prepare + IR pipeline
  double CodegenMs = 0;  ///< instruction selection to relocatable object
  double LinkMs = 0;     ///< lld, including the wait for the lld mutex
};

/// A kernel left out of a code object, and why (the others are still there).
struct DroppedKernel {
  std::string Name;
  std::string Reason;
};

struct CodeObject {
  std::vector<uint8_t> Bytes; ///< the linked ELF shared object (HSACO)
  const Target *Tgt = nullptr;
  unsigned CodeObjectVersion = 0;
  std::vector<KernelMetadata> Kernels; ///< read back from Bytes
  std::vector<std::string> Warnings;   ///< warning diagnostics from optimisation/codegen
  std::vector<DroppedKernel> Dropped;  ///< kernels of the module that are not in Bytes
  unsigned Partitions = 1; ///< code-generated in parallel on this many parts (with kernels)
  PhaseTimes Times;
};

/// LLVM's default pipeline at -O\p OptLevel (0..3) for \p TM's target: the project's one IR
/// pipeline, run for AMDGPU by optimizeModule and for the CPU by host-backend.
void runDefaultPipeline(llvm::Module &M, llvm::TargetMachine &TM, unsigned OptLevel);

/// Checks the options (opt level, code object version): an error names the bad one.
llvm::Error validateOptions(const CodegenOptions &Opts);

/// Verifies \p M (the verifier's text is the error), sets its triple, data
/// layout and the amdhsa_code_object_version module flag for \p T, and links
/// the device-library functions it calls (linkDeviceLibraries). A module whose
/// triple names another architecture is an error. Kernels that still call
/// functions defined nowhere are removed and listed in \p Dropped when given.
llvm::Error prepareModule(llvm::Module &M, const Target &T, const CodegenOptions &Opts,
                          std::vector<DroppedKernel> *Dropped = nullptr);

/// Links, from the device libraries embedded in this library, the functions \p M
/// calls: `__ptx2amd_*` from the project's own (device-lib/, built for the
/// target's wave size), `__ocml_*`/`__ockl_*` from ROCm's; defines ROCm's
/// `__oclc_*` control variables for \p T. Linked functions become internal.
llvm::Error linkDeviceLibraries(llvm::Module &M, const Target &T, unsigned CodeObjectVersion);

/// Removes the kernels (and functions) that call a function or use a variable,
/// directly or not, that \p M declares but does not define (`.extern` in PTX,
/// to be linked from elsewhere); returns the kernels with the reason. With
/// \p ExternalVariables, declared variables are defined at load (CodegenOptions).
std::vector<DroppedKernel> dropKernelsWithUnresolvedCalls(llvm::Module &M,
                                                          bool ExternalVariables = false);

/// Places the dynamic shared memory of \p M's kernels in global memory: each kernel takes the
/// argument DynamicSharedArgName (Kernarg.h) last, and every shared-memory access past the
/// dynamic variable's LDS offset goes to the block's slice. Static shared memory stays in LDS.
/// A shared address passed to a function \p M does not define is an error.
llvm::Error placeDynamicSharedInGlobal(llvm::Module &M);

/// prepareModule, then the default per-module pipeline at Opts.OptLevel (-O0: the
/// O0 pipeline, which only runs always-inline and the like). For `--emit llvm`. Kernels
/// prepareModule removed are listed in \p Dropped when given.
llvm::Error optimizeModule(llvm::Module &M, const Target &T, const CodegenOptions &Opts,
                           std::vector<DroppedKernel> *Dropped = nullptr);

/// optimizeModule, then AMDGPU assembly text (`--emit asm`).
llvm::Expected<std::string> compileToAssembly(llvm::Module &M, const Target &T,
                                              const CodegenOptions &Opts);

/// Assembly text of \p M, which optimizeModule has prepared and optimised.
llvm::Expected<std::string> emitAssembly(llvm::Module &M, const Target &T,
                                         const CodegenOptions &Opts);

/// Codegen of \p M, which optimizeModule has prepared and optimised, to a relocatable object,
/// linked with lld, its metadata read. A kernel whose code generation fails (LLVM reports a
/// fatal error or crashes in instruction selection) is left out and listed in
/// CodeObject::Dropped; the others are still compiled.
llvm::Expected<CodeObject> emitCodeObject(llvm::Module &M, const Target &T,
                                          const CodegenOptions &Opts);

/// optimizeModule, codegen to a relocatable object, link with lld, read the metadata.
/// A kernel whose code generation fails (LLVM reports a fatal error or crashes in
/// instruction selection) is left out and listed in CodeObject::Dropped; the
/// others are still compiled.
llvm::Expected<CodeObject> compileToCodeObject(llvm::Module &M, const Target &T,
                                               const CodegenOptions &Opts);

/// Links one relocatable AMDGPU object into a code object with in-process lld
/// (`-shared --no-undefined`; without `--no-undefined` when \p AllowUndefined: variables
/// defined at load). Serialised process-wide by a mutex.
llvm::Expected<std::vector<uint8_t>> linkCodeObject(llvm::ArrayRef<uint8_t> RelocatableObject,
                                                    bool AllowUndefined = false);
/// Links several (the partitions of one module) into one code object, whose metadata note
/// lists the kernels of all of them.
llvm::Expected<std::vector<uint8_t>>
linkCodeObject(llvm::ArrayRef<llvm::ArrayRef<uint8_t>> RelocatableObjects,
               bool AllowUndefined = false);

} // namespace ptx2amd::amdgpu
