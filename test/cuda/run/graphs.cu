// graphs: CUDA graphs built node by node and by stream capture across two streams (fork and join
// through events), instantiated, updated (per-node parameters and whole-graph exec update) and
// launched 100 times each, checked after every launch; graph memory (mem-alloc and mem-free
// nodes), conditional nodes (while, if/else) set by kernels, child graphs, clones, user objects,
// queries, and capture's error rules, including which threads a capture forbids unsafe calls.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include <thread>
#include <vector>

static const char *kName = "graphs";

#include "../check.h"

// EXPECT with what differed.
#define EXPECT_FIELD(cond, ...)                                                                    \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      printf("FAIL %s: ", kName);                                                                  \
      printf(__VA_ARGS__);                                                                         \
      printf("\n");                                                                                \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

__global__ void fill(int *out, int n, int value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = value + i;
}

__global__ void scale(int *data, int n, int factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    data[i] *= factor;
}

__global__ void combine(const int *a, const int *b, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a[i] - b[i];
}

// One round of a while loop: counts down and stops the loop at zero.
__global__ void countDown(int *counter, int *rounds, cudaGraphConditionalHandle loop) {
  ++*rounds;
  if (--*counter == 0)
    cudaGraphSetConditional(loop, 0);
}

__global__ void setFlag(int *flag, int value) { *flag = value; }

__global__ void chooseBranch(const int *which, cudaGraphConditionalHandle branch) {
  cudaGraphSetConditional(branch, *which);
}

static void countCall(void *counter) { ++*static_cast<int *>(counter); }
static void destroyObject(void *flag) { *static_cast<int *>(flag) = 1; }

static const int n = 1000;
static const int blocks = (n + 127) / 128;

// A graph of every node kind that needs no extra memory: memset, kernel, copy, host, child,
// event record, empty; then launched 100 times, a kernel node's argument changed each time.
static int explicitGraph(cudaStream_t s) {
  int *d = nullptr;
  CK(cudaMalloc(&d, n * sizeof(int)));
  std::vector<int> host(n, -1);
  int calls = 0;
  cudaEvent_t done;
  CK(cudaEventCreate(&done));

  cudaGraph_t g;
  CK(cudaGraphCreate(&g, 0));
  cudaGraphNode_t memset, fillNode, scaleNode, copy, hostNode, child, record, empty;

  cudaMemsetParams mp = {};
  mp.dst = d;
  mp.value = 0x7f;
  mp.elementSize = 4;
  mp.width = n;
  mp.height = 1;
  CK(cudaGraphAddMemsetNode(&memset, g, nullptr, 0, &mp));

  int value = 5, nn = n, factor = 3;
  void *fillArgs[] = {&d, &nn, &value};
  cudaKernelNodeParams kp = {};
  kp.func = (void *)fill;
  kp.gridDim = dim3(blocks);
  kp.blockDim = dim3(128);
  kp.kernelParams = fillArgs;
  CK(cudaGraphAddKernelNode(&fillNode, g, &memset, 1, &kp));
  // Arguments are copied into the node: changing the variable later changes nothing.
  value = 1000000;

  // The child graph scales the data.
  cudaGraph_t sub;
  CK(cudaGraphCreate(&sub, 0));
  void *scaleArgs[] = {&d, &nn, &factor};
  cudaKernelNodeParams sp = {};
  sp.func = (void *)scale;
  sp.gridDim = dim3(blocks);
  sp.blockDim = dim3(128);
  sp.kernelParams = scaleArgs;
  CK(cudaGraphAddKernelNode(&scaleNode, sub, nullptr, 0, &sp));
  CK(cudaGraphAddChildGraphNode(&child, g, &fillNode, 1, sub));
  CK(cudaGraphDestroy(sub)); // the node holds its own copy

  CK(cudaGraphAddMemcpyNode1D(&copy, g, &child, 1, host.data(), d, n * sizeof(int),
                              cudaMemcpyDeviceToHost));
  cudaHostNodeParams hp = {countCall, &calls};
  CK(cudaGraphAddHostNode(&hostNode, g, &copy, 1, &hp));
  CK(cudaGraphAddEventRecordNode(&record, g, &hostNode, 1, done));
  cudaGraphNode_t last[] = {record, copy};
  CK(cudaGraphAddEmptyNode(&empty, g, last, 2));

  size_t count = 0;
  CK(cudaGraphGetNodes(g, nullptr, &count));
  EXPECT(count == 7);
  CK(cudaGraphGetRootNodes(g, nullptr, &count));
  EXPECT(count == 1);
  CK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &count));
  EXPECT(count == 7);
  cudaGraphNodeType type;
  CK(cudaGraphNodeGetType(child, &type));
  EXPECT(type == cudaGraphNodeTypeGraph);
  CK(cudaGraphNodeGetDependentNodes(copy, nullptr, nullptr, &count));
  EXPECT(count == 2);
  cudaKernelNodeParams back = {};
  CK(cudaGraphKernelNodeGetParams(fillNode, &back));
  EXPECT(back.func == (void *)fill && back.gridDim.x == unsigned(blocks) &&
         *static_cast<int *>(back.kernelParams[2]) == 5);

  cudaGraphExec_t exec;
  CK(cudaGraphInstantiate(&exec, g, 0));
  for (int launch = 0; launch < 100; ++launch) {
    int v = launch * 7;
    void *args[] = {&d, &nn, &v};
    cudaKernelNodeParams up = kp;
    up.kernelParams = args;
    if (launch > 0)
      CK(cudaGraphExecKernelNodeSetParams(exec, fillNode, &up));
    else
      v = 5;
    CK(cudaGraphLaunch(exec, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaEventSynchronize(done));
    for (int i = 0; i < n; ++i)
      EXPECT_FIELD(host[i] == (v + i) * 3, "explicit graph launch %d element %d: %d, want %d",
                   launch, i, host[i], (v + i) * 3);
  }
  EXPECT(calls == 100);

  // Disabling the kernel node leaves the memset's pattern (then scaled) in place.
  CK(cudaGraphNodeSetEnabled(exec, fillNode, 0));
  unsigned enabled = 1;
  CK(cudaGraphNodeGetEnabled(exec, fillNode, &enabled));
  EXPECT(enabled == 0);
  CK(cudaGraphLaunch(exec, s));
  CK(cudaStreamSynchronize(s));
  EXPECT(host[0] == 0x7f * 3 && host[n - 1] == 0x7f * 3); // a 32-bit value

  // A clone is independent of its original; its nodes are found from the original's.
  cudaGraph_t clone;
  CK(cudaGraphClone(&clone, g));
  cudaGraphNode_t cloneFill;
  CK(cudaGraphNodeFindInClone(&cloneFill, fillNode, clone));
  EXPECT(cloneFill != fillNode);
  CK(cudaGraphKernelNodeGetParams(cloneFill, &back));
  EXPECT(*static_cast<int *>(back.kernelParams[2]) == 5);
  CK(cudaGraphDebugDotPrint(clone, "/dev/null", 0));
  CK(cudaGraphDestroy(clone));

  CK(cudaGraphExecDestroy(exec));
  CK(cudaGraphDestroy(g));
  CK(cudaEventDestroy(done));
  CK(cudaFree(d));
  return 0;
}

// Records: a = fill(x); b = fill(y) on a second stream; out = a - b; copy out to the host; a host
// call. The forked stream joins back through an event.
static int capture(cudaStream_t s1, cudaStream_t s2, int *a, int *b, int *out, int *host, int x,
                   int y, int *calls, cudaGraph_t *graph) {
  cudaEvent_t fork, join;
  CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus status;
  CK(cudaStreamIsCapturing(s1, &status));
  EXPECT(status == cudaStreamCaptureStatusActive);
  CK(cudaStreamIsCapturing(s2, &status));
  EXPECT(status == cudaStreamCaptureStatusNone);
  CK(cudaMemsetAsync(out, 0, n * sizeof(int), s1));
  CK(cudaEventRecord(fork, s1));
  CK(cudaStreamWaitEvent(s2, fork, 0));
  CK(cudaStreamIsCapturing(s2, &status));
  EXPECT(status == cudaStreamCaptureStatusActive);
  fill<<<blocks, 128, 0, s1>>>(a, n, x);
  fill<<<blocks, 128, 0, s2>>>(b, n, y);
  CK(cudaGetLastError());
  CK(cudaEventRecord(join, s2));
  CK(cudaStreamWaitEvent(s1, join, 0));
  combine<<<blocks, 128, 0, s1>>>(a, b, out, n);
  CK(cudaMemcpyAsync(host, out, n * sizeof(int), cudaMemcpyDeviceToHost, s1));
  CK(cudaLaunchHostFunc(s1, countCall, calls));
  CK(cudaStreamEndCapture(s1, graph));
  CK(cudaStreamIsCapturing(s2, &status));
  EXPECT(status == cudaStreamCaptureStatusNone);
  CK(cudaEventDestroy(fork));
  CK(cudaEventDestroy(join));
  return 0;
}

static int capturedGraph(cudaStream_t s1, cudaStream_t s2) {
  int *a, *b, *out;
  CK(cudaMalloc(&a, n * sizeof(int)));
  CK(cudaMalloc(&b, n * sizeof(int)));
  CK(cudaMalloc(&out, n * sizeof(int)));
  int *host = nullptr;
  CK(cudaMallocHost(&host, n * sizeof(int)));
  int calls = 0;

  cudaGraph_t g;
  if (capture(s1, s2, a, b, out, host, 10, 0, &calls, &g))
    return 1;
  size_t count = 0;
  CK(cudaGraphGetNodes(g, nullptr, &count));
  EXPECT(count == 6);
  CK(cudaGraphGetRootNodes(g, nullptr, &count));
  EXPECT(count == 1); // the memset; both fills follow it
  std::vector<cudaGraphNode_t> nodes(6);
  count = 6;
  CK(cudaGraphGetNodes(g, nodes.data(), &count));
  CK(cudaGraphNodeGetDependencies(nodes[3], nullptr, nullptr, &count));
  EXPECT(count == 2); // combine waits for both fills

  cudaGraphExec_t exec;
  CK(cudaGraphInstantiate(&exec, g, 0));
  CK(cudaGraphDestroy(g));
  for (int launch = 0; launch < 100; ++launch) {
    // Every tenth launch, the work is captured again with new values and the executable graph
    // updated from it in place.
    int x = 10 + launch / 10, y = 3 * (launch / 10);
    if (launch % 10 == 0 && launch) {
      cudaGraph_t again;
      if (capture(s1, s2, a, b, out, host, x, y, &calls, &again))
        return 1;
      cudaGraphExecUpdateResultInfo info;
      CK(cudaGraphExecUpdate(exec, again, &info));
      EXPECT(info.result == cudaGraphExecUpdateSuccess);
      CK(cudaGraphDestroy(again));
    }
    CK(cudaGraphLaunch(exec, s1));
    CK(cudaStreamSynchronize(s1));
    for (int i = 0; i < n; ++i)
      EXPECT_FIELD(host[i] == x - y, "captured graph launch %d element %d: %d, want %d", launch, i,
                   host[i], x - y);
  }
  EXPECT(calls == 100);

  // A graph of another shape does not update it.
  cudaGraph_t other;
  CK(cudaGraphCreate(&other, 0));
  cudaGraphNode_t e;
  CK(cudaGraphAddEmptyNode(&e, other, nullptr, 0));
  cudaGraphExecUpdateResultInfo info;
  EXPECT(cudaGraphExecUpdate(exec, other, &info) == cudaErrorGraphExecUpdateFailure);
  EXPECT(info.result == cudaGraphExecUpdateErrorTopologyChanged);
  EXPECT(cudaGetLastError() == cudaErrorGraphExecUpdateFailure);
  CK(cudaGraphDestroy(other));

  CK(cudaGraphExecDestroy(exec));
  CK(cudaFreeHost(host));
  CK(cudaFree(a));
  CK(cudaFree(b));
  CK(cudaFree(out));
  return 0;
}

// cudaMallocAsync/cudaFreeAsync captured: a mem-alloc node and a mem-free node, the memory the
// graph's own, at one address every launch.
static int graphMemory(cudaStream_t s) {
  int *result = nullptr;
  CK(cudaMalloc(&result, n * sizeof(int)));
  cudaGraph_t g;
  int *scratch = nullptr;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  CK(cudaMallocAsync(&scratch, n * sizeof(int), s));
  fill<<<blocks, 128, 0, s>>>(scratch, n, 40);
  CK(cudaMemcpyAsync(result, scratch, n * sizeof(int), cudaMemcpyDeviceToDevice, s));
  CK(cudaFreeAsync(scratch, s));
  CK(cudaStreamEndCapture(s, &g));
  EXPECT(scratch != nullptr);
  size_t count = 0;
  CK(cudaGraphGetNodes(g, nullptr, &count));
  EXPECT(count == 4);
  std::vector<cudaGraphNode_t> nodes(count);
  CK(cudaGraphGetNodes(g, nodes.data(), &count));
  cudaGraphNodeType type;
  CK(cudaGraphNodeGetType(nodes[0], &type));
  EXPECT(type == cudaGraphNodeTypeMemAlloc);
  cudaMemAllocNodeParams ap;
  CK(cudaGraphMemAllocNodeGetParams(nodes[0], &ap));
  EXPECT(ap.dptr == scratch && ap.bytesize == n * sizeof(int));
  CK(cudaGraphNodeGetType(nodes[3], &type));
  EXPECT(type == cudaGraphNodeTypeMemFree);

  cudaGraphExec_t exec;
  CK(cudaGraphInstantiate(&exec, g, 0));
  std::vector<int> host(n);
  for (int launch = 0; launch < 10; ++launch) {
    CK(cudaMemsetAsync(result, 0, n * sizeof(int), s));
    CK(cudaGraphLaunch(exec, s));
    CK(cudaMemcpyAsync(host.data(), result, n * sizeof(int), cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i)
      EXPECT_FIELD(host[i] == 40 + i, "graph memory launch %d element %d: %d", launch, i, host[i]);
  }
  unsigned long long reserved = 0;
  CK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &reserved));
  EXPECT(reserved >= n * sizeof(int));
  CK(cudaGraphExecDestroy(exec));
  CK(cudaGraphDestroy(g));
  CK(cudaDeviceGraphMemTrim(0));
  CK(cudaFree(result));
  return 0;
}

// What capture refuses, as CUDA's does.
static int captureErrors(cudaStream_t s1, cudaStream_t s2) {
  cudaGraph_t g = nullptr;
  EXPECT(cudaStreamEndCapture(s1, &g) == cudaErrorIllegalState);
  cudaGetLastError();
  EXPECT(cudaStreamBeginCapture(cudaStreamLegacy, cudaStreamCaptureModeGlobal) ==
         cudaErrorStreamCaptureUnsupported);
  cudaGetLastError();

  // Waiting for a capturing stream invalidates its capture.
  CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeRelaxed));
  EXPECT(cudaStreamSynchronize(s1) == cudaErrorStreamCaptureUnsupported);
  cudaStreamCaptureStatus status;
  CK(cudaStreamIsCapturing(s1, &status));
  EXPECT(status == cudaStreamCaptureStatusInvalidated);
  EXPECT(cudaStreamEndCapture(s1, &g) == cudaErrorStreamCaptureInvalidated);
  EXPECT(g == nullptr);
  cudaGetLastError();

  // A forked stream that is not joined back.
  cudaEvent_t fork;
  CK(cudaEventCreate(&fork));
  int *d = nullptr;
  CK(cudaMalloc(&d, sizeof(int)));
  CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CK(cudaEventRecord(fork, s1));
  CK(cudaStreamWaitEvent(s2, fork, 0));
  CK(cudaMemsetAsync(d, 0, sizeof(int), s2));
  EXPECT(cudaStreamEndCapture(s1, &g) == cudaErrorStreamCaptureUnjoined);
  cudaGetLastError();
  CK(cudaStreamIsCapturing(s2, &status));
  EXPECT(status == cudaStreamCaptureStatusNone);
  CK(cudaEventDestroy(fork));
  CK(cudaFree(d));
  return 0;
}

// Which threads a capture forbids potentially unsafe calls (cudaMalloc, cudaFree, device
// synchronisation), by the capture's mode and the calling thread's.
static int captureModes(cudaStream_t s1) {
  cudaGraph_t g = nullptr;
  void *p = nullptr;
  // The capturing thread itself, in global mode: refused, and the capture is invalidated.
  CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  EXPECT(cudaMalloc(&p, 64) == cudaErrorStreamCaptureUnsupported);
  EXPECT(p == nullptr);
  EXPECT(cudaStreamEndCapture(s1, &g) == cudaErrorStreamCaptureInvalidated);
  cudaGetLastError();
  // A relaxed capture forbids nothing.
  CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeRelaxed));
  CK(cudaMalloc(&p, 64));
  CK(cudaFree(p));
  CK(cudaStreamEndCapture(s1, &g));
  CK(cudaGraphDestroy(g));

  // Another thread's global capture forbids this thread's unsafe calls while this thread's mode is
  // global, and not once it is thread-local.
  for (int mode : {cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal}) {
    std::atomic<int> phase{0};
    cudaError_t endResult = cudaSuccess;
    std::thread capturer([&] {
      cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal);
      phase = 1;
      while (phase != 2)
        std::this_thread::yield();
      cudaGraph_t captured = nullptr;
      endResult = cudaStreamEndCapture(s1, &captured);
      if (captured)
        cudaGraphDestroy(captured);
    });
    while (phase != 1)
      std::this_thread::yield();
    cudaStreamCaptureMode mine = cudaStreamCaptureMode(mode);
    CK(cudaThreadExchangeStreamCaptureMode(&mine));
    cudaError_t r = cudaMalloc(&p, 64);
    cudaStreamCaptureMode back = mine;
    CK(cudaThreadExchangeStreamCaptureMode(&back));
    EXPECT(back == cudaStreamCaptureMode(mode));
    phase = 2;
    capturer.join();
    if (mode == cudaStreamCaptureModeGlobal) {
      EXPECT_FIELD(r == cudaErrorStreamCaptureUnsupported, "cudaMalloc gave %d", int(r));
      EXPECT_FIELD(endResult == cudaErrorStreamCaptureInvalidated, "end gave %d", int(endResult));
      cudaGetLastError();
    } else {
      EXPECT_FIELD(r == cudaSuccess, "cudaMalloc gave %d", int(r));
      EXPECT_FIELD(endResult == cudaSuccess, "end gave %d", int(endResult));
      CK(cudaFree(p));
    }
  }
  return 0;
}

// Conditional nodes: a while loop whose body a kernel ends, and an if/else chosen by a kernel.
static int conditionalGraphs(cudaStream_t s) {
  int *d = nullptr;
  CK(cudaMalloc(&d, 4 * sizeof(int)));
  int *counter = d, *rounds = d + 1, *which = d + 2, *flag = d + 3;

  cudaGraph_t g;
  CK(cudaGraphCreate(&g, 0));
  cudaGraphConditionalHandle loop, branch;
  CK(cudaGraphConditionalHandleCreate(&loop, g, 1, cudaGraphCondAssignDefault));
  CK(cudaGraphConditionalHandleCreate(&branch, g, 0, 0));
  cudaGraphNodeParams wp = {cudaGraphNodeTypeConditional};
  wp.conditional.handle = loop;
  wp.conditional.type = cudaGraphCondTypeWhile;
  wp.conditional.size = 1;
  cudaGraphNode_t whileNode, chooser, ifNode;
  CK(cudaGraphAddNode(&whileNode, g, nullptr, nullptr, 0, &wp));
  cudaGraph_t body = wp.conditional.phGraph_out[0];
  cudaStream_t cap;
  CK(cudaStreamCreate(&cap));
  CK(cudaStreamBeginCaptureToGraph(cap, body, nullptr, nullptr, 0, cudaStreamCaptureModeGlobal));
  countDown<<<1, 1, 0, cap>>>(counter, rounds, loop);
  CK(cudaStreamEndCapture(cap, nullptr));

  void *chooseArgs[] = {&which, &branch};
  cudaKernelNodeParams kp = {};
  kp.func = (void *)chooseBranch;
  kp.gridDim = kp.blockDim = dim3(1);
  kp.kernelParams = chooseArgs;
  CK(cudaGraphAddKernelNode(&chooser, g, &whileNode, 1, &kp));
  cudaGraphNodeParams ip = {cudaGraphNodeTypeConditional};
  ip.conditional.handle = branch;
  ip.conditional.type = cudaGraphCondTypeIf;
  ip.conditional.size = 2;
  CK(cudaGraphAddNode(&ifNode, g, &chooser, nullptr, 1, &ip));
  for (int b = 0; b < 2; ++b) {
    CK(cudaStreamBeginCaptureToGraph(cap, ip.conditional.phGraph_out[b], nullptr, nullptr, 0,
                                     cudaStreamCaptureModeGlobal));
    setFlag<<<1, 1, 0, cap>>>(flag, b == 0 ? 100 : 200); // then, else
    CK(cudaStreamEndCapture(cap, nullptr));
  }
  CK(cudaStreamDestroy(cap));

  cudaGraphExec_t exec;
  CK(cudaGraphInstantiate(&exec, g, 0));
  for (int launch = 1; launch <= 6; ++launch) {
    int init[4] = {launch, 0, launch % 2, 0};
    CK(cudaMemcpy(d, init, sizeof init, cudaMemcpyHostToDevice));
    CK(cudaGraphLaunch(exec, s));
    int out[4];
    CK(cudaMemcpyAsync(out, d, sizeof out, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    EXPECT_FIELD(out[0] == 0 && out[1] == launch, "while loop, launch %d: counter %d rounds %d",
                 launch, out[0], out[1]);
    EXPECT_FIELD(out[3] == (launch % 2 ? 100 : 200), "if/else, launch %d: %d", launch, out[3]);
  }
  CK(cudaGraphExecDestroy(exec));
  CK(cudaGraphDestroy(g));
  CK(cudaFree(d));
  return 0;
}

// A user object's destructor runs once the last graph that holds it is gone.
static int userObjects() {
  int destroyed = 0;
  cudaUserObject_t object;
  CK(cudaUserObjectCreate(&object, &destroyed, destroyObject, 1, cudaUserObjectNoDestructorSync));
  cudaGraph_t g;
  CK(cudaGraphCreate(&g, 0));
  CK(cudaGraphRetainUserObject(g, object, 1, cudaGraphUserObjectMove));
  cudaGraphExec_t exec;
  CK(cudaGraphInstantiate(&exec, g, 0));
  CK(cudaGraphDestroy(g));
  EXPECT(destroyed == 0);
  CK(cudaGraphExecDestroy(exec));
  EXPECT(destroyed == 1);
  return 0;
}

int main() {
  cudaStream_t s1, s2;
  CK(cudaStreamCreate(&s1));
  CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  if (explicitGraph(s1) || capturedGraph(s1, s2) || graphMemory(s2) || conditionalGraphs(s1) ||
      captureErrors(s1, s2) || captureModes(s1) || userObjects())
    return 1;
  CK(cudaStreamDestroy(s1));
  CK(cudaStreamDestroy(s2));
  printf("PASS %s\n", kName);
  return 0;
}
