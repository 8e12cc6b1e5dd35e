// TU A of an -rdc build: calls twice(), which TU B defines.
extern __device__ float twice(float x);
extern __device__ int calls;

__global__ void rdcUse(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] = twice(x[i]);
    atomicAdd(&calls, 1);
  }
}

void launchA(float *x, int n) { rdcUse<<<1, n>>>(x, n); }
