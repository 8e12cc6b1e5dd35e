// bench/host: kernels translated for an AMDGPU target and run by the host backend, each beside a
// plain C++ loop doing the same work on one core and PoCL (the OpenCL CPU device) running the same
// kernel written in OpenCL C, all in one process and one run. Ours and PoCL run on one core
// (LaunchConfig::Workers = 1; a PoCL sub-device of one compute unit) and on all cores. One figure
// per line: times are the best of a few runs; a ratio is the first time / the second, so above 1
// means ours is faster. --fibers adds ours as fibers (the fallback) for kernels that meet.
#include "ptx2amd/host-backend/HostDevice.h"

#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#ifdef PTX2AMD_HAVE_OPENCL
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#endif

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

// The same kernels in OpenCL C, as an OpenCL programmer writes them. PoCL's CPU device has no
// subgroup shuffles, so its warp sum does the same butterfly (the same additions in the same
// order) through local memory with barriers between the steps.
const char *OpenClKernels = R"(
#pragma OPENCL FP_CONTRACT OFF
__kernel void saxpy(int n, float a, __global const float *restrict x,
                    __global const float *restrict y, __global float *restrict out) {
  for (int i = get_global_id(0); i < n; i += get_global_size(0))
    out[i] = a * x[i] + y[i];
}

#define TILE 16
__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))
void matmul(int M, int N, int K, float alpha, __global const float *restrict A,
            __global const float *restrict B, float beta, __global float *restrict C) {
  __local float As[TILE][TILE];
  __local float Bs[TILE][TILE + 1];
  const int tx = get_local_id(0), ty = get_local_id(1);
  const int row = get_group_id(1) * TILE + ty;
  const int col = get_group_id(0) * TILE + tx;
  float acc = 0;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (col < N && k0 + ty < K) ? B[(k0 + ty) * N + col] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TILE; ++k)
      acc += As[ty][k] * Bs[k][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < M && col < N)
    C[row * N + col] = alpha * acc + beta * C[row * N + col];
}

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void warp_sum(__global const float *in, __global float *out, int n) {
  __local float v[256];
  const int g = get_global_id(0), t = get_local_id(0);
  float x = g < n ? in[g] : 0.0f;
  for (int s = 16; s >= 1; s >>= 1) {
    v[t] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    x += v[t ^ s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if ((t & 31) == 0)
    out[g >> 5] = x;
}

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void hist256(__global const uchar *data, int n, __global uint *bins) {
  __local uint local_bins[256];
  for (int b = get_local_id(0); b < 256; b += get_local_size(0))
    local_bins[b] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  const int nvec = n / 4;
  const int stride = get_global_size(0);
  for (int i = get_global_id(0); i < nvec; i += stride) {
    uchar4 q = vload4(i, data);
    atomic_inc(&local_bins[q.x]);
    atomic_inc(&local_bins[q.y]);
    atomic_inc(&local_bins[q.z]);
    atomic_inc(&local_bins[q.w]);
  }
  for (int i = nvec * 4 + get_global_id(0); i < n; i += stride)
    atomic_inc(&local_bins[data[i]]);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int b = get_local_id(0); b < 256; b += get_local_size(0))
    if (local_bins[b])
      atomic_add(&bins[b], local_bins[b]);
}

#define THREADS 256
#define PER_BLOCK (2 * THREADS)
__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1)))
void block_scan(__global const int *in, __global int *out, int n) {
  __local int buf[PER_BLOCK];
  const int t = get_local_id(0);
  const int base = get_group_id(0) * PER_BLOCK;
  const int a = base + t, b = base + t + THREADS;
  const int va = a < n ? in[a] : 0;
  const int vb = b < n ? in[b] : 0;
  buf[t] = va;
  buf[t + THREADS] = vb;
  int offset = 1;
  for (int d = PER_BLOCK >> 1; d > 0; d >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t < d) {
      int ai = offset * (2 * t + 1) - 1;
      int bi = offset * (2 * t + 2) - 1;
      buf[bi] += buf[ai];
    }
    offset <<= 1;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (t == 0)
    buf[PER_BLOCK - 1] = 0;
  for (int d = 1; d < PER_BLOCK; d <<= 1) {
    offset >>= 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t < d) {
      int ai = offset * (2 * t + 1) - 1;
      int bi = offset * (2 * t + 2) - 1;
      int tmp = buf[ai];
      buf[ai] = buf[bi];
      buf[bi] += tmp;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (a < n)
    out[a] = buf[t] + va;
  if (b < n)
    out[b] = buf[t + THREADS] + vb;
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

[[noreturn]] void die(const std::string &Msg) {
  fail(Msg);
  std::exit(1);
}

#ifdef PTX2AMD_HAVE_OPENCL
/// PoCL's CPU device: the whole device and a sub-device of one compute unit, one program of
/// OpenClKernels built for both.
class Pocl {
public:
  /// PoCL's CPU device, or null with \p Why set (no OpenCL platform, no PoCL among them, ...).
  static std::unique_ptr<Pocl> open(std::string &Why) {
    cl_uint N = 0;
    if (clGetPlatformIDs(0, nullptr, &N) != CL_SUCCESS || N == 0) {
      Why = "no OpenCL platform (install pocl-opencl-icd: scripts/setup)";
      return nullptr;
    }
    std::vector<cl_platform_id> Platforms(N);
    clGetPlatformIDs(N, Platforms.data(), nullptr);
    for (cl_platform_id P : Platforms) {
      char Name[256] = {};
      clGetPlatformInfo(P, CL_PLATFORM_NAME, sizeof Name - 1, Name, nullptr);
      if (!std::strstr(Name, "Portable Computing Language"))
        continue;
      auto Cl = std::unique_ptr<Pocl>(new Pocl);
      if (clGetDeviceIDs(P, CL_DEVICE_TYPE_CPU, 1, &Cl->All, nullptr) != CL_SUCCESS)
        break;
      clGetDeviceInfo(Cl->All, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof Cl->Units, &Cl->Units, nullptr);
      const cl_device_partition_property One[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
      cl_uint Subs = 0;
      if (clCreateSubDevices(Cl->All, One, 0, nullptr, &Subs) != CL_SUCCESS || Subs == 0) {
        Why = "PoCL cannot make a sub-device of one compute unit";
        return nullptr;
      }
      // It makes one per compute unit: the first is kept.
      std::vector<cl_device_id> Parts(Subs);
      clCreateSubDevices(Cl->All, One, Subs, Parts.data(), nullptr);
      Cl->One = Parts[0];
      for (cl_uint I = 1; I < Subs; ++I)
        clReleaseDevice(Parts[I]);
      cl_device_id Devices[] = {Cl->All, Cl->One};
      cl_int E = CL_SUCCESS;
      Cl->Context = clCreateContext(nullptr, 2, Devices, nullptr, nullptr, &E);
      if (E == CL_SUCCESS)
        Cl->QueueAll = clCreateCommandQueueWithProperties(Cl->Context, Cl->All, nullptr, &E);
      if (E == CL_SUCCESS)
        Cl->QueueOne = clCreateCommandQueueWithProperties(Cl->Context, Cl->One, nullptr, &E);
      const char *Source = OpenClKernels;
      if (E == CL_SUCCESS)
        Cl->Program = clCreateProgramWithSource(Cl->Context, 1, &Source, nullptr, &E);
      if (E != CL_SUCCESS) {
        Why = "OpenCL error " + std::to_string(E) + " setting up PoCL";
        return nullptr;
      }
      if (clBuildProgram(Cl->Program, 2, Devices, "-cl-std=CL1.2", nullptr, nullptr) !=
          CL_SUCCESS) {
        size_t Size = 0;
        clGetProgramBuildInfo(Cl->Program, Cl->All, CL_PROGRAM_BUILD_LOG, 0, nullptr, &Size);
        std::string Log(Size, '\0');
        clGetProgramBuildInfo(Cl->Program, Cl->All, CL_PROGRAM_BUILD_LOG, Size, Log.data(),
                              nullptr);
        Why = "PoCL cannot build the OpenCL kernels:\n" + Log;
        return nullptr;
      }
      return Cl;
    }
    Why = "no PoCL among the OpenCL platforms";
    return nullptr;
  }

  ~Pocl() {
    for (cl_mem B : Buffers)
      clReleaseMemObject(B);
    for (cl_kernel K : Kernels)
      clReleaseKernel(K);
    if (Program)
      clReleaseProgram(Program);
    if (QueueOne)
      clReleaseCommandQueue(QueueOne);
    if (QueueAll)
      clReleaseCommandQueue(QueueAll);
    if (Context)
      clReleaseContext(Context);
    if (One)
      clReleaseDevice(One);
  }

  unsigned units() const { return Units; }

  cl_kernel kernel(const char *Name) {
    cl_int E = CL_SUCCESS;
    cl_kernel K = clCreateKernel(Program, Name, &E);
    if (E != CL_SUCCESS)
      die(std::string("PoCL has no kernel ") + Name);
    Kernels.push_back(K);
    return K;
  }

  /// A buffer over the bench's own host memory (PoCL's CPU device uses it in place).
  cl_mem wrap(void *Host, size_t Bytes) {
    cl_int E = CL_SUCCESS;
    cl_mem B = clCreateBuffer(Context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, Bytes, Host, &E);
    if (E != CL_SUCCESS)
      die("PoCL cannot wrap " + std::to_string(Bytes) + " bytes: error " + std::to_string(E));
    Buffers.push_back(B);
    return B;
  }

  template <typename... A> void setArgs(cl_kernel K, const A &...Args) {
    cl_uint I = 0;
    ((clSetKernelArg(K, I++, sizeof(A), &Args) == CL_SUCCESS) && ...) ||
        (die("PoCL refuses an argument"), false);
  }

  /// Runs \p K over \p Global items in groups of \p Local (2-D when Global[1] > 1) on one compute
  /// unit or all, and waits; the buffers' host memory then holds the results.
  void run(cl_kernel K, const size_t Global[2], const size_t Local[2], bool OneUnit) {
    cl_command_queue Q = OneUnit ? QueueOne : QueueAll;
    cl_int E = clEnqueueNDRangeKernel(Q, K, Global[1] > 1 ? 2 : 1, nullptr, Global, Local, 0,
                                      nullptr, nullptr);
    if (E == CL_SUCCESS)
      E = clFinish(Q);
    if (E != CL_SUCCESS)
      die("PoCL launch failed: error " + std::to_string(E));
  }

  /// Maps and unmaps every buffer, so that the host memory holds what the kernels wrote.
  void sync() {
    for (cl_mem B : Buffers) {
      size_t Size = 0;
      clGetMemObjectInfo(B, CL_MEM_SIZE, sizeof Size, &Size, nullptr);
      cl_int E = CL_SUCCESS;
      void *P = clEnqueueMapBuffer(QueueAll, B, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, Size, 0,
                                   nullptr, nullptr, &E);
      if (E != CL_SUCCESS)
        die("PoCL cannot map a buffer: error " + std::to_string(E));
      clEnqueueUnmapMemObject(QueueAll, B, P, 0, nullptr, nullptr);
    }
    clFinish(QueueAll);
  }

  /// Drops the buffers (the next kernel wraps its own).
  void releaseBuffers() {
    for (cl_mem B : Buffers)
      clReleaseMemObject(B);
    Buffers.clear();
  }

private:
  Pocl() = default;
  cl_device_id All = nullptr, One = nullptr;
  cl_uint Units = 0;
  cl_context Context = nullptr;
  cl_command_queue QueueAll = nullptr, QueueOne = nullptr;
  cl_program Program = nullptr;
  std::vector<cl_kernel> Kernels;
  std::vector<cl_mem> Buffers;
};
#else
using cl_kernel = void *;
using cl_mem = void *;
/// Built without OpenCL's headers and loader: no PoCL column (open() says why; nothing else is
/// called).
class Pocl {
public:
  static std::unique_ptr<Pocl> open(std::string &Why) {
    Why = "built without OpenCL (install ocl-icd-opencl-dev and pocl-opencl-icd: scripts/setup)";
    return nullptr;
  }
  cl_kernel kernel(const char *) { return nullptr; }
  cl_mem wrap(void *, size_t) { return nullptr; }
  template <typename... A> void setArgs(cl_kernel, const A &...) {}
  void run(cl_kernel, const size_t[2], const size_t[2], bool) {}
  void sync() {}
  void releaseBuffers() {}
};
#endif

/// One kernel's times in seconds (negative: not run).
struct Times {
  double Loop = -1;                ///< the C++ loop, one core
  double Ours1 = -1, OursAll = -1; ///< the host backend on one core, on all
  double Fibers1 = -1;             ///< ours as fibers, one core (--fibers)
  double Pocl1 = -1, PoclAll = -1; ///< PoCL on one compute unit, on all
};

void report(const std::string &What, const Times &T, unsigned Cores) {
  std::string All = std::to_string(Cores) + " cores";
  auto Time = [&](const char *Who, const std::string &Where, double S) {
    if (S >= 0)
      std::printf("%s: %s, %s: %.2f ms\n", What.c_str(), Who, Where.c_str(), S * 1e3);
  };
  auto Ratio = [&](const char *Which, const std::string &Where, double Num, double Den) {
    if (Num >= 0 && Den > 0)
      std::printf("%s: ratio %s, %s: %.3f\n", What.c_str(), Which, Where.c_str(), Num / Den);
  };
  Time("C++ loop", "1 core", T.Loop);
  Time("ours", "1 core", T.Ours1);
  Time("ours", All, T.OursAll);
  Time("ours as fibers", "1 core", T.Fibers1);
  Time("PoCL", "1 core", T.Pocl1);
  Time("PoCL", All, T.PoclAll);
  Ratio("C++/ours", "1 core", T.Loop, T.Ours1);
  Ratio("PoCL/ours", "1 core", T.Pocl1, T.Ours1);
  Ratio("PoCL/ours", All, T.PoclAll, T.OursAll);
  Ratio("fibers/ours", "1 core", T.Fibers1, T.Ours1);
}

} // namespace

int main(int argc, char **argv) {
  std::string Arch = "gfx90a";
  bool WithFibers = false, WithPocl = true;
  for (int I = 1; I < argc; ++I) {
    if (std::strcmp(argv[I], "--arch") == 0 && I + 1 < argc)
      Arch = argv[++I];
    else if (std::strcmp(argv[I], "--threads") == 0 && I + 1 < argc)
      setenv("PTX2AMD_HOST_THREADS", argv[++I], 1);
    else if (std::strcmp(argv[I], "--fibers") == 0)
      WithFibers = true;
    else if (std::strcmp(argv[I], "--no-pocl") == 0)
      WithPocl = false;
    else if (std::strcmp(argv[I], "--help") == 0 || std::strcmp(argv[I], "-h") == 0) {
      std::printf("usage: bench-host [--arch gfx90a] [--threads N] [--fibers] [--no-pocl]\n"
                  "  --arch     the AMDGPU target whose translation runs (its wave size)\n"
                  "  --threads  the host backend's workers, 'all cores' (default: every core)\n"
                  "  --fibers   also time kernels that meet as fibers, the fallback\n"
                  "  --no-pocl  leave PoCL out\n");
      return 0;
    } else
      return fail(std::string("unknown option ") + argv[I] + " (--help)");
  }
  const amdgpu::Target *T = amdgpu::findTarget(Arch);
  if (!T)
    return fail("unknown target " + Arch);
  auto Dev = host::Device::create();
  if (!Dev)
    return fail(llvm::toString(Dev.takeError()));
  auto Load = [&](const std::string &Text, const std::string &Name) {
    auto M = (*Dev)->loadPtx(Text, Name, *T);
    if (!M)
      die(llvm::toString(M.takeError()));
    return std::move(*M);
  };
  auto File = [&](const char *Name) {
    auto B = llvm::MemoryBuffer::getFile(std::string(PTX2AMD_CUDA_PTX_DIR) + "/" + Name);
    if (!B)
      die(std::string("cannot read ") + Name + " (build the test programs' PTX first)");
    return (*B)->getBuffer().str();
  };
  auto Launch = [&](host::LoadedModule &M, const char *K, host::LaunchConfig C,
                    std::vector<void *> Args) {
    auto R = (*Dev)->launch(M, K, C, Args.data());
    if (!R)
      die(llvm::toString(R.takeError()));
  };
  auto *D = Dev->get();
  auto Workers = host::Device::computeUnits();
  unsigned Cores = Workers ? *Workers : 0;
  std::string Why;
  std::unique_ptr<Pocl> Cl;
  if (WithPocl)
    Cl = Pocl::open(Why);
  else
    Why = "left out (--no-pocl)";
  std::printf("target %s, %u-lane waves, %u workers, PoCL: %s\n", std::string(T->Name).c_str(),
              T->WaveSize, Cores, Cl ? "yes" : Why.c_str());

  // Times ours (one core, all cores, fibers on one core when asked) and PoCL (one compute unit,
  // all), each checked after its runs. Ours(C) launches with C's workers and fiber choice.
  auto Measure = [&](int Runs, auto &&Ours, auto &&PoclRun, auto &&Check, Times &Out) {
    host::LaunchConfig One;
    One.Workers = 1;
    Out.Ours1 = best(Runs, [&] { Ours(One); });
    Check("ours, 1 core");
    Out.OursAll = best(Runs, [&] { Ours(host::LaunchConfig{}); });
    Check("ours, all cores");
    if (WithFibers) {
      host::LaunchConfig F = One;
      F.Fibers = true;
      Out.Fibers1 = best(Runs, [&] { Ours(F); });
      Check("ours as fibers");
    }
    if (Cl) {
      PoclRun(true); // PoCL compiles a kernel for its work-group size at the first launch
      Out.Pocl1 = best(Runs, [&] { PoclRun(true); });
      Cl->sync();
      Check("PoCL, 1 core");
      Out.PoclAll = best(Runs, [&] { PoclRun(false); });
      Cl->sync();
      Check("PoCL, all cores");
      Cl->releaseBuffers();
    }
  };

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
    Times Tm;
    Tm.Loop = best(5, [&] {
      for (int I = 0; I < N; ++I)
        Ref[I] = A * X[I] + Y[I];
    });
    cl_kernel K = Cl ? Cl->kernel("saxpy") : nullptr;
    if (Cl)
      Cl->setArgs(K, N, A, Cl->wrap(X, N * 4), Cl->wrap(Y, N * 4), Cl->wrap(Out, N * 4));
    Measure(
        5,
        [&](host::LaunchConfig C) {
          C.Grid = {uint32_t(N / 256)};
          C.Block = {256};
          Launch(*M, "_Z5saxpyifPKfS0_Pf", C, {&N, &A, &X, &Y, &Out});
        },
        [&](bool OneUnit) {
          const size_t G[2] = {size_t(N), 1}, L[2] = {256, 1};
          Cl->run(K, G, L, OneUnit);
        },
        [&](const char *Who) {
          if (std::memcmp(Ref.data(), Out, N * 4.0) != 0)
            die(std::string("elementwise: results differ from the C++ loop (") + Who + ")");
          std::memset(Out, 0, N * 4.0);
        },
        Tm);
    report("elementwise saxpy " + std::to_string(N) + " floats", Tm, Cores);
    D->release(X);
    D->release(Y);
    D->release(Out);
  }

  // Tiled matmul with shared memory and barriers, float.
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
    Times Tm;
    Tm.Loop = best(3, [&] {
      std::fill(Ref.begin(), Ref.end(), 0.0f);
      for (int I = 0; I < R; ++I)
        for (int L = 0; L < K; ++L)
          for (int J = 0; J < C; ++J)
            Ref[I * C + J] += A[I * K + L] * B[L * C + J];
    });
    float Alpha = 1, Beta = 0;
    cl_kernel Kn = Cl ? Cl->kernel("matmul") : nullptr;
    if (Cl)
      Cl->setArgs(Kn, R, C, K, Alpha, Cl->wrap(A, R * K * 4), Cl->wrap(B, K * C * 4), Beta,
                  Cl->wrap(Out, R * C * 4));
    Measure(
        3,
        [&](host::LaunchConfig Cf) {
          Cf.Grid = {uint32_t(C / 16), uint32_t(R / 16)};
          Cf.Block = {16, 16};
          Launch(*M, "_Z6matmulIfEviiiT_PKS0_S2_S0_PS0_", Cf,
                 {&R, &C, &K, &Alpha, &A, &B, &Beta, &Out});
        },
        [&](bool OneUnit) {
          const size_t G[2] = {size_t(C), size_t(R)}, L[2] = {16, 16};
          Cl->run(Kn, G, L, OneUnit);
        },
        [&](const char *Who) {
          for (int I = 0; I < R * C; ++I)
            if (Ref[I] != Out[I])
              die(std::string("matmul: results differ from the C++ loop (") + Who + ")");
          std::fill(Out, Out + R * C, -1.0f);
        },
        Tm);
    report("tiled matmul " + std::to_string(R) + "^3", Tm, Cores);
    D->release(A);
    D->release(B);
    D->release(Out);
  }

  // Shuffle reduction: per-warp sums with shfl.sync.bfly (cross-lane operations).
  {
    auto M = Load(ShuffleSum, "warp_sum.ptx");
    int N = 1 << 20;
    auto *In = static_cast<float *>(D->allocate(N * 4));
    auto *Out = static_cast<float *>(D->allocate(N / 32 * 4));
    for (int I = 0; I < N; ++I)
      In[I] = float(I % 16);
    std::vector<float> Ref(N / 32);
    Times Tm;
    Tm.Loop = best(5, [&] {
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
    cl_kernel K = Cl ? Cl->kernel("warp_sum") : nullptr;
    if (Cl)
      Cl->setArgs(K, Cl->wrap(In, N * 4), Cl->wrap(Out, N / 32 * 4), N);
    Measure(
        5,
        [&](host::LaunchConfig C) {
          C.Grid = {uint32_t(N / 256)};
          C.Block = {256};
          Launch(*M, "warp_sum", C, {&In, &Out, &N});
        },
        [&](bool OneUnit) {
          const size_t G[2] = {size_t(N), 1}, L[2] = {256, 1};
          Cl->run(K, G, L, OneUnit);
        },
        [&](const char *Who) {
          for (int W = 0; W < N / 32; ++W)
            if (Ref[W] != Out[W])
              die(std::string("shuffle reduction: results differ from the C++ loop (") + Who + ")");
          std::fill(Out, Out + N / 32, -1.0f);
        },
        Tm);
    report("shuffle reduction " + std::to_string(N) + " floats", Tm, Cores);
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
    Times Tm;
    Tm.Loop = best(5, [&] {
      std::fill(Ref.begin(), Ref.end(), 0u);
      for (int I = 0; I < N; ++I)
        ++Ref[Data[I]];
    });
    cl_kernel K = Cl ? Cl->kernel("hist256") : nullptr;
    if (Cl)
      Cl->setArgs(K, Cl->wrap(Data, N), N, Cl->wrap(Bins, 256 * 4));
    Measure(
        3,
        [&](host::LaunchConfig C) {
          std::memset(Bins, 0, 256 * 4);
          C.Grid = {64};
          C.Block = {256};
          Launch(*M, "_Z7hist256PKhiPj", C, {&Data, &N, &Bins});
        },
        [&](bool OneUnit) {
          std::memset(Bins, 0, 256 * 4);
          const size_t G[2] = {64 * 256, 1}, L[2] = {256, 1};
          Cl->run(K, G, L, OneUnit);
        },
        [&](const char *Who) {
          if (std::memcmp(Bins, Ref.data(), 256 * 4) != 0)
            die(std::string("histogram: results differ from the C++ loop (") + Who + ")");
        },
        Tm);
    report("histogram " + std::to_string(N) + " bytes", Tm, Cores);
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
    Times Tm;
    Tm.Loop = best(5, [&] {
      for (int B = 0; B < N; B += PerBlock) {
        int Acc = 0;
        for (int I = B; I < B + PerBlock; ++I)
          Ref[I] = Acc += In[I];
      }
    });
    int *NoSums = nullptr;
    cl_kernel K = Cl ? Cl->kernel("block_scan") : nullptr;
    if (Cl)
      Cl->setArgs(K, Cl->wrap(In, N * 4), Cl->wrap(Out, N * 4), N);
    Measure(
        3,
        [&](host::LaunchConfig C) {
          C.Grid = {uint32_t(N / PerBlock)};
          C.Block = {256};
          Launch(*M, "_Z10block_scanPKiPiiS1_", C, {&In, &Out, &N, &NoSums});
        },
        [&](bool OneUnit) {
          const size_t G[2] = {size_t(N / 2), 1}, L[2] = {256, 1};
          Cl->run(K, G, L, OneUnit);
        },
        [&](const char *Who) {
          if (std::memcmp(Out, Ref.data(), N * 4.0) != 0)
            die(std::string("block scan: results differ from the C++ loop (") + Who + ")");
          std::memset(Out, 0, N * 4.0);
        },
        Tm);
    report("block scan " + std::to_string(N) + " ints", Tm, Cores);
    D->release(In);
    D->release(Out);
  }
  return 0;
}
