/* TU B of an -rdc build: defines what TU A uses. */
__device__ int calls;

__device__ float twice(float x) { return 2.0f * x; }

__global__ void rdcNeg(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = -twice(x[i]) * 0.5f;
}

void launchB(float *x, int n) { rdcNeg<<<1, n>>>(x, n); }
