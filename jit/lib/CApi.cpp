// The C boundary: handles, argument checks, and the guard that turns every C++ exception
// (std::bad_alloc above all; our own code reports errors as values) into a status.
#include "ptx2amd/ptx2amd.h"

#include "ptx2amd/amdgpu-backend/Target.h"
#include "ptx2amd/fatbin/AllPtx.h"
#include "ptx2amd/pipeline/Translate.h"

#include <llvm/Support/MemoryBuffer.h>

#include <mutex>
#include <new>

struct ptx2amd_context {
  std::mutex Lock; ///< guards Opts: setters may race with translations starting
  ptx2amd::pipeline::Options Opts;
};

struct ptx2amd_result {
  ptx2amd::pipeline::Translation T;
};

struct ptx2amd_image {
  std::vector<ptx2amd::fatbin::PtxText> Modules;
  std::string Diagnostics;
};

namespace {

using namespace ptx2amd;

template <typename Fn> ptx2amd_status guarded(Fn &&F) noexcept {
  try {
    return F();
  } catch (const std::bad_alloc &) {
    return PTX2AMD_ERROR_OUT_OF_MEMORY;
  } catch (...) {
    return PTX2AMD_ERROR_INTERNAL;
  }
}

ptx2amd_status statusOf(pipeline::Status S) {
  switch (S) {
  case pipeline::Status::Success:
    return PTX2AMD_SUCCESS;
  case pipeline::Status::InvalidInput:
    return PTX2AMD_ERROR_INVALID_INPUT;
  case pipeline::Status::TranslationFailed:
    return PTX2AMD_ERROR_TRANSLATION_FAILED;
  case pipeline::Status::Internal:
    break;
  }
  return PTX2AMD_ERROR_INTERNAL;
}

ptx2amd_function_state stateOf(pipeline::FunctionState S) {
  switch (S) {
  case pipeline::FunctionState::Translated:
    return PTX2AMD_FUNCTION_TRANSLATED;
  case pipeline::FunctionState::Failed:
    break;
  case pipeline::FunctionState::LeftOut:
    return PTX2AMD_FUNCTION_LEFT_OUT;
  case pipeline::FunctionState::ModuleFailed:
    return PTX2AMD_FUNCTION_MODULE_FAILED;
  }
  return PTX2AMD_FUNCTION_FAILED;
}

const pipeline::KernelResult *kernel(const ptx2amd_result *R, size_t Index) {
  return R && Index < R->T.Kernels.size() ? &R->T.Kernels[Index] : nullptr;
}

/// The status for a kernel lookup that found nothing.
ptx2amd_status missing(const ptx2amd_result *R) {
  return R ? PTX2AMD_ERROR_OUT_OF_RANGE : PTX2AMD_ERROR_INVALID_ARGUMENT;
}

ptx2amd_status translateSource(ptx2amd_context *C, std::shared_ptr<const SourceText> Source,
                               const char *Target, ptx2amd_result **Result) {
  pipeline::Options Opts;
  {
    std::lock_guard<std::mutex> G(C->Lock);
    Opts = C->Opts;
  }
  if (Target) {
    Opts.Target = amdgpu::findTarget(Target);
    if (!Opts.Target)
      return PTX2AMD_ERROR_UNKNOWN_TARGET;
  }
  auto R = std::make_unique<ptx2amd_result>();
  try {
    R->T = pipeline::translate(std::move(Source), Opts);
  } catch (const std::bad_alloc &) {
    throw;
  } catch (...) {
    // Keep a result that says what happened: the caller expects diagnostics with this status.
    R->T = {};
    R->T.Result = pipeline::Status::Internal;
    R->T.Target = std::string(Opts.Target->Name);
    R->T.Error = "internal error: unexpected exception during translation";
    R->T.Diagnostics = R->T.Error + "\n";
  }
  ptx2amd_status S = statusOf(R->T.Result);
  *Result = R.release();
  return S;
}

} // namespace

extern "C" {

ptx2amd_status ptx2amd_get_version(int *Major, int *Minor, int *Patch) {
  if (Major)
    *Major = PTX2AMD_VERSION_MAJOR;
  if (Minor)
    *Minor = PTX2AMD_VERSION_MINOR;
  if (Patch)
    *Patch = PTX2AMD_VERSION_PATCH;
  return PTX2AMD_SUCCESS;
}

const char *ptx2amd_status_string(ptx2amd_status S) {
  switch (S) {
  case PTX2AMD_SUCCESS:
    return "success";
  case PTX2AMD_ERROR_INVALID_ARGUMENT:
    return "invalid argument";
  case PTX2AMD_ERROR_UNKNOWN_TARGET:
    return "unknown target";
  case PTX2AMD_ERROR_INVALID_INPUT:
    return "invalid input";
  case PTX2AMD_ERROR_TRANSLATION_FAILED:
    return "translation failed";
  case PTX2AMD_ERROR_OUT_OF_RANGE:
    return "index out of range";
  case PTX2AMD_ERROR_NOT_AVAILABLE:
    return "not available";
  case PTX2AMD_ERROR_NOT_FOUND:
    return "not found";
  case PTX2AMD_ERROR_OUT_OF_MEMORY:
    return "out of memory";
  case PTX2AMD_ERROR_INTERNAL:
    return "internal error";
  }
  return "unknown status";
}

ptx2amd_status ptx2amd_target_count(size_t *Count) {
  if (!Count)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  *Count = amdgpu::allTargets().size();
  return PTX2AMD_SUCCESS;
}

ptx2amd_status ptx2amd_target_name(size_t Index, const char **Name, unsigned *WaveSize) {
  if (!Name)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  if (Index >= amdgpu::allTargets().size())
    return PTX2AMD_ERROR_OUT_OF_RANGE;
  // Targets.def names are string literals, hence NUL-terminated.
  const amdgpu::Target &T = amdgpu::allTargets()[Index];
  *Name = T.Name.data();
  if (WaveSize)
    *WaveSize = T.WaveSize;
  return PTX2AMD_SUCCESS;
}

ptx2amd_status ptx2amd_context_create(ptx2amd_context **Context) {
  if (!Context)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  return guarded([&] {
    auto C = std::make_unique<ptx2amd_context>();
    C->Opts.Target = amdgpu::findTarget("gfx90a");
    *Context = C.release();
    return PTX2AMD_SUCCESS;
  });
}

ptx2amd_status ptx2amd_context_destroy(ptx2amd_context *Context) {
  delete Context;
  return PTX2AMD_SUCCESS;
}

ptx2amd_status ptx2amd_context_set_target(ptx2amd_context *Context, const char *Target) {
  if (!Context || !Target)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  const amdgpu::Target *T = amdgpu::findTarget(Target);
  if (!T)
    return PTX2AMD_ERROR_UNKNOWN_TARGET;
  std::lock_guard<std::mutex> G(Context->Lock);
  Context->Opts.Target = T;
  return PTX2AMD_SUCCESS;
}

ptx2amd_status ptx2amd_context_set_opt_level(ptx2amd_context *Context, int Level) {
  if (!Context || Level < 0 || Level > 3)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  std::lock_guard<std::mutex> G(Context->Lock);
  Context->Opts.Codegen.OptLevel = static_cast<unsigned>(Level);
  return PTX2AMD_SUCCESS;
}

ptx2amd_status ptx2amd_context_set_code_object_version(ptx2amd_context *Context, int Version) {
  if (!Context || Version < 4 || Version > 6)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  std::lock_guard<std::mutex> G(Context->Lock);
  Context->Opts.Codegen.CodeObjectVersion = static_cast<unsigned>(Version);
  return PTX2AMD_SUCCESS;
}

ptx2amd_status ptx2amd_context_set_codegen_partitions(ptx2amd_context *Context,
                                                      unsigned Partitions) {
  if (!Context)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  std::lock_guard<std::mutex> G(Context->Lock);
  Context->Opts.Codegen.CodegenPartitions = Partitions;
  return PTX2AMD_SUCCESS;
}

ptx2amd_status ptx2amd_context_set_output(ptx2amd_context *Context, ptx2amd_output Output) {
  if (!Context || (Output != PTX2AMD_OUTPUT_CODE_OBJECT && Output != PTX2AMD_OUTPUT_LLVM_IR &&
                   Output != PTX2AMD_OUTPUT_ASSEMBLY))
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  std::lock_guard<std::mutex> G(Context->Lock);
  Context->Opts.Out = Output == PTX2AMD_OUTPUT_LLVM_IR    ? pipeline::Output::LoweredIr
                      : Output == PTX2AMD_OUTPUT_ASSEMBLY ? pipeline::Output::Assembly
                                                          : pipeline::Output::CodeObject;
  return PTX2AMD_SUCCESS;
}

ptx2amd_status ptx2amd_translate_ptx(ptx2amd_context *Context, const char *Ptx, size_t Size,
                                     const char *Name, const char *Target,
                                     ptx2amd_result **Result) {
  if (!Result)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  *Result = nullptr;
  if (!Context || !Ptx)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  return guarded([&] {
    auto Source = std::make_shared<const SourceText>(Name ? Name : "<ptx>", std::string(Ptx, Size));
    return translateSource(Context, std::move(Source), Target, Result);
  });
}

ptx2amd_status ptx2amd_image_open(ptx2amd_context *Context, const void *Data, size_t Size,
                                  const char *Name, ptx2amd_image **Image) {
  if (!Image)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  *Image = nullptr;
  if (!Context || !Data)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  return guarded([&] {
    auto I = std::make_unique<ptx2amd_image>();
    std::string N = Name ? Name : "<image>";
    auto Bytes = llvm::MemoryBuffer::getMemBufferCopy(
        llvm::StringRef(static_cast<const char *>(Data), Size), N);
    ptx2amd_status S = PTX2AMD_SUCCESS;
    if (auto Modules = fatbin::readAllPtx(std::move(Bytes), N)) {
      I->Modules = std::move(*Modules);
      if (I->Modules.empty()) {
        I->Diagnostics = "'" + N + "' holds no PTX";
        S = PTX2AMD_ERROR_INVALID_INPUT;
      }
    } else {
      I->Diagnostics = llvm::toString(Modules.takeError());
      S = PTX2AMD_ERROR_INVALID_INPUT;
    }
    *Image = I.release();
    return S;
  });
}

ptx2amd_status ptx2amd_image_destroy(ptx2amd_image *Image) {
  delete Image;
  return PTX2AMD_SUCCESS;
}

ptx2amd_status ptx2amd_image_module_count(const ptx2amd_image *Image, size_t *Count) {
  if (!Image || !Count)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  *Count = Image->Modules.size();
  return PTX2AMD_SUCCESS;
}

ptx2amd_status ptx2amd_image_module(const ptx2amd_image *Image, size_t Index, const char **Ptx,
                                    size_t *Size, const char **Name, unsigned *SmArch) {
  if (!Image || !Ptx || !Size)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  if (Index >= Image->Modules.size())
    return PTX2AMD_ERROR_OUT_OF_RANGE;
  const fatbin::PtxText &M = Image->Modules[Index];
  *Ptx = M.Text.c_str();
  *Size = M.Text.size();
  if (Name)
    *Name = M.Name.c_str();
  if (SmArch)
    *SmArch = M.Arch;
  return PTX2AMD_SUCCESS;
}

ptx2amd_status ptx2amd_image_diagnostics(const ptx2amd_image *Image, const char **Text) {
  if (!Image || !Text)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  *Text = Image->Diagnostics.c_str();
  return PTX2AMD_SUCCESS;
}

ptx2amd_status ptx2amd_translate_image_module(ptx2amd_context *Context, const ptx2amd_image *Image,
                                              size_t Index, const char *Target,
                                              ptx2amd_result **Result) {
  if (!Result)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  *Result = nullptr;
  if (!Context || !Image)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  if (Index >= Image->Modules.size())
    return PTX2AMD_ERROR_OUT_OF_RANGE;
  return guarded([&] {
    // The image stays immutable (and shareable between threads): the source borrows its text,
    // and the result does not outlive this call's use of it.
    const fatbin::PtxText &M = Image->Modules[Index];
    return translateSource(Context, SourceText::borrow(M.Name, M.Text), Target, Result);
  });
}

ptx2amd_status ptx2amd_result_destroy(ptx2amd_result *Result) {
  delete Result;
  return PTX2AMD_SUCCESS;
}

ptx2amd_status ptx2amd_result_status(const ptx2amd_result *Result, ptx2amd_status *Status) {
  if (!Result || !Status)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  *Status = statusOf(Result->T.Result);
  return PTX2AMD_SUCCESS;
}

ptx2amd_status ptx2amd_result_target(const ptx2amd_result *Result, const char **Target) {
  if (!Result || !Target)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  *Target = Result->T.Target.c_str();
  return PTX2AMD_SUCCESS;
}

ptx2amd_status ptx2amd_result_code_object(const ptx2amd_result *Result, const void **Data,
                                          size_t *Size) {
  if (!Result || !Data || !Size)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  if (!Result->T.HasCodeObject)
    return PTX2AMD_ERROR_NOT_AVAILABLE;
  *Data = Result->T.CodeObject.data();
  *Size = Result->T.CodeObject.size();
  return PTX2AMD_SUCCESS;
}

ptx2amd_status ptx2amd_result_text(const ptx2amd_result *Result, const char **Text, size_t *Size) {
  if (!Result || !Text)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  if (!Result->T.HasText)
    return PTX2AMD_ERROR_NOT_AVAILABLE;
  *Text = Result->T.Text.c_str();
  if (Size)
    *Size = Result->T.Text.size();
  return PTX2AMD_SUCCESS;
}

ptx2amd_status ptx2amd_result_error(const ptx2amd_result *Result, const char **Text) {
  if (!Result || !Text)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  *Text = Result->T.Error.c_str();
  return PTX2AMD_SUCCESS;
}

ptx2amd_status ptx2amd_result_diagnostics(const ptx2amd_result *Result, const char **Text) {
  if (!Result || !Text)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  *Text = Result->T.Diagnostics.c_str();
  return PTX2AMD_SUCCESS;
}

ptx2amd_status ptx2amd_result_function_count(const ptx2amd_result *Result, size_t *Count) {
  if (!Result || !Count)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  *Count = Result->T.Functions.size();
  return PTX2AMD_SUCCESS;
}

ptx2amd_status ptx2amd_result_function(const ptx2amd_result *Result, size_t Index,
                                       const char **Name, int *IsKernel, int *Translated,
                                       const char **Reason) {
  if (!Result || !Name)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  if (Index >= Result->T.Functions.size())
    return PTX2AMD_ERROR_OUT_OF_RANGE;
  const pipeline::FunctionResult &F = Result->T.Functions[Index];
  *Name = F.Name.c_str();
  if (IsKernel)
    *IsKernel = F.IsKernel;
  if (Translated)
    *Translated = F.translated();
  if (Reason)
    *Reason = F.Reason.c_str();
  return PTX2AMD_SUCCESS;
}

ptx2amd_status ptx2amd_result_function_state(const ptx2amd_result *Result, size_t Index,
                                             ptx2amd_function_state *State) {
  if (!Result || !State)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  if (Index >= Result->T.Functions.size())
    return PTX2AMD_ERROR_OUT_OF_RANGE;
  *State = stateOf(Result->T.Functions[Index].State);
  return PTX2AMD_SUCCESS;
}

ptx2amd_status ptx2amd_result_kernel_count(const ptx2amd_result *Result, size_t *Count) {
  if (!Result || !Count)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  *Count = Result->T.Kernels.size();
  return PTX2AMD_SUCCESS;
}

ptx2amd_status ptx2amd_result_kernel_find(const ptx2amd_result *Result, const char *Name,
                                          size_t *Index) {
  if (!Result || !Name || !Index)
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  const auto &Kernels = Result->T.Kernels;
  for (size_t K = 0; K < Kernels.size(); ++K)
    if (Result->T.Functions[Kernels[K].Function].Name == Name) {
      *Index = K;
      return PTX2AMD_SUCCESS;
    }
  return PTX2AMD_ERROR_NOT_FOUND;
}

ptx2amd_status ptx2amd_result_kernel_name(const ptx2amd_result *Result, size_t Index,
                                          const char **Name) {
  const pipeline::KernelResult *K = kernel(Result, Index);
  if (!K || !Name)
    return Name ? missing(Result) : PTX2AMD_ERROR_INVALID_ARGUMENT;
  *Name = Result->T.Functions[K->Function].Name.c_str();
  return PTX2AMD_SUCCESS;
}

ptx2amd_status ptx2amd_result_kernel_translated(const ptx2amd_result *Result, size_t Index,
                                                int *Translated, const char **Reason) {
  const pipeline::KernelResult *K = kernel(Result, Index);
  if (!K || !Translated)
    return Translated ? missing(Result) : PTX2AMD_ERROR_INVALID_ARGUMENT;
  const pipeline::FunctionResult &F = Result->T.Functions[K->Function];
  *Translated = F.translated();
  if (Reason)
    *Reason = F.Reason.c_str();
  return PTX2AMD_SUCCESS;
}

ptx2amd_status ptx2amd_result_kernel_property(const ptx2amd_result *Result, size_t Index,
                                              ptx2amd_kernel_property Property, uint64_t *Value) {
  const pipeline::KernelResult *K = kernel(Result, Index);
  if (!K || !Value)
    return Value ? missing(Result) : PTX2AMD_ERROR_INVALID_ARGUMENT;
  if (!K->Metadata)
    return PTX2AMD_ERROR_NOT_AVAILABLE;
  const amdgpu::KernelMetadata &MD = *K->Metadata;
  switch (Property) {
  case PTX2AMD_KERNEL_KERNARG_SIZE:
    *Value = MD.KernargSegmentSize;
    break;
  case PTX2AMD_KERNEL_KERNARG_ALIGN:
    *Value = MD.KernargSegmentAlign;
    break;
  case PTX2AMD_KERNEL_EXPLICIT_KERNARG_SIZE:
    *Value = MD.explicitKernargSize();
    break;
  case PTX2AMD_KERNEL_ARG_COUNT:
    *Value = MD.Args.size();
    break;
  case PTX2AMD_KERNEL_EXPLICIT_ARG_COUNT:
    *Value = K->ExplicitArgs;
    break;
  case PTX2AMD_KERNEL_STATIC_LDS_SIZE:
    *Value = MD.GroupSegmentFixedSize;
    break;
  case PTX2AMD_KERNEL_USES_DYNAMIC_LDS:
    *Value = K->UsesDynamicLds;
    break;
  case PTX2AMD_KERNEL_SCRATCH_SIZE:
    *Value = MD.PrivateSegmentFixedSize;
    break;
  case PTX2AMD_KERNEL_USES_DYNAMIC_STACK:
    *Value = MD.UsesDynamicStack;
    break;
  case PTX2AMD_KERNEL_VGPR_COUNT:
    *Value = MD.VgprCount;
    break;
  case PTX2AMD_KERNEL_SGPR_COUNT:
    *Value = MD.SgprCount;
    break;
  case PTX2AMD_KERNEL_AGPR_COUNT:
    *Value = MD.AgprCount;
    break;
  case PTX2AMD_KERNEL_VGPR_SPILL_COUNT:
    *Value = MD.VgprSpillCount;
    break;
  case PTX2AMD_KERNEL_SGPR_SPILL_COUNT:
    *Value = MD.SgprSpillCount;
    break;
  case PTX2AMD_KERNEL_WAVEFRONT_SIZE:
    *Value = MD.WavefrontSize;
    break;
  case PTX2AMD_KERNEL_MAX_FLAT_WORKGROUP_SIZE:
    *Value = MD.MaxFlatWorkgroupSize;
    break;
  default:
    return PTX2AMD_ERROR_INVALID_ARGUMENT;
  }
  return PTX2AMD_SUCCESS;
}

ptx2amd_status ptx2amd_result_kernel_arg(const ptx2amd_result *Result, size_t Index, size_t Arg,
                                         uint64_t *Offset, uint64_t *Size, const char **Kind) {
  const pipeline::KernelResult *K = kernel(Result, Index);
  if (!K || !Offset || !Size)
    return Offset && Size ? missing(Result) : PTX2AMD_ERROR_INVALID_ARGUMENT;
  if (!K->Metadata)
    return PTX2AMD_ERROR_NOT_AVAILABLE;
  if (Arg >= K->Metadata->Args.size())
    return PTX2AMD_ERROR_OUT_OF_RANGE;
  const amdgpu::KernelArgMetadata &A = K->Metadata->Args[Arg];
  *Offset = A.Offset;
  *Size = A.Size;
  if (Kind)
    *Kind = A.ValueKind.c_str();
  return PTX2AMD_SUCCESS;
}

} // extern "C"
