//===- Graphs.h - CUDA graphs, their instantiation and stream capture, for both APIs -*- C++
//-*-===//
//
// A graph is a set of nodes with dependencies; an instantiated graph (GraphExec) is a copy of it
// with its nodes in one topological order, which a launch runs in that order on the stream it
// is launched on: every dependency is then satisfied, since the stream orders all its work.
// Stream capture records the work that capturing streams are given as nodes of a graph instead
// of running it; each capturing stream has a frontier (the nodes the next one depends on), and
// events carry frontiers from one stream to another (fork and join).
//
// Handles: cudaGraph_t/CUgraph is a Graph *, cudaGraphNode_t/CUgraphNode a GraphNode *,
// cudaGraphExec_t/CUgraphExec a GraphExec *.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Runtime.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace ptx2amd::runtime {

/// cudaGraphNodeType / CUgraphNodeType (same values).
enum class NodeKind : int {
  Kernel = 0,
  Memcpy = 1,
  Memset = 2,
  Host = 3,
  ChildGraph = 4,
  Empty = 5,
  WaitEvent = 6,
  EventRecord = 7,
  SemaphoreSignal = 8,
  SemaphoreWait = 9,
  MemAlloc = 10,
  MemFree = 11,
  BatchMemOp = 12,
  Conditional = 13,
};

/// A kernel launch whose arguments are copied into the node (CUDA copies them when the node is
/// made or its parameters set).
struct KernelLaunch {
  KernelRecord *Kernel = nullptr;
  dim3 Grid{1, 1, 1}, Block{1, 1, 1};
  unsigned SharedBytes = 0;
  std::vector<std::vector<unsigned char>> Args; ///< one per explicit kernel argument
  std::vector<LaunchAttribute> Attributes;      ///< cudaGraphKernelNodeSetAttribute's
};
/// Fills \p Out from a launch's arguments (CUDA's kernelParams), sized by the kernel's
/// translated signature.
cudaError_t captureKernelLaunch(KernelRecord *K, dim3 Grid, dim3 Block, unsigned SharedBytes,
                                void **Args, KernelLaunch &Out);

struct Fill2D {
  void *Dst = nullptr;
  size_t Pitch = 0;
  uint32_t Value = 0;
  unsigned ElementBytes = 1;
  size_t Width = 0, Height = 1;
};

struct HostCall {
  void (*Fn)(void *) = nullptr;
  void *UserData = nullptr;
};

/// Memory of a mem-alloc node: allocated when the node is made (its address is fixed for the
/// node's life, as CUDA's is), live from the node's execution to its free.
struct GraphMemory {
  void *Ptr = nullptr;
  size_t Bytes = 0;
  bool Live = false;
  ~GraphMemory();
};

/// A conditional node's condition (cudaGraphConditionalHandle, CUgraphConditionalHandle): the
/// handle is the device address of a 32-bit value that kernels set with cudaGraphSetConditional
/// and the node reads when it runs. Graphs that share it (clones, instantiations) keep it alive.
struct ConditionalHandle {
  void *Value = nullptr;
  unsigned Default = 0;
  bool AssignDefault = false; ///< cudaGraphCondAssignDefault: Default at each launch
  ~ConditionalHandle();
};

struct UserObject;
struct Graph;

struct GraphNode {
  NodeKind Kind = NodeKind::Empty;
  Graph *Owner = nullptr;
  unsigned Index = 0; ///< creation order in its graph; exec update pairs nodes by it
  std::vector<GraphNode *> Dependencies, Dependents;
  KernelLaunch Kernel;
  Copy3D Copy;
  Fill2D Memset;
  HostCall Host;
  cudaEvent_t Event = nullptr;
  std::unique_ptr<Graph> Child;
  std::shared_ptr<GraphMemory> Memory; ///< MemAlloc's
  void *FreePtr = nullptr;             ///< MemFree's
  /// Conditional's: cudaGraphConditionalNodeType (if, while, switch), the condition and the
  /// body graphs (their handles, what the node's creation returns, alongside).
  int ConditionalType = 0;
  std::shared_ptr<ConditionalHandle> Condition;
  std::vector<std::unique_ptr<Graph>> Bodies;
  std::vector<Graph *> BodyHandles;
  bool Enabled = true;                 ///< in an instantiated graph
  const GraphNode *Original = nullptr; ///< in a clone: the node it was cloned from

  GraphNode();
  ~GraphNode();
  /// The parameters of \p N (not its graph, index or edges).
  void copyParams(const GraphNode &N);
};

struct Graph {
  std::vector<std::unique_ptr<GraphNode>> Nodes;
  std::vector<std::pair<UserObject *, unsigned>> UserObjects; ///< references held
  std::vector<std::shared_ptr<ConditionalHandle>> Conditions; ///< created on this graph
  const Graph *Original = nullptr;                            ///< of a clone
  unsigned NextIndex = 0;

  Graph();
  ~Graph();
};

struct GraphExec {
  Graph Copy;
  std::vector<GraphNode *> Order; ///< Copy's nodes in a topological order
  unsigned long long Flags = 0;
};

//===-- graphs -------------------------------------------------------------===//

cudaError_t createGraph(Graph **Out);
/// cudaErrorInvalidValue unless \p G is a live graph.
cudaError_t checkGraph(const Graph *G);
cudaError_t destroyGraph(Graph *G);
/// Adds \p Proto's kind and parameters as a node of \p G after \p Deps.
cudaError_t addNode(Graph *G, GraphNode **Out, GraphNode *const *Deps, size_t NumDeps,
                    const GraphNode &Proto);
cudaError_t destroyNode(GraphNode *N);
cudaError_t addDependencies(Graph *G, GraphNode *const *From, GraphNode *const *To, size_t Count,
                            bool Remove);
/// A deep copy of \p G into \p Out (whose nodes remember their originals).
void cloneGraph(const Graph &G, Graph &Out);
cudaError_t findInClone(GraphNode **Out, const GraphNode *Original, const Graph *Clone);
/// Writes the graph in Graphviz's format to \p Path.
cudaError_t printDot(const Graph *G, const char *Path, unsigned Flags);

/// cudaGraphInstantiateFlags: auto free on launch, upload, device launch, node priorities.
cudaError_t instantiate(GraphExec **Out, const Graph *G, unsigned long long Flags);
cudaError_t destroyExec(GraphExec *X);
cudaError_t launchGraph(GraphExec *X, cudaStream_t S);
/// The node of \p X made from \p Node of the graph it was instantiated from.
cudaError_t execNode(GraphExec *X, const GraphNode *Node, GraphNode *&Out);
/// cudaGraphExecUpdate: \p G's parameters into \p X when the topologies match. \p Result is a
/// cudaGraphExecUpdateResult, \p ErrorNode the node of G that failed it.
cudaError_t updateExec(GraphExec *X, const Graph *G, int &Result, GraphNode *&ErrorNode);

/// Graph memory (mem-alloc nodes') in use and reserved, current and highest
/// (cudaGraphMemAttributeType 0-3); the highs can be reset to zero.
cudaError_t graphMemAttribute(int Attribute, uint64_t *Value, bool Reset);
/// The memory of a new mem-alloc node (cudaGraphAddMemAllocNode, cudaMallocAsync captured).
cudaError_t makeGraphMemory(size_t Bytes, std::shared_ptr<GraphMemory> &Out);
/// cudaFree/cudaFreeAsync of graph memory: it stops being live; true when \p Ptr is such memory.
bool freeGraphMemory(void *Ptr);

//===-- user objects -------------------------------------------------------===//

cudaError_t createUserObject(UserObject **Out, void *Ptr, void (*Destroy)(void *),
                             unsigned InitialCount, unsigned Flags);
cudaError_t retainUserObject(UserObject *O, unsigned Count);
cudaError_t releaseUserObject(UserObject *O, unsigned Count);
cudaError_t graphRetainUserObject(Graph *G, UserObject *O, unsigned Count, unsigned Flags);
cudaError_t graphReleaseUserObject(Graph *G, UserObject *O, unsigned Count);

//===-- stream capture -----------------------------------------------------===//

/// cudaStreamBeginCapture(ToGraph): \p Into null makes a graph that cudaStreamEndCapture hands
/// over; \p Deps are the first nodes' dependencies (of Into).
cudaError_t beginCapture(cudaStream_t S, int Mode, Graph *Into, GraphNode *const *Deps,
                         size_t NumDeps);
cudaError_t endCapture(cudaStream_t S, Graph **Out);
/// cudaStreamUpdateCaptureDependencies: \p Flags 0 adds to the frontier, 1 replaces it.
cudaError_t updateCaptureDependencies(cudaStream_t S, GraphNode *const *Deps, size_t NumDeps,
                                      unsigned Flags);
/// Whether \p S is capturing: then the work given to it becomes a node (captureNode).
bool isCapturing(cudaStream_t S);
/// Adds \p Proto to the capture of \p S after its frontier, which it becomes.
cudaError_t captureNode(cudaStream_t S, const GraphNode &Proto);
/// Event record and wait while capturing (Objects.cpp asks first): nullopt when neither the
/// stream nor the event takes part in a capture.
std::optional<cudaError_t> captureRecordEvent(cudaEvent_t E, cudaStream_t S);
std::optional<cudaError_t> captureWaitEvent(cudaStream_t S, cudaEvent_t E);
/// A call that would wait for a capturing stream's work (synchronize, query): the capture is
/// invalidated and the call fails, as CUDA's does.
std::optional<cudaError_t> refuseWhileCapturing(cudaStream_t S);
/// The calling thread's cudaStreamCaptureMode (cudaThreadExchangeStreamCaptureMode).
int &threadCaptureMode();
/// A potentially unsafe call (allocation, freeing, device synchronisation) while a capture
/// forbids it to this thread: the thread's own capture unless begun relaxed, or, while this
/// thread's mode is global, another thread's global capture. Those captures are invalidated and
/// the call fails with cudaErrorStreamCaptureUnsupported, as CUDA's does.
std::optional<cudaError_t> refuseUnsafeCall(const char *What);

//===-- node parameters of both APIs ---------------------------------------===//

/// Node parameters the runtime and driver APIs lay out alike: cudaMemsetParams and
/// CUDA_MEMSET_NODE_PARAMS, cudaHostNodeParams and CUDA_HOST_NODE_PARAMS, cudaMemAllocNodeParams
/// and CUDA_MEM_ALLOC_NODE_PARAMS.
struct MemsetNodeParams {
  void *Dst;
  size_t Pitch;
  unsigned Value, ElementSize;
  size_t Width, Height;
};
static_assert(sizeof(MemsetNodeParams) == 40);

struct HostNodeParams {
  void (*Fn)(void *);
  void *UserData;
};

struct MemAllocNodeParams {
  unsigned char PoolProps[88]; ///< cudaMemPoolProps: device memory of device 0 is what is made
  const void *AccessDescs;
  size_t AccessDescCount;
  size_t Bytes;
  void *Ptr;
};
static_assert(sizeof(MemAllocNodeParams) == 120);

cudaError_t readCopy1D(void *Dst, const void *Src, size_t Bytes, cudaMemcpyKind Kind, GraphNode &N);
cudaError_t readMemset(const MemsetNodeParams *P, GraphNode &N);
void writeMemset(const GraphNode &N, MemsetNodeParams *P);
cudaError_t readHost(const HostNodeParams *P, GraphNode &N);
/// A child graph node of a copy of \p Child.
cudaError_t readChild(Graph *Child, GraphNode &N);
/// cudaGraphConditionalHandleCreate: a condition of \p G's conditional nodes; \p Flags 1 assigns
/// \p Default at the start of each launch.
cudaError_t createConditionalHandle(uint64_t *Out, Graph *G, unsigned Default, unsigned Flags);
/// A conditional node of \p Type with \p Size empty body graphs.
cudaError_t readConditional(uint64_t Handle, int Type, unsigned Size, GraphNode &N);
/// A mem-alloc node, its memory allocated now; \p P's pointer is set to it.
cudaError_t readAlloc(MemAllocNodeParams *P, GraphNode &N);
void writeAlloc(const GraphNode &N, MemAllocNodeParams *P);
/// cudaErrorInvalidValue unless \p Node is a node of \p Kind.
cudaError_t nodeOfKind(GraphNode *Node, NodeKind Kind);
/// Edge data (cudaGraphEdgeData, CUgraphEdgeData: 8 bytes each): only default edges exist.
cudaError_t checkEdgeData(const void *EdgeData, size_t Count);
void zeroEdgeData(void *EdgeData, size_t Count);

/// cudaGraphInstantiateParams / CUDA_GRAPH_INSTANTIATE_PARAMS.
struct InstantiateParams {
  unsigned long long Flags;
  cudaStream_t UploadStream;
  GraphNode *ErrorNode;
  int Result; ///< cudaGraphInstantiateResult
};
static_assert(sizeof(InstantiateParams) == 32);
/// cudaGraphExecUpdateResultInfo / CUgraphExecUpdateResultInfo.
struct ExecUpdateResultInfo {
  int Result;
  GraphNode *ErrorNode;
  GraphNode *ErrorFromNode;
};
static_assert(sizeof(ExecUpdateResultInfo) == 24);

// The entry points' operations that both APIs' parameters share.
cudaError_t cloneGraphHandle(Graph **Out, Graph *G);
/// The graph's nodes (\p RootsOnly: those without dependencies), as CUDA's list queries give them.
cudaError_t listNodes(Graph *G, bool RootsOnly, GraphNode **Out, size_t *Count);
cudaError_t listEdges(Graph *G, GraphNode **From, GraphNode **To, void *EdgeData, size_t *Count);
/// A node's dependencies, or (\p Dependents) the nodes that depend on it.
cudaError_t listNeighbours(GraphNode *N, bool Dependents, GraphNode **Out, void *EdgeData,
                           size_t *Count);
cudaError_t changeDependencies(Graph *G, GraphNode *const *From, GraphNode *const *To,
                               const void *EdgeData, size_t Count, bool Remove);
cudaError_t nodeType(GraphNode *N, int *Type);
/// A kernel node's launch attribute \p Id (a 64-byte value), read or set.
cudaError_t kernelNodeAttribute(GraphNode *N, int Id, void *Value, bool Set);
cudaError_t copyKernelNodeAttributes(GraphNode *Dst, GraphNode *Src);
cudaError_t hostNodeParams(GraphNode *N, HostNodeParams *Out);
cudaError_t childGraphOf(GraphNode *N, Graph **Out);
cudaError_t memAllocNodeParams(GraphNode *N, MemAllocNodeParams *Out);
cudaError_t memFreeNodeAddress(GraphNode *N, void **Out);
/// An event record or wait node of \p Kind: its event, read or (in \p X when given) set.
cudaError_t nodeEvent(GraphNode *N, NodeKind Kind, cudaEvent_t *Out);
cudaError_t setNodeEvent(GraphExec *X, GraphNode *N, NodeKind Kind, cudaEvent_t Event);
cudaError_t readEvent(cudaEvent_t Event, NodeKind Kind, GraphNode &N);
cudaError_t readEmpty(GraphNode &N);
cudaError_t readMemFree(void *Ptr, GraphNode &N);
/// cudaGraphNodeSetParams / cudaGraphExecNodeSetParams refuse memory nodes of \p Type.
cudaError_t memoryNodeParamsFixed(int Type);
cudaError_t setNodeEnabled(GraphExec *X, GraphNode *N, unsigned Enabled);
cudaError_t nodeEnabled(GraphExec *X, GraphNode *N, unsigned *Enabled);
cudaError_t instantiateWithParams(GraphExec **Out, const Graph *G, InstantiateParams *P);
cudaError_t updateExecInfo(GraphExec *X, const Graph *G, ExecUpdateResultInfo *Info);
cudaError_t uploadGraph(GraphExec *X, cudaStream_t S);

/// Sets \p Node's parameters from \p Read's, when of the same kind.
template <typename ReadFn> cudaError_t setParams(GraphNode *Node, NodeKind Kind, ReadFn Read) {
  if (cudaError_t E = nodeOfKind(Node, Kind))
    return E;
  GraphNode Proto;
  if (cudaError_t E = Read(Proto))
    return E;
  Node->copyParams(Proto);
  return cudaSuccess;
}

/// The same for the node of \p Exec made from \p Node.
template <typename ReadFn>
cudaError_t setExecParams(GraphExec *Exec, GraphNode *Node, NodeKind Kind, ReadFn Read) {
  GraphNode *Target = nullptr;
  if (cudaError_t E = execNode(Exec, Node, Target))
    return E;
  return setParams(Target, Kind, Read);
}

template <typename ReadFn>
cudaError_t add(GraphNode **Out, Graph *G, GraphNode *const *Deps, size_t NumDeps, ReadFn Read) {
  GraphNode Proto;
  if (cudaError_t E = Read(Proto))
    return E;
  return addNode(G, Out, Deps, NumDeps, Proto);
}

/// A kernel node's parameters set by \p Read, its launch attributes kept.
template <typename ReadFn> cudaError_t setKernelParams(GraphNode *Node, ReadFn Read) {
  if (cudaError_t E = nodeOfKind(Node, NodeKind::Kernel))
    return E;
  auto Attributes = Node->Kernel.Attributes;
  if (cudaError_t E = setParams(Node, NodeKind::Kernel, Read))
    return E;
  Node->Kernel.Attributes = std::move(Attributes);
  return cudaSuccess;
}

/// cudaGraphAddNode/cuGraphAddNode of either API's node parameters (\p Read reads them): a
/// conditional node hands back its body graphs.
template <typename Params, typename ReadFn>
cudaError_t addFromParams(GraphNode **Out, Graph *G, GraphNode *const *Deps, size_t NumDeps,
                          Params *P, ReadFn Read) {
  if (cudaError_t E = add(Out, G, Deps, NumDeps, [&](GraphNode &N) { return Read(P, N); }))
    return E;
  if ((*Out)->Kind == NodeKind::Conditional)
    P->Conditional.Bodies = (*Out)->BodyHandles.data();
  return cudaSuccess;
}

/// Copies \p List into \p Out (of room \p Size) as CUDA's list queries do: a null \p Out asks
/// for the count only; with one, at most Size entries are written and Size is the number written.
template <typename T> cudaError_t writeList(const std::vector<T> &List, T *Out, size_t *Size) {
  if (!Size)
    return fail(cudaErrorInvalidValue);
  if (!Out) {
    *Size = List.size();
    return cudaSuccess;
  }
  size_t N = std::min(*Size, List.size());
  std::copy(List.begin(), List.begin() + N, Out);
  for (size_t I = N; I < *Size; ++I)
    Out[I] = T();
  *Size = N;
  return cudaSuccess;
}

} // namespace ptx2amd::runtime
