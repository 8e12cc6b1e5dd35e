// cooperative: cooperative launches through the driver API alone (-cudart none): the device
// attributes, a kernel of hand-written PTX that synchronises the grid the way cooperative_groups'
// grid_group::sync() does (a counter in the grid workspace that %envreg1:%envreg2 point to,
// atom.add.release.gpu and an ld.acquire.gpu spin), launched with cuLaunchCooperativeKernel,
// cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_COOPERATIVE and cuLaunchCooperativeKernelMultiDevice
// (one device) on the largest grid the occupancy allows; one block more is
// CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, and an ordinary launch has no workspace.
#include <cstdio>
#include <cuda.h>
#include <vector>

static const char *kName = "cooperative";

#include "../../check.h"

// cuLaunchCooperativeKernelMultiDevice is deprecated: testing it is the point.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

// Each block adds 1 to `arrived`, the grid meets, then each block stores what `arrived` holds:
// the number of blocks. Without a workspace (an ordinary launch) it stores ~0 instead.
static const char *kPtx = R"(
.version 8.0
.target sm_75
.address_size 64

.visible .entry meet(.param .u64 arrived, .param .u64 seen)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [arrived];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [seen];
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd2, %rd2, %rd3;
  mov.u32 %r3, %envreg1;
  mov.u32 %r4, %envreg2;
  mov.b64 %rd4, {%r4, %r3};
  setp.eq.u64 %p1, %rd4, 0;
  @!%p1 bra HAVE;
  setp.eq.u32 %p2, %r1, 0;
  @!%p2 bra END;
  st.global.u32 [%rd2], -1;
  bra END;
HAVE:
  setp.ne.u32 %p2, %r1, 0;
  @%p2 bra WAIT;
  atom.global.add.u32 %r5, [%rd1], 1;
  // The arrival: block 0 adds 0x80000000 - (blocks - 1), the others 1, so that the top bit
  // flips once every block arrived.
  mov.u32 %r6, %nctaid.x;
  mov.u32 %r7, 0x80000001;
  sub.u32 %r7, %r7, %r6;
  setp.eq.u32 %p3, %r2, 0;
  selp.u32 %r8, %r7, 1, %p3;
  add.s64 %rd5, %rd4, 4;
  atom.add.release.gpu.u32 %r9, [%rd5], %r8;
SPIN:
  ld.acquire.gpu.u32 %r10, [%rd5];
  xor.b32 %r11, %r10, %r9;
  setp.gt.s32 %p3, %r11, -1;
  @%p3 bra SPIN;
WAIT:
  bar.sync 0;
  @%p2 bra END;
  ld.global.u32 %r12, [%rd1];
  st.global.u32 [%rd2], %r12;
END:
  ret;
}
)";

static int checkSeen(CUdeviceptr seen, int blocks, unsigned want) {
  std::vector<unsigned> got(blocks);
  CU(cuMemcpyDtoH(got.data(), seen, blocks * sizeof(unsigned)));
  for (unsigned v : got)
    EXPECT(v == want);
  return 0;
}

int main() {
  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));

  int coop = 0, multi = 0, sms = 0;
  CU(cuDeviceGetAttribute(&coop, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, dev));
  CU(cuDeviceGetAttribute(&multi, CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH, dev));
  CU(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
  EXPECT(coop == 1 && multi == 1 && sms > 0);

  CUmodule mod;
  CU(cuModuleLoadData(&mod, kPtx));
  CUfunction meet;
  CU(cuModuleGetFunction(&meet, mod, "meet"));
  const int threads = 192;
  int perSm = 0;
  CU(cuOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, meet, threads, 0));
  EXPECT(perSm > 0);
  const int blocks = perSm * sms;
  CUdeviceptr arrived, seen;
  CU(cuMemAlloc(&arrived, sizeof(unsigned)));
  CU(cuMemAlloc(&seen, (blocks + 1) * sizeof(unsigned)));
  void *params[] = {&arrived, &seen};

  CU(cuMemsetD32(arrived, 0, 1));
  CU(cuLaunchCooperativeKernel(meet, blocks, 1, 1, threads, 1, 1, 0, nullptr, params));
  CU(cuCtxSynchronize());
  if (checkSeen(seen, blocks, blocks))
    return 1;

  CUlaunchAttribute attr = {};
  attr.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
  attr.value.cooperative = 1;
  CUlaunchConfig config = {};
  config.gridDimX = blocks;
  config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = threads;
  config.blockDimY = config.blockDimZ = 1;
  config.attrs = &attr;
  config.numAttrs = 1;
  CU(cuMemsetD32(arrived, 0, 1));
  CU(cuLaunchKernelEx(&config, meet, params, nullptr));
  CU(cuCtxSynchronize());
  if (checkSeen(seen, blocks, blocks))
    return 1;

  CUDA_LAUNCH_PARAMS launch = {};
  launch.function = meet;
  launch.gridDimX = blocks;
  launch.gridDimY = launch.gridDimZ = 1;
  launch.blockDimX = threads;
  launch.blockDimY = launch.blockDimZ = 1;
  launch.kernelParams = params;
  CU(cuMemsetD32(arrived, 0, 1));
  CU(cuLaunchCooperativeKernelMultiDevice(&launch, 1, 0));
  if (checkSeen(seen, blocks, blocks))
    return 1;
  EXPECT(cuLaunchCooperativeKernelMultiDevice(&launch, 2, 0) == CUDA_ERROR_INVALID_VALUE);

  // Too large, in each of the three ways; the context stays usable.
  EXPECT(cuLaunchCooperativeKernel(meet, blocks + 1, 1, 1, threads, 1, 1, 0, nullptr, params) ==
         CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
  config.gridDimX = blocks + 1;
  EXPECT(cuLaunchKernelEx(&config, meet, params, nullptr) ==
         CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
  launch.gridDimX = blocks + 1;
  EXPECT(cuLaunchCooperativeKernelMultiDevice(&launch, 1, 0) ==
         CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);

  // An ordinary launch: no workspace.
  CU(cuLaunchKernel(meet, blocks, 1, 1, threads, 1, 1, 0, nullptr, params, nullptr));
  CU(cuCtxSynchronize());
  if (checkSeen(seen, blocks, ~0u))
    return 1;

  CU(cuMemFree(arrived));
  CU(cuMemFree(seen));
  CU(cuModuleUnload(mod));
  CU(cuDevicePrimaryCtxRelease(dev));
  printf("PASS %s\n", kName);
  return 0;
}
