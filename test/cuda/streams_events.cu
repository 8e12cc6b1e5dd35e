// streams_events: several streams each running copy-in / kernel / copy-out on its own chunk
// with cudaMemcpyAsync from pinned host memory (cudaMallocHost), kernels launched with
// dynamic shared memory and an explicit stream, events recorded on streams and timed with
// cudaEventElapsedTime, cudaStreamSynchronize / cudaEventSynchronize, stream order within a
// stream (a second kernel consumes the first one's output), the legacy default stream, and
// managed memory (cudaMallocManaged) read directly by the host after synchronisation.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static const char *kName = "streams_events";

#include "check.h"

constexpr int kStreams = 3;

// Each block stages its slice in dynamic shared memory and writes it back reversed and scaled.
__global__ void reverse_scale(const int *in, int *out, int n, int scale) {
  extern __shared__ int stage[];
  const int base = blockIdx.x * blockDim.x;
  const int t = threadIdx.x;
  const int count = min((int)blockDim.x, n - base);
  if (t < count)
    stage[t] = in[base + t] * scale;
  __syncthreads();
  if (t < count)
    out[base + t] = stage[count - 1 - t];
}

__global__ void add_index(int *data, int n, int offset) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    data[i] += i + offset;
}

__global__ void fill_managed(long long *m, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    m[i] = (long long)i * i - 7;
}

int main() {
  const int chunk = 1000; // not a multiple of the block size
  const int n = chunk * kStreams;
  const int block = 128;
  int *hin, *hout;
  CK(cudaMallocHost(&hin, n * sizeof(int)));
  CK(cudaMallocHost(&hout, n * sizeof(int)));
  for (int i = 0; i < n; ++i) {
    hin[i] = (i * 37) % 1000 - 500;
    hout[i] = 0x7eadbeef;
  }
  int *din, *dmid, *dout;
  CK(cudaMalloc(&din, n * sizeof(int)));
  CK(cudaMalloc(&dmid, n * sizeof(int)));
  CK(cudaMalloc(&dout, n * sizeof(int)));
  CK(cudaMemset(dout, 0, n * sizeof(int)));

  cudaStream_t streams[kStreams];
  cudaEvent_t start[kStreams], stop[kStreams];
  for (int s = 0; s < kStreams; ++s) {
    CK(cudaStreamCreate(&streams[s]));
    CK(cudaEventCreate(&start[s]));
    CK(cudaEventCreate(&stop[s]));
  }

  for (int s = 0; s < kStreams; ++s) {
    const int off = s * chunk;
    CK(cudaEventRecord(start[s], streams[s]));
    CK(cudaMemcpyAsync(din + off, hin + off, chunk * sizeof(int), cudaMemcpyHostToDevice,
                       streams[s]));
    const int grid = (chunk + block - 1) / block;
    reverse_scale<<<grid, block, block * sizeof(int), streams[s]>>>(din + off, dmid + off, chunk,
                                                                    s + 2);
    CK(cudaGetLastError());
    add_index<<<3, 64, 0, streams[s]>>>(dmid + off, chunk, off);
    CK(cudaGetLastError());
    CK(cudaMemcpyAsync(hout + off, dmid + off, chunk * sizeof(int), cudaMemcpyDeviceToHost,
                       streams[s]));
    CK(cudaEventRecord(stop[s], streams[s]));
  }

  // Stream 0 is waited for with an event, stream 1 with the stream, stream 2 with the device.
  CK(cudaEventSynchronize(stop[0]));
  CK(cudaStreamSynchronize(streams[1]));
  CK(cudaDeviceSynchronize());

  int rc = 0;
  for (int s = 0; s < kStreams && !rc; ++s) {
    float ms = -1.0f;
    CK(cudaEventElapsedTime(&ms, start[s], stop[s]));
    if (!(ms >= 0.0f)) {
      printf("FAIL %s: elapsed time of stream %d is %g ms\n", kName, s, ms);
      rc = 1;
    }
  }
  for (int i = 0; i < n && !rc; ++i) {
    const int s = i / chunk, local = i % chunk;
    const int b = local / block, base = b * block;
    const int count = chunk - base < block ? chunk - base : block;
    const int src = s * chunk + base + (count - 1 - (local - base));
    const int want = hin[src] * (s + 2) + local + s * chunk;
    if (hout[i] != want) {
      printf("FAIL %s: out[%d] = %d, want %d\n", kName, i, hout[i], want);
      rc = 1;
    }
  }

  // Legacy default stream: async copy + kernel + async copy, then synchronise.
  if (!rc) {
    CK(cudaMemcpyAsync(dout, hin, n * sizeof(int), cudaMemcpyHostToDevice, 0));
    add_index<<<8, 256>>>(dout, n, -5);
    CK(cudaGetLastError());
    CK(cudaMemcpyAsync(hout, dout, n * sizeof(int), cudaMemcpyDeviceToHost, 0));
    CK(cudaStreamSynchronize(0));
    for (int i = 0; i < n; ++i)
      if (hout[i] != hin[i] + i - 5) {
        printf("FAIL %s: default stream out[%d] = %d, want %d\n", kName, i, hout[i],
               hin[i] + i - 5);
        rc = 1;
        break;
      }
  }

  // Managed memory.
  if (!rc) {
    const int m = 777;
    long long *managed;
    CK(cudaMallocManaged(&managed, m * sizeof(long long)));
    for (int i = 0; i < m; ++i)
      managed[i] = -1;
    fill_managed<<<(m + 255) / 256, 256>>>(managed, m);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    for (int i = 0; i < m; ++i)
      if (managed[i] != (long long)i * i - 7) {
        printf("FAIL %s: managed[%d] = %lld, want %lld\n", kName, i, managed[i],
               (long long)i * i - 7);
        rc = 1;
        break;
      }
    CK(cudaFree(managed));
  }

  for (int s = 0; s < kStreams; ++s) {
    CK(cudaEventDestroy(start[s]));
    CK(cudaEventDestroy(stop[s]));
    CK(cudaStreamDestroy(streams[s]));
  }
  CK(cudaFree(din));
  CK(cudaFree(dmid));
  CK(cudaFree(dout));
  CK(cudaFreeHost(hin));
  CK(cudaFreeHost(hout));
  if (rc == 0)
    printf("PASS %s\n", kName);
  return rc;
}
