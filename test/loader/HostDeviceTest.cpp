// The loader's Device over host-backend/ (the CPU device): properties per target, host memory,
// virtual memory (reservations, physical chunks, mappings, access, file descriptors), modules from
// PTX, launches in stream order timed by events, module variables, device printf on stdout and
// device assertions as launch errors, on a wave64 and a wave32 target.
#include "LoaderTestSupport.h"
#include "ptx2amd/loader/Device.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <fcntl.h>
#include <type_traits>
#include <unistd.h>

using namespace ptx2amd;
using namespace loader_test;
using loader::CopyKind;
using loader::MemoryKind;

namespace {

std::string errorText(llvm::Error E) {
  REQUIRE(bool(E));
  return llvm::toString(std::move(E));
}

std::unique_ptr<loader::Device> hostFor(const char *Target) {
  return ok(loader::createHostDevice(*amdgpu::findTarget(Target)));
}

std::string readFile(const std::string &Path) {
  auto B = llvm::MemoryBuffer::getFile(Path);
  REQUIRE(bool(B));
  return (*B)->getBuffer().str();
}

std::unique_ptr<loader::Module> loadText(loader::Device &D, const std::string &Ptx,
                                         const std::string &Name) {
  return ok(D.loadModule({Name, {}, Ptx}));
}

/// Device memory holding a copy of \p Host.
template <typename T> T *upload(loader::Device &D, const std::vector<T> &Host) {
  void *P = ok(D.allocate(Host.size() * sizeof(T), MemoryKind::Device));
  ok(D.copy(P, Host.data(), Host.size() * sizeof(T), CopyKind::HostToDevice, nullptr));
  return static_cast<T *>(P);
}

template <typename T> std::vector<T> download(loader::Device &D, const T *P, size_t N) {
  std::vector<T> Host(N);
  ok(D.copy(Host.data(), P, N * sizeof(T), CopyKind::DeviceToHost, nullptr));
  return Host;
}

amdgpu::LaunchGeometry geometry(uint32_t Grid, uint32_t Block) {
  amdgpu::LaunchGeometry G;
  G.Grid[0] = Grid;
  G.Block[0] = Block;
  return G;
}

/// What the process writes to stdout while \p Run runs.
template <typename F> std::string captureStdout(F Run) {
  llvm::SmallString<128> Path;
  int Fd = -1;
  REQUIRE(!llvm::sys::fs::createTemporaryFile("host-stdout", "txt", Fd, Path));
  std::fflush(stdout);
  int Saved = dup(1);
  dup2(Fd, 1);
  Run();
  std::fflush(stdout);
  dup2(Saved, 1);
  close(Saved);
  close(Fd);
  std::string Text = readFile(std::string(Path));
  llvm::sys::fs::remove(Path);
  return Text;
}

const char *VariablesAndErrors = R"(
.version 7.0
.target sm_70
.address_size 64

.global .align 4 .u32 counter;
.const .align 4 .f32 scale[4] = {0f3F800000, 0f40000000, 0f40400000, 0f40800000};

// Every thread adds 1 to counter; out[i] = scale[i % 4] * i.
.visible .entry use_vars(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<6>;
  mov.u32 %r1, %tid.x;
  atom.global.add.u32 %r2, [counter], 1;
  and.b32 %r3, %r1, 3;
  mul.wide.u32 %rd1, %r3, 4;
  mov.u64 %rd2, scale;
  add.s64 %rd2, %rd2, %rd1;
  ld.const.f32 %f1, [%rd2];
  cvt.rn.f32.u32 %f2, %r1;
  mul.f32 %f2, %f2, %f1;
  ld.param.u64 %rd3, [out];
  cvta.to.global.u64 %rd4, %rd3;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd4, %rd4, %rd5;
  st.global.f32 [%rd4], %f2;
  ret;
}

.extern .func __assertfail(.param .b64 m, .param .b64 f, .param .b32 l, .param .b64 fn,
                           .param .b64 sz);
.global .align 1 .b8 $msg[6] = {120, 32, 62, 32, 48, 0};
.global .align 1 .b8 $file[8] = {107, 101, 114, 110, 46, 99, 117, 0};
.global .align 1 .b8 $func[7] = {99, 104, 101, 99, 107, 115, 0};

// assert(x > 0) in "kern.cu", line 7, function "checks": thread 2 fails it.
.visible .entry asserting()
{
  .reg .pred %p;
  .reg .b32 %r<2>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p, %r1, 2;
  @%p bra DONE;
  mov.u64 %rd1, $msg;
  cvta.global.u64 %rd1, %rd1;
  mov.u64 %rd2, $file;
  cvta.global.u64 %rd2, %rd2;
  mov.u64 %rd3, $func;
  cvta.global.u64 %rd3, %rd3;
  {
    .param .b64 a0;
    st.param.b64 [a0], %rd1;
    .param .b64 a1;
    st.param.b64 [a1], %rd2;
    .param .b32 a2;
    st.param.b32 [a2], 7;
    .param .b64 a3;
    st.param.b64 [a3], %rd3;
    .param .b64 a4;
    st.param.b64 [a4], 1;
    call.uni __assertfail, (a0, a1, a2, a3, a4);
  }
DONE:
  ret;
}
)";

} // namespace

TEST_CASE("host device: properties follow the target", "[host-device]") {
  auto D = hostFor("gfx90a");
  const loader::DeviceProperties &P = D->properties();
  CHECK(P.Name == "ptx2amd host (gfx90a)");
  CHECK(P.IsaName == "amdgcn-amd-amdhsa--gfx90a");
  CHECK(P.Target == amdgpu::findTarget("gfx90a"));
  CHECK(P.WaveSize == 64);
  CHECK(P.Format == loader::ModuleFormat::Ptx);
  CHECK(P.LdsBytesPerWorkgroup == 65536);
  CHECK(P.ComputeUnits > 0);
  CHECK(P.GlobalMemoryBytes > 0);
  auto W32 = hostFor("gfx1100");
  CHECK(W32->properties().Name == "ptx2amd host (gfx1100)");
  CHECK(W32->properties().WaveSize == 32);
}

TEST_CASE("host device: memory is host memory", "[host-device]") {
  auto D = hostFor("gfx90a");
  for (MemoryKind K : {MemoryKind::Device, MemoryKind::HostPinned, MemoryKind::Managed}) {
    void *P = ok(D->allocate(1000, K));
    CHECK(reinterpret_cast<uintptr_t>(P) % 256 == 0);
    CHECK(download(*D, static_cast<uint8_t *>(P), 1000) == std::vector<uint8_t>(1000, 0));
    ok(D->memset(static_cast<uint8_t *>(P) + 1, 0x5a, 998, nullptr));
    std::vector<uint8_t> Want(1000, 0x5a);
    Want.front() = Want.back() = 0;
    CHECK(download(*D, static_cast<uint8_t *>(P), 1000) == Want);
    ok(D->release(P));
    CHECK(errorText(D->release(P)).find("which allocate() did not return") != std::string::npos);
  }
  ok(D->release(nullptr));
}

TEST_CASE("host device: virtual memory, two physical chunks behind one range", "[host-device]") {
  auto D = hostFor("gfx90a");
  const loader::DeviceProperties &P = D->properties();
  const size_t G = P.VirtualMemoryGranule;
  REQUIRE(G == size_t(sysconf(_SC_PAGESIZE)));
  CHECK(P.VirtualMemoryRecommendedGranule % G == 0);
  CHECK(P.ShareableFileDescriptors);
  // Aligned beyond the page, as a reservation may be asked.
  void *Base = ok(D->reserveAddressRange(4 * G, 16 * G, nullptr));
  REQUIRE(reinterpret_cast<uintptr_t>(Base) % (16 * G) == 0);
  auto *B = static_cast<uint8_t *>(Base);
  auto A = ok(D->createPhysical(2 * G)), C = ok(D->createPhysical(2 * G));
  CHECK(A->size() == 2 * G);
  ok(D->map(B, 2 * G, *A, 0));
  ok(D->map(B + 2 * G, 2 * G, *C, 0));
  CHECK(errorText(D->map(B + G / 2, G, *A, 0)).find("mapping") != std::string::npos);
  CHECK(errorText(D->map(B + 8 * G, G, *A, 0)).find("mapping") != std::string::npos);
  ok(D->setAccess(B, 4 * G, true, true));
  // Zeroed, then written across the chunks' boundary.
  CHECK(download(*D, B + 2 * G - 8, 16) == std::vector<uint8_t>(16, 0));
  ok(D->memset(B + 2 * G - 8, 0x3c, 16, nullptr));
  CHECK(download(*D, B + 2 * G - 8, 16) == std::vector<uint8_t>(16, 0x3c));
  // Exported and imported: the second chunk's memory at another address.
  int Fd = ok(D->exportPhysical(*C));
  auto Imported = ok(D->importPhysical(Fd));
  ::close(Fd);
  CHECK(Imported->size() == 2 * G);
  void *Alias = ok(D->reserveAddressRange(2 * G, 0, nullptr));
  ok(D->map(Alias, 2 * G, *Imported, 0));
  ok(D->setAccess(Alias, 2 * G, true, false));
  CHECK(download(*D, static_cast<uint8_t *>(Alias), 8) == std::vector<uint8_t>(8, 0x3c));
  ok(D->unmap(Alias, 2 * G));
  ok(D->freeAddressRange(Alias, 2 * G));
  int Pipe[2];
  REQUIRE(::pipe(Pipe) == 0);
  CHECK(errorText(D->importPhysical(Pipe[0]).takeError()).find("not physical memory") !=
        std::string::npos);
  ::close(Pipe[0]);
  ::close(Pipe[1]);
  ok(D->unmap(B, 4 * G));
  CHECK(errorText(D->freeAddressRange(B, G)).find("not a reserved range") != std::string::npos);
  ok(D->freeAddressRange(B, 4 * G));
}

TEST_CASE("host device: saxpy in stream order, timed by events", "[host-device]") {
  std::string Ptx = readFile(PTX2AMD_SOURCE_DIR "/examples/saxpy.ptx");
  for (const char *Target : WaveTargets) {
    INFO(Target);
    auto D = hostFor(Target);
    auto M = loadText(*D, Ptx, "saxpy.ptx");
    const loader::Kernel &K = ok(M->kernel("_Z5saxpyifPKfPfS1_"));
    // CUDA's parameter buffer: int, float, then three pointers; v5 hidden arguments after.
    const amdgpu::KernelMetadata &Meta = K.metadata();
    REQUIRE(Meta.explicitKernargSize() == 32);
    CHECK(Meta.Args[2].Offset == 8);
    CHECK(Meta.Args[4].Offset == 24);
    CHECK(Meta.WavefrontSize == D->properties().WaveSize);

    int N = 1000;
    float A = 2.5f;
    std::vector<float> X(N), Y(N);
    for (int I = 0; I < N; ++I) {
      X[I] = float(I % 17);
      Y[I] = float(I % 5) - 2;
    }
    float *DX = upload(*D, X), *DY = upload(*D, Y);
    float *DS = static_cast<float *>(ok(D->allocate(4 * sizeof(float), MemoryKind::Device)));
    auto S = ok(D->createStream());
    auto Start = ok(D->createEvent()), End = ok(D->createEvent());
    CHECK(errorText(D->elapsedMs(*Start, *End).takeError()).find("never recorded") !=
          std::string::npos);
    ok(D->record(*Start, S.get()));
    void *Args[] = {&N, &A, &DX, &DY, &DS};
    ok(D->launch(K, geometry(4, 256), Args, S.get()));
    ok(D->record(*End, S.get()));
    ok(D->synchronize(S.get()));
    CHECK(ok(D->isComplete(*End)));
    CHECK(ok(D->elapsedMs(*Start, *End)) >= 0.0f);

    std::vector<float> GotY = download(*D, DY, N), Sums = download(*D, DS, 4);
    std::vector<float> WantSums(4, 0.0f);
    for (int I = 0; I < N; ++I) {
      float V = A * X[I] + Y[I];
      CHECK(GotY[I] == V);
      WantSums[I / 256] += V;
    }
    for (int B = 0; B < 4; ++B)
      CHECK(std::fabs(Sums[B] - WantSums[B]) <= 1e-3f * std::fabs(WantSums[B]) + 1e-3f);
    for (void *P : {static_cast<void *>(DX), static_cast<void *>(DY), static_cast<void *>(DS)})
      ok(D->release(P));
  }
}

TEST_CASE("host device: module variables are read and written between launches", "[host-device]") {
  for (const char *Target : WaveTargets) {
    INFO(Target);
    auto D = hostFor(Target);
    auto M = loadText(*D, VariablesAndErrors, "vars.ptx");
    loader::GlobalSymbol Counter = ok(M->global("counter"));
    loader::GlobalSymbol Scale = ok(M->global("scale"));
    CHECK(Counter.Size == 4);
    CHECK(Scale.Size == 16);
    CHECK(errorText(M->global("nothing").takeError()).find("no variable 'nothing'") !=
          std::string::npos);
    // cudaMemcpyToSymbol: a counter to start from and new constants.
    uint32_t From = 1000;
    ok(D->copy(Counter.Address, &From, 4, CopyKind::HostToDevice, nullptr));
    const float NewScale[4] = {0.5f, -1.0f, 10.0f, 0.0f};
    ok(D->copy(Scale.Address, NewScale, 16, CopyKind::HostToDevice, nullptr));
    float *Out = static_cast<float *>(ok(D->allocate(64 * sizeof(float), MemoryKind::Device)));
    void *Args[] = {&Out};
    ok(D->launch(ok(M->kernel("use_vars")), geometry(1, 64), Args, nullptr));
    CHECK(download(*D, static_cast<uint32_t *>(Counter.Address), 1)[0] == 1064);
    std::vector<float> Got = download(*D, Out, 64);
    for (int I = 0; I < 64; ++I)
      CHECK(Got[I] == NewScale[I % 4] * float(I));
    ok(D->release(Out));
  }
}

TEST_CASE("host device: device printf goes to stdout, an assertion fails the launch",
          "[host-device]") {
  std::string Printf = readFile(PTX2AMD_CUDA_PTX_DIR "/device_printf.sm90.ptx");
  for (const char *Target : WaveTargets) {
    INFO(Target);
    auto D = hostFor(Target);
    auto M = loadText(*D, Printf, "device_printf.sm90.ptx");
    int *Ran = static_cast<int *>(ok(D->allocate(4, MemoryKind::Device)));
    int *Errors = static_cast<int *>(ok(D->allocate(4, MemoryKind::Device)));
    int Talk = 3;
    void *Args[] = {&Ran, &Errors, &Talk};
    const loader::Kernel &Say = ok(M->kernel("_Z3sayPiS_i"));
    auto LaunchAndWait = [&] {
      ok(D->launch(Say, geometry(4, 96), Args, nullptr));
      ok(D->synchronize(nullptr));
    };
    std::string Out = captureStdout(LaunchAndWait);
    CHECK(download(*D, Ran, 1)[0] == 4 * 96);
    CHECK(download(*D, Errors, 1)[0] == 0);
    CHECK(Out.find("PRINTF: ints -42 7 4000000000 beef CAFE 10\n") != std::string::npos);
    CHECK(Out.find("PRINTF: block 2 of 4 says") != std::string::npos);
    // Drained after each launch: a second launch prints its own lines once more.
    std::string Again = captureStdout(LaunchAndWait);
    CHECK(Again.find("PRINTF: ints -42") == Again.rfind("PRINTF: ints -42"));
    ok(D->release(Ran));
    ok(D->release(Errors));

    auto V = loadText(*D, VariablesAndErrors, "vars.ptx");
    // The failure is the stream's: the launch returns, the next wait reports it (once), and
    // the stream's later work is skipped while an event's point still passes.
    auto S = ok(D->createStream());
    auto After = ok(D->createEvent());
    int Untouched = 5, Zero = 0;
    int *Flag = static_cast<int *>(ok(D->allocate(4, MemoryKind::Device)));
    ok(D->copy(Flag, &Untouched, 4, CopyKind::HostToDevice, nullptr));
    ok(D->launch(ok(V->kernel("asserting")), geometry(1, 32), nullptr, S.get()));
    ok(D->record(*After, S.get()));
    // From pageable memory: waited for, so it reports the failure, and was skipped.
    CHECK(errorText(D->copy(Flag, &Zero, 4, CopyKind::HostToDevice, S.get()))
              .find("kernel 'asserting'") != std::string::npos);
    std::string Failed = errorText(D->synchronize(*After));
    INFO(Failed);
    CHECK(Failed.find("kernel 'asserting'") != std::string::npos);
    CHECK(Failed.find("kern.cu:7: checks: Assertion `x > 0' failed.") != std::string::npos);
    ok(D->synchronize(S.get()));
    CHECK(download(*D, Flag, 1)[0] == 5);
    ok(D->release(Flag));
  }
}

// A kernel that waits for a flag the host sets only after the launch returned: launches are
// asynchronous, as on a GPU, so the host can set it (cuda-samples' UnifiedMemoryPerf does).
const char *const SpinOnFlag = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry spin(.param .u64 flag)
{
  .reg .b64 %rd<3>;
  .reg .b32 %r<3>;
  .reg .pred %p;
  ld.param.u64 %rd1, [flag];
WAIT:
  ld.volatile.global.u32 %r1, [%rd1];
  setp.eq.u32 %p, %r1, 0;
  @%p bra WAIT;
  add.u32 %r2, %r1, 1;
  st.global.u32 [%rd1+4], %r2;
  ret;
}
)";

TEST_CASE("host device: launches return before the kernel ends", "[host-device]") {
  for (const char *Target : WaveTargets) {
    INFO(Target);
    auto D = hostFor(Target);
    auto M = loadText(*D, SpinOnFlag, "spin.ptx");
    const loader::Kernel &Spin = ok(M->kernel("spin"));
    auto *Flag = static_cast<volatile uint32_t *>(ok(D->allocate(8, MemoryKind::HostPinned)));
    auto S = ok(D->createStream());
    auto Done = ok(D->createEvent());
    void *P = const_cast<uint32_t *>(Flag);
    void *Args[] = {&P};
    ok(D->launch(Spin, geometry(1, 1), Args, S.get()));
    P = nullptr; // the launch copied the argument's value
    ok(D->record(*Done, S.get()));
    // A copy between memory of the device's is queued behind the kernel, not waited for.
    auto *Out = static_cast<uint32_t *>(ok(D->allocate(4, MemoryKind::Device)));
    ok(D->copy(Out, const_cast<uint32_t *>(Flag) + 1, 4, CopyKind::DeviceToDevice, S.get()));
    CHECK_FALSE(ok(D->isComplete(*Done)));
    Flag[0] = 41;
    ok(D->synchronize(*Done));
    CHECK(ok(D->isComplete(*Done)));
    ok(D->synchronize(S.get()));
    CHECK(download(*D, Out, 1)[0] == 42);
    ok(D->release(Out));
    ok(D->release(const_cast<uint32_t *>(Flag)));
  }
}
