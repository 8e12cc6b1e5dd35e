// The C API's contract: argument checks, options, per-kernel failures, metadata, images and
// diagnostics. Everything goes through include/ptx2amd/ptx2amd.h and libptx2amd.so.
#include "ptx2amd/ptx2amd.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

namespace {

std::string readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

const std::string Saxpy = readFile(PTX2AMD_SOURCE_DIR "/examples/saxpy.ptx");
const char SaxpyKernel[] = "_Z5saxpyifPKfPfS1_";

struct ContextDeleter {
  void operator()(ptx2amd_context *C) const { ptx2amd_context_destroy(C); }
};
struct ResultDeleter {
  void operator()(ptx2amd_result *R) const { ptx2amd_result_destroy(R); }
};
using ContextPtr = std::unique_ptr<ptx2amd_context, ContextDeleter>;
using ResultPtr = std::unique_ptr<ptx2amd_result, ResultDeleter>;

ContextPtr makeContext() {
  ptx2amd_context *C = nullptr;
  REQUIRE(ptx2amd_context_create(&C) == PTX2AMD_SUCCESS);
  return ContextPtr(C);
}

ResultPtr translate(ptx2amd_context *C, const std::string &Ptx, const char *Target,
                    ptx2amd_status Expected, const char *Name = "test.ptx") {
  ptx2amd_result *R = nullptr;
  CHECK(ptx2amd_translate_ptx(C, Ptx.data(), Ptx.size(), Name, Target, &R) == Expected);
  return ResultPtr(R);
}

uint64_t property(const ptx2amd_result *R, size_t K, ptx2amd_kernel_property P) {
  uint64_t V = ~0ull;
  REQUIRE(ptx2amd_result_kernel_property(R, K, P, &V) == PTX2AMD_SUCCESS);
  return V;
}

std::string diagnostics(const ptx2amd_result *R) {
  const char *D = nullptr;
  REQUIRE(ptx2amd_result_diagnostics(R, &D) == PTX2AMD_SUCCESS);
  return D;
}

// A kernel that fails (an unsupported instruction in a function it calls), one that needs a
// function from elsewhere, one that uses dynamic shared memory and one plain kernel: the module
// still yields a code object.
const char PartialPtx[] = R"(.version 9.0
.target sm_90
.address_size 64
.extern .shared .align 16 .b8 dyn[];
.extern .func (.param .b32 r) user_op(.param .b32 a);
.func (.param .b32 r) tex_helper(.param .b64 t)
{
  .reg .b32 %r<5>;
  .reg .b64 %rd1;
  ld.param.u64 %rd1, [t];
  tex.2dms.v4.s32.s32 {%r1, %r2, %r3, %r4}, [%rd1, {%r1, %r1, %r1, %r1}];
  st.param.b32 [r], %r1;
  ret;
}
.visible .entry uses_tex(.param .u64 t)
{
  .reg .b64 %rd1;
  .reg .b32 %r1;
  ld.param.u64 %rd1, [t];
  {
  .param .b64 param0;
  st.param.b64 [param0], %rd1;
  .param .b32 retval0;
  call.uni (retval0), tex_helper, (param0);
  ld.param.b32 %r1, [retval0];
  }
  st.global.u32 [%rd1], %r1;
  ret;
}
.func store_dyn(.param .b32 v)
{
  .reg .b32 %r<3>;
  ld.param.u32 %r1, [v];
  mov.u32 %r2, dyn;
  st.shared.u32 [%r2], %r1;
  ret;
}
.visible .entry uses_dyn(.param .u32 v)
{
  .reg .b32 %r1;
  ld.param.u32 %r1, [v];
  {
  .param .b32 param0;
  st.param.b32 [param0], %r1;
  call.uni store_dyn, (param0);
  }
  ret;
}
.visible .entry callback(.param .u32 v)
{
  .reg .b32 %r<3>;
  ld.param.u32 %r1, [v];
  {
  .param .b32 p0;
  st.param.b32 [p0], %r1;
  .param .b32 r0;
  call.uni (r0), user_op, (p0);
  ld.param.b32 %r2, [r0];
  }
  ret;
}
.visible .entry plain(.param .u64 p, .param .u32 v)
{
  .reg .b64 %rd1;
  .reg .b32 %r1;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [v];
  st.global.u32 [%rd1], %r1;
  ret;
}
)";

} // namespace

TEST_CASE("version, statuses and targets") {
  int Major = -1, Minor = -1, Patch = -1;
  REQUIRE(ptx2amd_get_version(&Major, &Minor, &Patch) == PTX2AMD_SUCCESS);
  CHECK(Major == PTX2AMD_VERSION_MAJOR);
  CHECK(Minor == PTX2AMD_VERSION_MINOR);
  CHECK(Patch == PTX2AMD_VERSION_PATCH);
  CHECK(std::string(ptx2amd_status_string(PTX2AMD_SUCCESS)) == "success");
  CHECK(std::string(ptx2amd_status_string(PTX2AMD_ERROR_UNKNOWN_TARGET)) == "unknown target");
  CHECK(std::string(ptx2amd_status_string(static_cast<ptx2amd_status>(12345))) == "unknown status");
  size_t N = 0;
  REQUIRE(ptx2amd_target_count(&N) == PTX2AMD_SUCCESS);
  REQUIRE(N >= 6);
  const char *Name = nullptr;
  unsigned Wave = 0;
  REQUIRE(ptx2amd_target_name(0, &Name, &Wave) == PTX2AMD_SUCCESS);
  CHECK(std::string(Name) == "gfx90a");
  CHECK(Wave == 64);
  CHECK(ptx2amd_target_name(N, &Name, nullptr) == PTX2AMD_ERROR_OUT_OF_RANGE);
}

TEST_CASE("invalid arguments are statuses, never crashes") {
  ContextPtr C = makeContext();
  ptx2amd_result *R = reinterpret_cast<ptx2amd_result *>(1);
  CHECK(ptx2amd_context_create(nullptr) == PTX2AMD_ERROR_INVALID_ARGUMENT);
  CHECK(ptx2amd_translate_ptx(nullptr, "x", 1, nullptr, nullptr, &R) ==
        PTX2AMD_ERROR_INVALID_ARGUMENT);
  CHECK(R == nullptr);
  CHECK(ptx2amd_translate_ptx(C.get(), nullptr, 0, nullptr, nullptr, &R) ==
        PTX2AMD_ERROR_INVALID_ARGUMENT);
  CHECK(ptx2amd_translate_ptx(C.get(), "x", 1, nullptr, nullptr, nullptr) ==
        PTX2AMD_ERROR_INVALID_ARGUMENT);
  CHECK(ptx2amd_context_set_target(C.get(), "gfx9000") == PTX2AMD_ERROR_UNKNOWN_TARGET);
  CHECK(ptx2amd_context_set_target(nullptr, "gfx90a") == PTX2AMD_ERROR_INVALID_ARGUMENT);
  CHECK(ptx2amd_context_set_opt_level(C.get(), 4) == PTX2AMD_ERROR_INVALID_ARGUMENT);
  CHECK(ptx2amd_context_set_opt_level(C.get(), -1) == PTX2AMD_ERROR_INVALID_ARGUMENT);
  CHECK(ptx2amd_context_set_code_object_version(C.get(), 3) == PTX2AMD_ERROR_INVALID_ARGUMENT);
  CHECK(ptx2amd_context_set_output(C.get(), static_cast<ptx2amd_output>(7)) ==
        PTX2AMD_ERROR_INVALID_ARGUMENT);
  CHECK(ptx2amd_translate_ptx(C.get(), Saxpy.data(), Saxpy.size(), nullptr, "gfx9000", &R) ==
        PTX2AMD_ERROR_UNKNOWN_TARGET);
  CHECK(R == nullptr);
  size_t Count;
  CHECK(ptx2amd_result_kernel_count(nullptr, &Count) == PTX2AMD_ERROR_INVALID_ARGUMENT);
  CHECK(ptx2amd_result_destroy(nullptr) == PTX2AMD_SUCCESS);
  CHECK(ptx2amd_context_destroy(nullptr) == PTX2AMD_SUCCESS);
  CHECK(ptx2amd_image_destroy(nullptr) == PTX2AMD_SUCCESS);
}

TEST_CASE("saxpy: code object and metadata on wave64 and wave32 targets") {
  ContextPtr C = makeContext();
  for (auto [Target, Wave] : {std::pair{"gfx90a", 64}, std::pair{"gfx1100", 32}}) {
    ResultPtr R = translate(C.get(), Saxpy, Target, PTX2AMD_SUCCESS, "saxpy.ptx");
    REQUIRE(R);
    const char *T = nullptr;
    REQUIRE(ptx2amd_result_target(R.get(), &T) == PTX2AMD_SUCCESS);
    CHECK(std::string(T) == Target);
    const void *Data = nullptr;
    size_t Size = 0;
    REQUIRE(ptx2amd_result_code_object(R.get(), &Data, &Size) == PTX2AMD_SUCCESS);
    REQUIRE(Size > 64);
    CHECK(std::memcmp(Data,
                      "\x7f"
                      "ELF",
                      4) == 0);
    CHECK(static_cast<const uint8_t *>(Data)[18] == 224); // e_machine EM_AMDGPU
    const char *Text;
    CHECK(ptx2amd_result_text(R.get(), &Text, nullptr) == PTX2AMD_ERROR_NOT_AVAILABLE);
    size_t N = 0;
    REQUIRE(ptx2amd_result_kernel_count(R.get(), &N) == PTX2AMD_SUCCESS);
    REQUIRE(N == 1);
    size_t K = 99;
    REQUIRE(ptx2amd_result_kernel_find(R.get(), SaxpyKernel, &K) == PTX2AMD_SUCCESS);
    CHECK(K == 0);
    CHECK(ptx2amd_result_kernel_find(R.get(), "nope", &K) == PTX2AMD_ERROR_NOT_FOUND);
    int Translated = 0;
    const char *Reason = nullptr;
    REQUIRE(ptx2amd_result_kernel_translated(R.get(), 0, &Translated, &Reason) == PTX2AMD_SUCCESS);
    CHECK(Translated == 1);
    CHECK(std::string(Reason).empty());
    CHECK(property(R.get(), 0, PTX2AMD_KERNEL_WAVEFRONT_SIZE) == uint64_t(Wave));
    CHECK(property(R.get(), 0, PTX2AMD_KERNEL_STATIC_LDS_SIZE) == 1024);
    CHECK(property(R.get(), 0, PTX2AMD_KERNEL_USES_DYNAMIC_LDS) == 0);
    CHECK(property(R.get(), 0, PTX2AMD_KERNEL_EXPLICIT_ARG_COUNT) == 5);
    CHECK(property(R.get(), 0, PTX2AMD_KERNEL_EXPLICIT_KERNARG_SIZE) == 32);
    CHECK(property(R.get(), 0, PTX2AMD_KERNEL_KERNARG_SIZE) >= 32);
    CHECK(property(R.get(), 0, PTX2AMD_KERNEL_VGPR_COUNT) > 0);
    CHECK(property(R.get(), 0, PTX2AMD_KERNEL_SGPR_COUNT) > 0);
    CHECK(property(R.get(), 0, PTX2AMD_KERNEL_MAX_FLAT_WORKGROUP_SIZE) >= 256);
    CHECK(property(R.get(), 0, PTX2AMD_KERNEL_SCRATCH_SIZE) == 0);
    // CUDA's parameter layout: int, float, then three pointers at 8-byte alignment.
    const uint64_t Offsets[] = {0, 4, 8, 16, 24}, Sizes[] = {4, 4, 8, 8, 8};
    for (size_t A = 0; A < 5; ++A) {
      uint64_t Offset, ArgSize;
      const char *Kind = nullptr;
      REQUIRE(ptx2amd_result_kernel_arg(R.get(), 0, A, &Offset, &ArgSize, &Kind) ==
              PTX2AMD_SUCCESS);
      CHECK(Offset == Offsets[A]);
      CHECK(ArgSize == Sizes[A]);
      CHECK(std::string(Kind).rfind("hidden_", 0) == std::string::npos);
    }
    // Hidden arguments, if the code object lists any (only those the kernel uses), follow.
    uint64_t Args = property(R.get(), 0, PTX2AMD_KERNEL_ARG_COUNT);
    uint64_t Offset, ArgSize;
    const char *Kind = nullptr;
    for (size_t A = 5; A < Args; ++A) {
      REQUIRE(ptx2amd_result_kernel_arg(R.get(), 0, A, &Offset, &ArgSize, &Kind) ==
              PTX2AMD_SUCCESS);
      CHECK(std::string(Kind).rfind("hidden_", 0) == 0);
    }
    CHECK(ptx2amd_result_kernel_arg(R.get(), 0, Args, &Offset, &ArgSize, nullptr) ==
          PTX2AMD_ERROR_OUT_OF_RANGE);
    CHECK(ptx2amd_result_kernel_property(R.get(), 1, PTX2AMD_KERNEL_VGPR_COUNT, &Offset) ==
          PTX2AMD_ERROR_OUT_OF_RANGE);
  }
}

TEST_CASE("options: default target, code object version, textual outputs") {
  ContextPtr C = makeContext();
  REQUIRE(ptx2amd_context_set_target(C.get(), "gfx1201") == PTX2AMD_SUCCESS);
  REQUIRE(ptx2amd_context_set_code_object_version(C.get(), 4) == PTX2AMD_SUCCESS);
  REQUIRE(ptx2amd_context_set_opt_level(C.get(), 1) == PTX2AMD_SUCCESS);
  {
    ResultPtr R = translate(C.get(), Saxpy, nullptr, PTX2AMD_SUCCESS);
    const char *T;
    ptx2amd_result_target(R.get(), &T);
    CHECK(std::string(T) == "gfx1201");
    const void *Data;
    size_t Size;
    REQUIRE(ptx2amd_result_code_object(R.get(), &Data, &Size) == PTX2AMD_SUCCESS);
    CHECK(static_cast<const uint8_t *>(Data)[8] == 2); // EI_ABIVERSION 2: code object v4
  }
  REQUIRE(ptx2amd_context_set_output(C.get(), PTX2AMD_OUTPUT_ASSEMBLY) == PTX2AMD_SUCCESS);
  {
    ResultPtr R = translate(C.get(), Saxpy, nullptr, PTX2AMD_SUCCESS);
    const char *Text = nullptr;
    size_t Size = 0;
    REQUIRE(ptx2amd_result_text(R.get(), &Text, &Size) == PTX2AMD_SUCCESS);
    CHECK(std::strlen(Text) == Size);
    CHECK(std::string(Text).find(".amdgcn_target \"amdgcn-amd-amdhsa--gfx1201\"") !=
          std::string::npos);
    const void *Data;
    CHECK(ptx2amd_result_code_object(R.get(), &Data, &Size) == PTX2AMD_ERROR_NOT_AVAILABLE);
    int Translated = 0;
    REQUIRE(ptx2amd_result_kernel_translated(R.get(), 0, &Translated, nullptr) == PTX2AMD_SUCCESS);
    CHECK(Translated == 1);
    uint64_t V;
    CHECK(ptx2amd_result_kernel_property(R.get(), 0, PTX2AMD_KERNEL_VGPR_COUNT, &V) ==
          PTX2AMD_ERROR_NOT_AVAILABLE);
  }
  REQUIRE(ptx2amd_context_set_output(C.get(), PTX2AMD_OUTPUT_LLVM_IR) == PTX2AMD_SUCCESS);
  {
    ResultPtr R = translate(C.get(), Saxpy, nullptr, PTX2AMD_SUCCESS);
    const char *Text = nullptr;
    REQUIRE(ptx2amd_result_text(R.get(), &Text, nullptr) == PTX2AMD_SUCCESS);
    CHECK(std::string(Text).find(std::string("define amdgpu_kernel void @") + SaxpyKernel) !=
          std::string::npos);
  }
}

TEST_CASE("a kernel that fails leaves the others in the code object") {
  ContextPtr C = makeContext();
  ResultPtr R = translate(C.get(), PartialPtx, "gfx90a", PTX2AMD_SUCCESS, "partial.ptx");
  REQUIRE(R);
  const void *Data;
  size_t Size;
  REQUIRE(ptx2amd_result_code_object(R.get(), &Data, &Size) == PTX2AMD_SUCCESS);
  size_t N = 0;
  REQUIRE(ptx2amd_result_kernel_count(R.get(), &N) == PTX2AMD_SUCCESS);
  REQUIRE(N == 4);
  size_t Tex, Dyn, Plain, Callback;
  REQUIRE(ptx2amd_result_kernel_find(R.get(), "uses_tex", &Tex) == PTX2AMD_SUCCESS);
  REQUIRE(ptx2amd_result_kernel_find(R.get(), "uses_dyn", &Dyn) == PTX2AMD_SUCCESS);
  REQUIRE(ptx2amd_result_kernel_find(R.get(), "plain", &Plain) == PTX2AMD_SUCCESS);
  REQUIRE(ptx2amd_result_kernel_find(R.get(), "callback", &Callback) == PTX2AMD_SUCCESS);

  int Translated = 1;
  const char *Reason = nullptr;
  REQUIRE(ptx2amd_result_kernel_translated(R.get(), Tex, &Translated, &Reason) == PTX2AMD_SUCCESS);
  CHECK(Translated == 0);
  CHECK_THAT(Reason, Catch::Contains("partial.ptx:") &&
                         Catch::Contains("calls 'tex_helper', which could not be translated"));
  uint64_t V;
  CHECK(ptx2amd_result_kernel_property(R.get(), Tex, PTX2AMD_KERNEL_VGPR_COUNT, &V) ==
        PTX2AMD_ERROR_NOT_AVAILABLE);

  REQUIRE(ptx2amd_result_kernel_translated(R.get(), Plain, &Translated, &Reason) ==
          PTX2AMD_SUCCESS);
  CHECK(Translated == 1);
  CHECK(property(R.get(), Plain, PTX2AMD_KERNEL_USES_DYNAMIC_LDS) == 0);
  CHECK(property(R.get(), Plain, PTX2AMD_KERNEL_EXPLICIT_KERNARG_SIZE) == 12);
  REQUIRE(ptx2amd_result_kernel_translated(R.get(), Dyn, &Translated, &Reason) == PTX2AMD_SUCCESS);
  CHECK(Translated == 1);
  CHECK(property(R.get(), Dyn, PTX2AMD_KERNEL_USES_DYNAMIC_LDS) == 1);

  REQUIRE(ptx2amd_result_kernel_translated(R.get(), Callback, &Translated, &Reason) ==
          PTX2AMD_SUCCESS);
  CHECK(Translated == 0);
  CHECK_THAT(Reason, Catch::Contains("user_op"));

  // The function list names the device function that failed first, with its location, and
  // tells a kernel left out at code generation from one that failed to translate.
  size_t F = 0;
  REQUIRE(ptx2amd_result_function_count(R.get(), &F) == PTX2AMD_SUCCESS);
  CHECK(F == 6);
  ptx2amd_function_state State;
  for (size_t K = 0; K < F; ++K) {
    const char *Fn;
    REQUIRE(ptx2amd_result_function(R.get(), K, &Fn, nullptr, nullptr, nullptr) == PTX2AMD_SUCCESS);
    REQUIRE(ptx2amd_result_function_state(R.get(), K, &State) == PTX2AMD_SUCCESS);
    std::string N = Fn;
    CHECK(State == (N == "callback"                        ? PTX2AMD_FUNCTION_LEFT_OUT
                    : N == "tex_helper" || N == "uses_tex" ? PTX2AMD_FUNCTION_FAILED
                                                           : PTX2AMD_FUNCTION_TRANSLATED));
  }
  CHECK(ptx2amd_result_function_state(R.get(), F, &State) == PTX2AMD_ERROR_OUT_OF_RANGE);
  CHECK_THAT(diagnostics(R.get()),
             Catch::Contains("warning: kernel 'callback' left out of the code object for gfx90a"));
  const char *Name;
  int IsKernel = 1;
  REQUIRE(ptx2amd_result_function(R.get(), 0, &Name, &IsKernel, &Translated, &Reason) ==
          PTX2AMD_SUCCESS);
  CHECK(std::string(Name) == "tex_helper");
  CHECK(IsKernel == 0);
  CHECK(Translated == 0);
  CHECK_THAT(Reason, Catch::StartsWith("partial.ptx:11:3: error: in function 'tex_helper'"));
  CHECK_THAT(diagnostics(R.get()), Catch::Contains("partial.ptx:11:3: error:"));
  const char *Error;
  REQUIRE(ptx2amd_result_error(R.get(), &Error) == PTX2AMD_SUCCESS);
  CHECK(std::string(Error).empty());
}

TEST_CASE("malformed PTX is invalid input with located diagnostics") {
  ContextPtr C = makeContext();
  std::string Bad = ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k( { ret; }\n";
  ResultPtr R = translate(C.get(), Bad, "gfx90a", PTX2AMD_ERROR_INVALID_INPUT, "bad.ptx");
  REQUIRE(R);
  ptx2amd_status S;
  REQUIRE(ptx2amd_result_status(R.get(), &S) == PTX2AMD_SUCCESS);
  CHECK(S == PTX2AMD_ERROR_INVALID_INPUT);
  CHECK_THAT(diagnostics(R.get()), Catch::StartsWith("bad.ptx:4:20: error:"));
  const void *Data;
  size_t Size;
  CHECK(ptx2amd_result_code_object(R.get(), &Data, &Size) == PTX2AMD_ERROR_NOT_AVAILABLE);
  size_t N = 1;
  REQUIRE(ptx2amd_result_kernel_count(R.get(), &N) == PTX2AMD_SUCCESS);
  CHECK(N == 0);
  // Empty and binary garbage are errors too.
  translate(C.get(), "", "gfx90a", PTX2AMD_ERROR_INVALID_INPUT);
  translate(C.get(), std::string("\0\1\2\3garbage", 11), "gfx90a", PTX2AMD_ERROR_INVALID_INPUT);
}

TEST_CASE("images: PTX text, malformed binaries, CUDA binaries") {
  ContextPtr C = makeContext();
  ptx2amd_image *I = nullptr;
  REQUIRE(ptx2amd_image_open(C.get(), Saxpy.data(), Saxpy.size(), "saxpy.ptx", &I) ==
          PTX2AMD_SUCCESS);
  size_t N = 0;
  REQUIRE(ptx2amd_image_module_count(I, &N) == PTX2AMD_SUCCESS);
  REQUIRE(N == 1);
  const char *Text, *Name;
  size_t Size;
  unsigned Arch = 1;
  REQUIRE(ptx2amd_image_module(I, 0, &Text, &Size, &Name, &Arch) == PTX2AMD_SUCCESS);
  CHECK(std::string(Text, Size) == Saxpy);
  CHECK(std::string(Name) == "saxpy.ptx");
  CHECK(Arch == 0);
  ptx2amd_result *R = nullptr;
  CHECK(ptx2amd_translate_image_module(C.get(), I, 0, "gfx942", &R) == PTX2AMD_SUCCESS);
  ptx2amd_result_destroy(R);
  CHECK(ptx2amd_translate_image_module(C.get(), I, 1, "gfx942", &R) == PTX2AMD_ERROR_OUT_OF_RANGE);
  CHECK(R == nullptr);
  ptx2amd_image_destroy(I);

  std::string Elf = std::string("\x7f"
                                "ELF\x02\x01\x01",
                                7) +
                    std::string(100, '\xff');
  REQUIRE(ptx2amd_image_open(C.get(), Elf.data(), Elf.size(), "junk.o", &I) ==
          PTX2AMD_ERROR_INVALID_INPUT);
  REQUIRE(I);
  REQUIRE(ptx2amd_image_module_count(I, &N) == PTX2AMD_SUCCESS);
  CHECK(N == 0);
  const char *Why = nullptr;
  REQUIRE(ptx2amd_image_diagnostics(I, &Why) == PTX2AMD_SUCCESS);
  CHECK_THAT(Why, Catch::StartsWith("junk.o"));
  ptx2amd_image_destroy(I);

  // A program nvcc built with PTX for several architectures (built by the fatbin tests).
  std::string Multi = readFile(PTX2AMD_FATBIN_BINS "/k_multi");
  if (Multi.empty())
    return;
  REQUIRE(ptx2amd_image_open(C.get(), Multi.data(), Multi.size(), "k_multi", &I) ==
          PTX2AMD_SUCCESS);
  REQUIRE(ptx2amd_image_module_count(I, &N) == PTX2AMD_SUCCESS);
  CHECK(N >= 2);
  for (size_t M = 0; M < N; ++M) {
    REQUIRE(ptx2amd_image_module(I, M, &Text, &Size, &Name, &Arch) == PTX2AMD_SUCCESS);
    CHECK(Arch >= 80);
    CHECK_THAT(Name, Catch::StartsWith("k_multi: container"));
    CHECK(ptx2amd_translate_image_module(C.get(), I, M, "gfx90a", &R) == PTX2AMD_SUCCESS);
    ptx2amd_result_destroy(R);
  }
  ptx2amd_image_destroy(I);
}
