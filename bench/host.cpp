// bench/host: kernels translated for an AMDGPU target and run by the host backend, each beside a
// plain C++ loop doing the same work in the same process (the loop on one thread, the host
// backend on its workers: --threads 1 for one core). Kernels that meet at barriers or cross-lane
// operations run twice, as compiled workgroups (the default) and as fibers (the fallback,
// LaunchConfig::Fibers), side by side. One figure per line; a ratio is the first time / the
// second.
#include "ptx2amd/host-backend/HostDevice.h"

#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace ptx2amd;

namespace {

// A warp-shuffle sum: every warp adds its 32 values with shfl.bfly, lane 0 stores the total.
const char *ShuffleSum = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry warp_sum(.param .u64 in, .param .u64 out, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .f32 %f<12>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  ld.param.u32 %r5, [n];
  mov.f32 %f1, 0f00000000;
  setp.ge.s32 %p1, %r4, %r5;
  @%p1 bra LOADED;
  ld.param.u64 %rd1, [in];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.s32 %rd3, %r4, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
LOADED:
  shfl.sync.bfly.b32 %r6, %f1, 16, 31, -1;
  mov.b32 %f2, %r6;
  add.f32 %f1, %f1, %f2;
  shfl.sync.bfly.b32 %r6, %f1, 8, 31, -1;
  mov.b32 %f2, %r6;
  add.f32 %f1, %f1, %f2;
  shfl.sync.bfly.b32 %r6, %f1, 4, 31, -1;
  mov.b32 %f2, %r6;
  add.f32 %f1, %f1, %f2;
  shfl.sync.bfly.b32 %r6, %f1, 2, 31, -1;
  mov.b32 %f2, %r6;
  add.f32 %f1, %f1, %f2;
  shfl.sync.bfly.b32 %r6, %f1, 1, 31, -1;
  mov.b32 %f2, %r6;
  add.f32 %f1, %f1, %f2;
  and.b32 %r7, %r3, 31;
  setp.ne.s32 %p1, %r7, 0;
  @%p1 bra DONE;
  shr.s32 %r8, %r4, 5;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.s32 %rd3, %r8, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.f32 [%rd4], %f1;
DONE:
  ret;
}
)";

double seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// Best of \p Runs timings of \p F, in seconds.
template <typename F> double best(int Runs, F &&Fn) {
  double Best = 1e30;
  for (int K = 0; K < Runs; ++K) {
    double T0 = seconds();
    Fn();
    Best = std::min(Best, seconds() - T0);
  }
  return Best;
}

int fail(const std::string &Msg) {
  std::fprintf(stderr, "bench-host: %s\n", Msg.c_str());
  return 1;
}

/// One kernel's line: the C++ loop, ours as fibers (when it meets) and ours as it runs.
void report(const char *What, double Loop, double Fibers, double Ours) {
  if (Fibers > 0) {
    std::printf("%s: C++ loop %.2f ms, fibers %.2f ms, compiled workgroups %.2f ms\n", What,
                Loop * 1e3, Fibers * 1e3, Ours * 1e3);
    std::printf("%s ratio C++/ours %.3f, C++/fibers %.4f, fibers/ours %.1f\n", What, Loop / Ours,
                Loop / Fibers, Fibers / Ours);
  } else {
    std::printf("%s: C++ loop %.2f ms, host backend %.2f ms\n", What, Loop * 1e3, Ours * 1e3);
    std::printf("%s ratio C++/ours %.3f\n", What, Loop / Ours);
  }
}

} // namespace

int main(int argc, char **argv) {
  std::string Arch = "gfx90a";
  for (int I = 1; I + 1 < argc; I += 2) {
    if (std::strcmp(argv[I], "--arch") == 0)
      Arch = argv[I + 1];
    else if (std::strcmp(argv[I], "--threads") == 0)
      setenv("PTX2AMD_HOST_THREADS", argv[I + 1], 1);
    else
      return fail(std::string("unknown option ") + argv[I]);
  }
  const amdgpu::Target *T = amdgpu::findTarget(Arch);
  if (!T)
    return fail("unknown target " + Arch);
  auto Dev = host::Device::create();
  if (!Dev)
    return fail(llvm::toString(Dev.takeError()));
  auto Load = [&](const std::string &Text, const std::string &Name) {
    auto M = (*Dev)->loadPtx(Text, Name, *T);
    if (!M) {
      fail(llvm::toString(M.takeError()));
      std::exit(1);
    }
    return std::move(*M);
  };
  auto File = [&](const char *Name) {
    auto B = llvm::MemoryBuffer::getFile(std::string(PTX2AMD_CUDA_PTX_DIR) + "/" + Name);
    if (!B) {
      fail(std::string("cannot read ") + Name + " (build the test programs' PTX first)");
      std::exit(1);
    }
    return (*B)->getBuffer().str();
  };
  bool Fibers = false; // the next launches run as fibers
  auto Launch = [&](host::LoadedModule &M, const char *K, host::LaunchConfig C,
                    std::vector<void *> Args) {
    C.Fibers = Fibers;
    auto R = (*Dev)->launch(M, K, C, Args.data());
    if (!R) {
      fail(llvm::toString(R.takeError()));
      std::exit(1);
    }
  };
  auto *D = Dev->get();
  // Best of Runs as fibers, then as compiled workgroups; the results checked after each.
  auto Both = [&](int Runs, auto &&Run, auto &&Check) {
    Fibers = true;
    double F = best(Runs, Run);
    Check();
    Fibers = false;
    double W = best(Runs, Run);
    Check();
    return std::pair{F, W};
  };
  auto Workers = host::Device::computeUnits();
  std::printf("target %s, %u-lane waves, %u workers\n", std::string(T->Name).c_str(), T->WaveSize,
              Workers ? *Workers : 0);

  // Elementwise: out = a*x + y (vector_add's grid-stride saxpy, one element per work-item).
  {
    auto M = Load(File("vector_add.sm90.ptx"), "vector_add.ptx");
    int N = 1 << 24;
    float A = 2.5f;
    auto *X = static_cast<float *>(D->allocate(N * 4));
    auto *Y = static_cast<float *>(D->allocate(N * 4));
    auto *Out = static_cast<float *>(D->allocate(N * 4));
    for (int I = 0; I < N; ++I) {
      X[I] = float(I % 1000);
      Y[I] = float(I % 7);
    }
    std::vector<float> Ref(N);
    double Loop = best(5, [&] {
      for (int I = 0; I < N; ++I)
        Ref[I] = A * X[I] + Y[I];
    });
    double Host = best(5, [&] {
      Launch(*M, "_Z5saxpyifPKfS0_Pf", {{uint32_t(N / 256)}, {256}}, {&N, &A, &X, &Y, &Out});
    });
    if (std::memcmp(Ref.data(), Out, N * 4.0) != 0)
      return fail("elementwise: results differ from the C++ loop");
    report(("elementwise saxpy " + std::to_string(N) + " floats").c_str(), Loop, 0, Host);
    D->release(X);
    D->release(Y);
    D->release(Out);
  }

  // Tiled matmul with shared memory and barriers (fibers), float.
  {
    auto M = Load(File("matmul_tiled.sm90.ptx"), "matmul_tiled.ptx");
    int R = 256, C = 256, K = 256;
    auto *A = static_cast<float *>(D->allocate(R * K * 4));
    auto *B = static_cast<float *>(D->allocate(K * C * 4));
    auto *Out = static_cast<float *>(D->allocate(R * C * 4));
    for (int I = 0; I < R * K; ++I)
      A[I] = float(I % 5);
    for (int I = 0; I < K * C; ++I)
      B[I] = float(I % 3);
    std::vector<float> Ref(R * C);
    double Loop = best(3, [&] {
      std::fill(Ref.begin(), Ref.end(), 0.0f);
      for (int I = 0; I < R; ++I)
        for (int L = 0; L < K; ++L)
          for (int J = 0; J < C; ++J)
            Ref[I * C + J] += A[I * K + L] * B[L * C + J];
    });
    float Alpha = 1, Beta = 0;
    auto Run = [&] {
      Launch(*M, "_Z6matmulIfEviiiT_PKS0_S2_S0_PS0_",
             {{uint32_t(C / 16), uint32_t(R / 16)}, {16, 16}},
             {&R, &C, &K, &Alpha, &A, &B, &Beta, &Out});
    };
    auto [Fib, Host] = Both(3, Run, [&] {
      for (int I = 0; I < R * C; ++I)
        if (Ref[I] != Out[I])
          std::exit(fail("matmul: results differ from the C++ loop"));
    });
    report(("tiled matmul " + std::to_string(R) + "^3").c_str(), Loop, Fib, Host);
    D->release(A);
    D->release(B);
    D->release(Out);
  }

  // Shuffle reduction: per-warp sums with shfl.sync.bfly (fibers, cross-lane operations).
  {
    auto M = Load(ShuffleSum, "warp_sum.ptx");
    int N = 1 << 20;
    auto *In = static_cast<float *>(D->allocate(N * 4));
    auto *Out = static_cast<float *>(D->allocate(N / 32 * 4));
    for (int I = 0; I < N; ++I)
      In[I] = float(I % 16);
    std::vector<float> Ref(N / 32);
    double Loop = best(5, [&] {
      for (int W = 0; W < N / 32; ++W) {
        // The butterfly's order of additions, as the kernel does it.
        float V[32];
        std::memcpy(V, In + W * 32, sizeof V);
        for (int S = 16; S >= 1; S /= 2) {
          float Next[32];
          for (int L = 0; L < 32; ++L)
            Next[L] = V[L] + V[L ^ S];
          std::memcpy(V, Next, sizeof V);
        }
        Ref[W] = V[0];
      }
    });
    auto Run = [&] { Launch(*M, "warp_sum", {{uint32_t(N / 256)}, {256}}, {&In, &Out, &N}); };
    auto [Fib, Host] = Both(3, Run, [&] {
      for (int W = 0; W < N / 32; ++W)
        if (Ref[W] != Out[W])
          std::exit(fail("shuffle reduction: results differ from the C++ loop"));
    });
    report(("shuffle reduction " + std::to_string(N) + " floats").c_str(), Loop, Fib, Host);
    D->release(In);
    D->release(Out);
  }

  // Histogram of bytes with shared-memory atomics (histogram.cu's hist256: per-block bins,
  // barriers around the counting, then global atomics).
  {
    auto M = Load(File("histogram.sm90.ptx"), "histogram.ptx");
    int N = 1 << 24;
    auto *Data = static_cast<uint8_t *>(D->allocate(N));
    auto *Bins = static_cast<unsigned *>(D->allocate(256 * 4));
    for (int I = 0; I < N; ++I)
      Data[I] = uint8_t((uint32_t(I) * 2654435761u) >> 13);
    std::vector<unsigned> Ref(256);
    double Loop = best(5, [&] {
      std::fill(Ref.begin(), Ref.end(), 0u);
      for (int I = 0; I < N; ++I)
        ++Ref[Data[I]];
    });
    auto Run = [&] {
      std::memset(Bins, 0, 256 * 4);
      Launch(*M, "_Z7hist256PKhiPj", {{64}, {256}}, {&Data, &N, &Bins});
    };
    auto [Fib, Host] = Both(3, Run, [&] {
      if (std::memcmp(Bins, Ref.data(), 256 * 4) != 0)
        std::exit(fail("histogram: results differ from the C++ loop"));
    });
    report(("histogram " + std::to_string(N) + " bytes").c_str(), Loop, Fib, Host);
    D->release(Data);
    D->release(Bins);
  }

  // Block-wide scan with __syncthreads (prefix_scan.cu's block_scan: Blelloch up- and
  // down-sweep over 512 values per block of 256 in shared memory).
  {
    auto M = Load(File("prefix_scan.sm90.ptx"), "prefix_scan.ptx");
    const int PerBlock = 512;
    int N = PerBlock * 4096;
    auto *In = static_cast<int *>(D->allocate(N * 4));
    auto *Out = static_cast<int *>(D->allocate(N * 4));
    for (int I = 0; I < N; ++I)
      In[I] = I % 101 - 40;
    std::vector<int> Ref(N);
    double Loop = best(5, [&] {
      for (int B = 0; B < N; B += PerBlock) {
        int Acc = 0;
        for (int I = B; I < B + PerBlock; ++I)
          Ref[I] = Acc += In[I];
      }
    });
    int *NoSums = nullptr;
    auto Run = [&] {
      Launch(*M, "_Z10block_scanPKiPiiS1_", {{uint32_t(N / PerBlock)}, {256}},
             {&In, &Out, &N, &NoSums});
    };
    auto [Fib, Host] = Both(3, Run, [&] {
      if (std::memcmp(Out, Ref.data(), N * 4.0) != 0)
        std::exit(fail("block scan: results differ from the C++ loop"));
    });
    report(("block scan " + std::to_string(N) + " ints").c_str(), Loop, Fib, Host);
    D->release(In);
    D->release(Out);
  }
  return 0;
}
