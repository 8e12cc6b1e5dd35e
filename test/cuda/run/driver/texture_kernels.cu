// The kernels of driver_textures, loaded from texture_kernels.ptx: texture and surface objects
// as kernel parameters (64-bit handles, as the driver API passes them).
#include <cuda_runtime.h>

extern "C" __global__ void tex2d_point(cudaTextureObject_t t, const float *xs, const float *ys,
                                       float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tex2D<float>(t, xs[i], ys[i]);
}

extern "C" __global__ void fetch_linear(cudaTextureObject_t t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tex1Dfetch<float>(t, i);
}

extern "C" __global__ void tex_layered(cudaTextureObject_t t, int w, int h, float *out) {
  int x = threadIdx.x, y = blockIdx.x, l = blockIdx.y;
  out[(l * h + y) * w + x] = tex2DLayered<float>(t, x + 0.5f, y + 0.5f, l);
}

// dst(x, y) = src(x, y) + 1, every texel of a w x h surface of unsigned ints.
extern "C" __global__ void surf_increment(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, int w,
                                          int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h)
    surf2Dwrite(surf2Dread<unsigned>(src, x * 4, y) + 1u, dst, x * 4, y);
}
