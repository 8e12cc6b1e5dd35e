// Test kernels (LLVM IR text) and helpers shared by the amdgpu-backend tests.
#pragma once

#include "ptx2amd/amdgpu-backend/Codegen.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
class Function;
} // namespace llvm

namespace amdgpu_test {

struct TestKernel {
  const char *Kernel; ///< the kernel's name in the IR
  const char *IR;
  uint64_t LdsBytes;         ///< expected .group_segment_fixed_size
  uint64_t MaxFlatWorkgroup; ///< expected .max_flat_workgroup_size
};

/// out[tid] = a * x[tid] + y[tid] (tid < n), "amdgpu-flat-work-group-size"="1,256".
extern const TestKernel Saxpy;
/// Reverses a block of 256 floats through an addrspace(3) array and s_barrier.
extern const TestKernel LdsReverse;
/// An i8, a byref(%struct) align 16 aggregate, a direct {i32,i16} and a pointer.
extern const TestKernel Aggregate;
/// All of the above.
extern const TestKernel *const AllKernels[3];

/// IR with an addrspace(3) array of \p Bytes bytes.
std::string ldsKernelOfSize(uint64_t Bytes);

/// Parses IR text; fails the current test (Catch REQUIRE) on a parse error.
std::unique_ptr<llvm::Module> parseIR(llvm::LLVMContext &Ctx, llvm::StringRef IR);

/// Offset and size of each explicit argument as the IR implies them: natural
/// (ABI) alignment, or the align of a byref argument, its size the alloc size
/// of the value (or byref) type, packed in order. \p F's module must have the
/// AMDGPU data layout (prepareModule()).
struct ArgSlot {
  uint64_t Offset, Size;
};
std::vector<ArgSlot> expectedKernargLayout(const llvm::Function &F);

/// The raw ELF header fields, read straight from the bytes (independent of the library).
struct RawElfHeader {
  uint8_t Class, Data, OsAbi, AbiVersion;
  uint16_t Type, Machine;
  uint32_t Flags;
};
RawElfHeader rawElfHeader(llvm::ArrayRef<uint8_t> Bytes);

/// Consumes an Error or Expected's error and returns its text ("" for success).
std::string errorText(llvm::Error E);

/// Compiles \p K for \p T (fresh context); REQUIREs success.
ptx2amd::amdgpu::CodeObject compileKernel(const TestKernel &K, const ptx2amd::amdgpu::Target &T,
                                          const ptx2amd::amdgpu::CodegenOptions &Opts = {});

/// Compiles every test kernel for every target as code object v4, v5 (at -O3) and v6 (at -O0),
/// and hands each code object to \p Check (with the kernel and case named in Catch's INFO).
void forEachKernelTargetVersion(
    llvm::function_ref<void(const ptx2amd::amdgpu::Target &, const ptx2amd::amdgpu::CodeObject &)>
        Check);

/// Compare a code object's metadata (as readKernelMetadata gives it) with independent readers:
/// `llvm-readelf-22 --notes` (MetadataTest.cpp, when found) and ROCm comgr (ComgrTest.cpp, when
/// installed). Each fails the current test on a difference.
void checkMetadataAgainstReadelf(const ptx2amd::amdgpu::Target &T,
                                 const ptx2amd::amdgpu::CodeObject &CO);
void checkMetadataAgainstComgr(const ptx2amd::amdgpu::Target &T,
                               const ptx2amd::amdgpu::CodeObject &CO);

} // namespace amdgpu_test
