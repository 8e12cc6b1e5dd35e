//===- ptx2amd/amdgpu-backend/KernelMetadata.h - code object metadata -*- C++ -*-===//
//
// Kernel metadata read back from an AMDGPU code object: the msgpack document
// of its NT_AMDGPU_METADATA note ("amdhsa.kernels", code object v3 and later),
// plus the ELF header fields that identify the target and ABI version. This is
// what the loader needs to launch a kernel and what tools report.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ptx2amd::amdgpu {

/// One entry of a kernel's ".args".
struct KernelArgMetadata {
  std::string Name;         ///< ".name" (may be empty: hidden arguments have none)
  std::string TypeName;     ///< ".type_name" (may be empty)
  uint64_t Offset = 0;      ///< ".offset" in the kernarg segment
  uint64_t Size = 0;        ///< ".size"
  std::string ValueKind;    ///< ".value_kind": by_value, global_buffer, hidden_block_count_x, ...
  std::string AddressSpace; ///< ".address_space" for pointers: global, constant, local, ...
  bool isHidden() const { return llvm::StringRef(ValueKind).starts_with("hidden_"); }
};

struct KernelMetadata {
  std::string Name;   ///< ".name"
  std::string Symbol; ///< ".symbol" (the kernel descriptor, "<name>.kd")
  uint64_t KernargSegmentSize = 0;
  uint64_t KernargSegmentAlign = 0;
  uint64_t GroupSegmentFixedSize = 0;   ///< static LDS bytes
  uint64_t PrivateSegmentFixedSize = 0; ///< scratch bytes per work-item
  uint64_t VgprCount = 0;
  uint64_t SgprCount = 0;
  uint64_t AgprCount = 0; ///< 0 where the target has no AGPRs
  uint64_t VgprSpillCount = 0;
  uint64_t SgprSpillCount = 0;
  uint64_t WavefrontSize = 0;
  uint64_t MaxFlatWorkgroupSize = 0;
  bool UsesDynamicStack = false;
  std::vector<KernelArgMetadata> Args; ///< explicit arguments first, then hidden ones

  /// The bytes of the explicit (non-hidden) arguments: the end of the last one.
  uint64_t explicitKernargSize() const;
};

struct CodeObjectMetadata {
  uint16_t Machine = 0;          ///< e_machine (EM_AMDGPU = 224)
  uint32_t Flags = 0;            ///< e_flags (EF_AMDGPU_MACH in the low byte, xnack/sramecc bits)
  uint8_t OsAbi = 0;             ///< EI_OSABI (ELFOSABI_AMDGPU_HSA = 64)
  uint8_t AbiVersion = 0;        ///< EI_ABIVERSION: 2 = code object v4, 3 = v5, 4 = v6
  std::vector<uint64_t> Version; ///< "amdhsa.version", e.g. {1, 2} for v5
  std::string TargetId;          ///< "amdhsa.target", e.g. "amdgcn-amd-amdhsa--gfx90a:xnack-"
  std::vector<KernelMetadata> Kernels;

  unsigned elfMach() const { return Flags & 0xff; }
  /// 4, 5, 6 (from EI_ABIVERSION), 0 if unknown.
  unsigned codeObjectVersion() const;
  const KernelMetadata *findKernel(llvm::StringRef Name) const;
};

/// Reads the ELF header and the NT_AMDGPU_METADATA note of an AMDGPU code object
/// (linked HSACO or relocatable object). Malformed input is an error, never a crash.
llvm::Expected<CodeObjectMetadata> readCodeObjectMetadata(llvm::ArrayRef<uint8_t> CodeObject);

/// The "amdhsa.kernels" part of readCodeObjectMetadata().
llvm::Expected<std::vector<KernelMetadata>> readKernelMetadata(llvm::ArrayRef<uint8_t> CodeObject);

} // namespace ptx2amd::amdgpu
