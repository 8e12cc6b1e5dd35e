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
