// Bundled example: y = a*x + y over n elements, with a per-block sum in shared memory.
__global__ void saxpy(int n, float a, const float *x, float *y, float *blockSums) {
  __shared__ float partial[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = 0.0f;
  if (i < n) {
    v = a * x[i] + y[i];
    y[i] = v;
  }
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    blockSums[blockIdx.x] = partial[0];
}

// The host side: an ordinary CUDA program (build it with `nvcc -cudart shared`; scripts/run-cuda
// runs it through ptx2amd without changing it).
#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  const int n = 1 << 20, threads = 256, blocks = (n + threads - 1) / threads;
  const float a = 2.5f;
  std::vector<float> x(n), y(n), sums(blocks);
  for (int i = 0; i < n; ++i) {
    x[i] = float(i % 1000) * 0.001f;
    y[i] = float(i % 7);
  }
  float *dx, *dy, *dsums;
  cudaMalloc(&dx, n * sizeof(float));
  cudaMalloc(&dy, n * sizeof(float));
  cudaMalloc(&dsums, blocks * sizeof(float));
  cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  saxpy<<<blocks, threads>>>(n, a, dx, dy, dsums);
  cudaError_t err = cudaDeviceSynchronize();
  std::vector<float> out(n);
  cudaMemcpy(out.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(sums.data(), dsums, blocks * sizeof(float), cudaMemcpyDeviceToHost);
  int bad = 0;
  double total = 0;
  for (int i = 0; i < n; ++i) {
    // nvcc fuses a * x + y into one fma (one rounding): allow the host's two roundings.
    float want = a * x[i] + y[i];
    bad += std::fabs(out[i] - want) > 1e-6f * std::fmax(1.0f, std::fabs(want));
    total += out[i];
  }
  double blockTotal = 0;
  for (float s : sums)
    blockTotal += s;
  bool ok = err == cudaSuccess && bad == 0 && std::fabs(blockTotal - total) <= 1e-4 * total;
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  std::printf("device: %s (warp size %d)\n", prop.name, prop.warpSize);
  std::printf("saxpy of %d elements: %d wrong, sum %.1f (per-block sums %.1f)\n", n, bad, total,
              blockTotal);
  std::printf("%s\n", ok ? "PASS saxpy" : "FAIL saxpy");
  cudaFree(dx);
  cudaFree(dy);
  cudaFree(dsums);
  return ok ? 0 : 1;
}
