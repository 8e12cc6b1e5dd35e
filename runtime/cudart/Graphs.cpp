//===- Graphs.cpp - the runtime API's graphs, graph nodes and stream capture ===//
//
// The runtime API's parameter structures, read into and written from the nodes of Graphs.h.

#include "Graphs.h"
#include "Runtime.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>

using namespace llvm;
using namespace ptx2amd;
using namespace ptx2amd::runtime;

namespace {

// CUDA 13's layouts (driver_types.h), under names of our own.
struct KernelNodeParams {
  void *Func;
  dim3 Grid, Block;
  unsigned SharedBytes;
  void **KernelParams;
  void **Extra;
};
static_assert(sizeof(KernelNodeParams) == 56 && offsetof(KernelNodeParams, KernelParams) == 40);
/// cudaGraphNodeParams: a type, then the union of each type's parameters.
struct NodeParams {
  int Type;
  int Reserved0[3];
  union {
    long long Reserved1[29];
    KernelNodeParams Kernel; ///< cudaKernelNodeParamsV2: the same layout
    struct {
      int Flags, Reserved;
      void *Ctx;
      cudaMemcpy3DParms Copy;
    } Memcpy;
    MemsetNodeParams Memset; ///< cudaMemsetNodeParamsV2
    HostNodeParams Host;     ///< cudaHostNodeParamsV2
    struct {
      Graph *Child;
      int Ownership; ///< 0 clone, 1 move
    } Child;
    cudaEvent_t Event; ///< cudaEventWaitNodeParams, cudaEventRecordNodeParams
    MemAllocNodeParams Alloc;
    struct {
      uint64_t Handle;
      int Type;
      unsigned Size;
      Graph **Bodies; ///< set to the node's body graphs
    } Conditional;
    void *FreePtr; ///< cudaMemFreeNodeParams
  };
  long long Reserved2;
};
static_assert(sizeof(NodeParams) == 256);

cudaError_t readKernel(const KernelNodeParams *P, GraphNode &N) {
  if (!P)
    return fail(cudaErrorInvalidValue);
  if (P->Extra)
    return fail(cudaErrorNotSupported, "kernel nodes with 'extra' arguments");
  N.Kind = NodeKind::Kernel;
  return captureKernelLaunch(findKernel(P->Func), P->Grid, P->Block, P->SharedBytes,
                             P->KernelParams, N.Kernel);
}

void writeKernel(const GraphNode &N, KernelNodeParams *P) {
  const KernelLaunch &L = N.Kernel;
  P->Func = const_cast<void *>(L.Kernel->HostFun);
  P->Grid = L.Grid;
  P->Block = L.Block;
  P->SharedBytes = L.SharedBytes;
  // Pointers into the node's own copy of the arguments, as CUDA returns them.
  thread_local std::vector<void *> Args;
  Args.clear();
  for (const auto &A : L.Args)
    Args.push_back(const_cast<unsigned char *>(A.data()));
  P->KernelParams = Args.data();
  P->Extra = nullptr;
}

cudaError_t readCopy(const cudaMemcpy3DParms *P, GraphNode &N) {
  if (!P)
    return fail(cudaErrorInvalidValue);
  N.Kind = NodeKind::Memcpy;
  return describeCopy3D(*P, N.Copy);
}

void writeCopy(const GraphNode &N, cudaMemcpy3DParms *P) {
  const Copy3D &C = N.Copy;
  *P = {};
  P->srcPtr = {const_cast<char *>(C.Src), C.SrcPitch, C.Width,
               C.SrcPitch ? C.SrcSlice / C.SrcPitch : 0};
  P->dstPtr = {C.Dst, C.DstPitch, C.Width, C.DstPitch ? C.DstSlice / C.DstPitch : 0};
  P->extent = {C.Width, C.Height, C.Depth};
  P->kind = C.Kind;
}

cudaError_t readToSymbol(const void *Symbol, const void *Src, size_t Bytes, size_t Offset,
                         cudaMemcpyKind Kind, GraphNode &N) {
  char *Dst = nullptr;
  if (cudaError_t E = symbolRange(Symbol, Bytes, Offset, Dst))
    return E;
  return readCopy1D(Dst, Src, Bytes, Kind, N);
}

cudaError_t readFromSymbol(void *Dst, const void *Symbol, size_t Bytes, size_t Offset,
                           cudaMemcpyKind Kind, GraphNode &N) {
  char *Src = nullptr;
  if (cudaError_t E = symbolRange(Symbol, Bytes, Offset, Src))
    return E;
  return readCopy1D(Dst, Src, Bytes, Kind, N);
}

cudaError_t readNodeParams(NodeParams *P, GraphNode &N) {
  if (!P)
    return fail(cudaErrorInvalidValue);
  switch (NodeKind(P->Type)) {
  case NodeKind::Kernel:
    return readKernel(&P->Kernel, N);
  case NodeKind::Memcpy:
    return readCopy(&P->Memcpy.Copy, N);
  case NodeKind::Memset:
    return readMemset(&P->Memset, N);
  case NodeKind::Host:
    return readHost(&P->Host, N);
  case NodeKind::ChildGraph:
    if (P->Child.Ownership == 1)
      return fail(cudaErrorNotSupported, "moving a graph into a child graph node");
    return readChild(P->Child.Child, N);
  case NodeKind::Empty:
    N.Kind = NodeKind::Empty;
    return cudaSuccess;
  case NodeKind::WaitEvent:
  case NodeKind::EventRecord:
    if (!P->Event)
      return fail(cudaErrorInvalidValue);
    N.Kind = NodeKind(P->Type);
    N.Event = P->Event;
    return cudaSuccess;
  case NodeKind::MemAlloc:
    return readAlloc(&P->Alloc, N);
  case NodeKind::Conditional:
    return readConditional(P->Conditional.Handle, P->Conditional.Type, P->Conditional.Size, N);
  case NodeKind::MemFree:
    N.Kind = NodeKind::MemFree;
    N.FreePtr = P->FreePtr;
    return cudaSuccess;
  default:
    return fail(cudaErrorNotSupported,
                formatv("graph nodes of type {0} are not supported", P->Type).str());
  }
}

} // namespace

extern "C" {

//===-- graphs -------------------------------------------------------------===//

cudaError_t cudaGraphCreate(Graph **Out, unsigned Flags) {
  return guarded([&] { return Flags ? fail(cudaErrorInvalidValue) : createGraph(Out); });
}

cudaError_t cudaGraphDestroy(Graph *G) {
  return guarded([&] { return destroyGraph(G); });
}

cudaError_t cudaGraphClone(Graph **Out, Graph *G) {
  return guarded([&] { return cloneGraphHandle(Out, G); });
}

cudaError_t cudaGraphNodeFindInClone(GraphNode **Out, GraphNode *Original, Graph *Clone) {
  return guarded([&] { return findInClone(Out, Original, Clone); });
}

cudaError_t cudaGraphDebugDotPrint(Graph *G, const char *Path, unsigned Flags) {
  return guarded([&] { return printDot(G, Path, Flags); });
}

cudaError_t cudaGraphGetNodes(Graph *G, GraphNode **Nodes, size_t *Count) {
  return guarded([&] { return listNodes(G, false, Nodes, Count); });
}

cudaError_t cudaGraphGetRootNodes(Graph *G, GraphNode **Nodes, size_t *Count) {
  return guarded([&] { return listNodes(G, true, Nodes, Count); });
}

cudaError_t cudaGraphGetEdges(Graph *G, GraphNode **From, GraphNode **To, void *EdgeData,
                              size_t *Count) {
  return guarded([&] { return listEdges(G, From, To, EdgeData, Count); });
}

cudaError_t cudaGraphNodeGetDependencies(GraphNode *N, GraphNode **Deps, void *EdgeData,
                                         size_t *Count) {
  return guarded([&] { return listNeighbours(N, false, Deps, EdgeData, Count); });
}

cudaError_t cudaGraphNodeGetDependentNodes(GraphNode *N, GraphNode **Deps, void *EdgeData,
                                           size_t *Count) {
  return guarded([&] { return listNeighbours(N, true, Deps, EdgeData, Count); });
}

cudaError_t cudaGraphAddDependencies(Graph *G, GraphNode *const *From, GraphNode *const *To,
                                     const void *EdgeData, size_t Count) {
  return guarded([&] { return changeDependencies(G, From, To, EdgeData, Count, false); });
}

cudaError_t cudaGraphRemoveDependencies(Graph *G, GraphNode *const *From, GraphNode *const *To,
                                        const void *EdgeData, size_t Count) {
  return guarded([&] { return changeDependencies(G, From, To, EdgeData, Count, true); });
}

cudaError_t cudaGraphDestroyNode(GraphNode *N) {
  return guarded([&] { return destroyNode(N); });
}

cudaError_t cudaGraphNodeGetType(GraphNode *N, int *Type) {
  return guarded([&] { return nodeType(N, Type); });
}

//===-- adding nodes -------------------------------------------------------===//

cudaError_t cudaGraphAddKernelNode(GraphNode **Out, Graph *G, GraphNode *const *Deps,
                                   size_t NumDeps, const KernelNodeParams *P) {
  return guarded(
      [&] { return add(Out, G, Deps, NumDeps, [&](GraphNode &N) { return readKernel(P, N); }); });
}

cudaError_t cudaGraphAddMemcpyNode(GraphNode **Out, Graph *G, GraphNode *const *Deps,
                                   size_t NumDeps, const cudaMemcpy3DParms *P) {
  return guarded(
      [&] { return add(Out, G, Deps, NumDeps, [&](GraphNode &N) { return readCopy(P, N); }); });
}

cudaError_t cudaGraphAddMemcpyNode1D(GraphNode **Out, Graph *G, GraphNode *const *Deps,
                                     size_t NumDeps, void *Dst, const void *Src, size_t Bytes,
                                     cudaMemcpyKind Kind) {
  return guarded([&] {
    return add(Out, G, Deps, NumDeps,
               [&](GraphNode &N) { return readCopy1D(Dst, Src, Bytes, Kind, N); });
  });
}

cudaError_t cudaGraphAddMemcpyNodeToSymbol(GraphNode **Out, Graph *G, GraphNode *const *Deps,
                                           size_t NumDeps, const void *Symbol, const void *Src,
                                           size_t Bytes, size_t Offset, cudaMemcpyKind Kind) {
  return guarded([&] {
    return add(Out, G, Deps, NumDeps,
               [&](GraphNode &N) { return readToSymbol(Symbol, Src, Bytes, Offset, Kind, N); });
  });
}

cudaError_t cudaGraphAddMemcpyNodeFromSymbol(GraphNode **Out, Graph *G, GraphNode *const *Deps,
                                             size_t NumDeps, void *Dst, const void *Symbol,
                                             size_t Bytes, size_t Offset, cudaMemcpyKind Kind) {
  return guarded([&] {
    return add(Out, G, Deps, NumDeps,
               [&](GraphNode &N) { return readFromSymbol(Dst, Symbol, Bytes, Offset, Kind, N); });
  });
}

cudaError_t cudaGraphAddMemsetNode(GraphNode **Out, Graph *G, GraphNode *const *Deps,
                                   size_t NumDeps, const MemsetNodeParams *P) {
  return guarded(
      [&] { return add(Out, G, Deps, NumDeps, [&](GraphNode &N) { return readMemset(P, N); }); });
}

cudaError_t cudaGraphAddHostNode(GraphNode **Out, Graph *G, GraphNode *const *Deps, size_t NumDeps,
                                 const HostNodeParams *P) {
  return guarded(
      [&] { return add(Out, G, Deps, NumDeps, [&](GraphNode &N) { return readHost(P, N); }); });
}

cudaError_t cudaGraphAddChildGraphNode(GraphNode **Out, Graph *G, GraphNode *const *Deps,
                                       size_t NumDeps, Graph *Child) {
  return guarded([&] {
    return add(Out, G, Deps, NumDeps, [&](GraphNode &N) { return readChild(Child, N); });
  });
}

cudaError_t cudaGraphAddEmptyNode(GraphNode **Out, Graph *G, GraphNode *const *Deps,
                                  size_t NumDeps) {
  return guarded([&] { return add(Out, G, Deps, NumDeps, readEmpty); });
}

static cudaError_t addEventNode(GraphNode **Out, Graph *G, GraphNode *const *Deps, size_t NumDeps,
                                cudaEvent_t Event, NodeKind Kind) {
  return guarded([&] {
    return add(Out, G, Deps, NumDeps, [&](GraphNode &N) { return readEvent(Event, Kind, N); });
  });
}

cudaError_t cudaGraphAddEventRecordNode(GraphNode **Out, Graph *G, GraphNode *const *Deps,
                                        size_t NumDeps, cudaEvent_t Event) {
  return addEventNode(Out, G, Deps, NumDeps, Event, NodeKind::EventRecord);
}

cudaError_t cudaGraphAddEventWaitNode(GraphNode **Out, Graph *G, GraphNode *const *Deps,
                                      size_t NumDeps, cudaEvent_t Event) {
  return addEventNode(Out, G, Deps, NumDeps, Event, NodeKind::WaitEvent);
}

cudaError_t cudaGraphAddMemAllocNode(GraphNode **Out, Graph *G, GraphNode *const *Deps,
                                     size_t NumDeps, MemAllocNodeParams *P) {
  return guarded(
      [&] { return add(Out, G, Deps, NumDeps, [&](GraphNode &N) { return readAlloc(P, N); }); });
}

cudaError_t cudaGraphAddMemFreeNode(GraphNode **Out, Graph *G, GraphNode *const *Deps,
                                    size_t NumDeps, void *Ptr) {
  return guarded([&] {
    return add(Out, G, Deps, NumDeps, [&](GraphNode &N) { return readMemFree(Ptr, N); });
  });
}

cudaError_t cudaGraphAddNode(GraphNode **Out, Graph *G, GraphNode *const *Deps,
                             const void *EdgeData, size_t NumDeps, NodeParams *P) {
  return guarded([&] {
    if (cudaError_t E = checkEdgeData(EdgeData, NumDeps))
      return E;
    return addFromParams(Out, G, Deps, NumDeps, P, readNodeParams);
  });
}

cudaError_t cudaGraphConditionalHandleCreate(uint64_t *Out, Graph *G, unsigned Default,
                                             unsigned Flags) {
  return guarded([&] { return createConditionalHandle(Out, G, Default, Flags); });
}

//===-- node parameters ----------------------------------------------------===//

cudaError_t cudaGraphKernelNodeGetParams(GraphNode *Node, KernelNodeParams *P) {
  return guarded([&] {
    if (cudaError_t E = nodeOfKind(Node, NodeKind::Kernel))
      return E;
    if (!P)
      return fail(cudaErrorInvalidValue);
    writeKernel(*Node, P);
    return cudaSuccess;
  });
}

cudaError_t cudaGraphKernelNodeSetParams(GraphNode *Node, const KernelNodeParams *P) {
  return guarded(
      [&] { return setKernelParams(Node, [&](GraphNode &N) { return readKernel(P, N); }); });
}

cudaError_t cudaGraphKernelNodeCopyAttributes(GraphNode *Dst, GraphNode *Src) {
  return guarded([&] { return copyKernelNodeAttributes(Dst, Src); });
}

cudaError_t cudaGraphKernelNodeGetAttribute(GraphNode *Node, int Id, void *Value) {
  return guarded([&] { return kernelNodeAttribute(Node, Id, Value, false); });
}

cudaError_t cudaGraphKernelNodeSetAttribute(GraphNode *Node, int Id, const void *Value) {
  return guarded([&] { return kernelNodeAttribute(Node, Id, const_cast<void *>(Value), true); });
}

cudaError_t cudaGraphMemcpyNodeGetParams(GraphNode *Node, cudaMemcpy3DParms *P) {
  return guarded([&] {
    if (cudaError_t E = nodeOfKind(Node, NodeKind::Memcpy))
      return E;
    if (!P)
      return fail(cudaErrorInvalidValue);
    writeCopy(*Node, P);
    return cudaSuccess;
  });
}

cudaError_t cudaGraphMemcpyNodeSetParams(GraphNode *Node, const cudaMemcpy3DParms *P) {
  return guarded([&] {
    return setParams(Node, NodeKind::Memcpy, [&](GraphNode &N) { return readCopy(P, N); });
  });
}

cudaError_t cudaGraphMemcpyNodeSetParams1D(GraphNode *Node, void *Dst, const void *Src,
                                           size_t Bytes, cudaMemcpyKind Kind) {
  return guarded([&] {
    return setParams(Node, NodeKind::Memcpy,
                     [&](GraphNode &N) { return readCopy1D(Dst, Src, Bytes, Kind, N); });
  });
}

cudaError_t cudaGraphMemcpyNodeSetParamsToSymbol(GraphNode *Node, const void *Symbol,
                                                 const void *Src, size_t Bytes, size_t Offset,
                                                 cudaMemcpyKind Kind) {
  return guarded([&] {
    return setParams(Node, NodeKind::Memcpy, [&](GraphNode &N) {
      return readToSymbol(Symbol, Src, Bytes, Offset, Kind, N);
    });
  });
}

cudaError_t cudaGraphMemcpyNodeSetParamsFromSymbol(GraphNode *Node, void *Dst, const void *Symbol,
                                                   size_t Bytes, size_t Offset,
                                                   cudaMemcpyKind Kind) {
  return guarded([&] {
    return setParams(Node, NodeKind::Memcpy, [&](GraphNode &N) {
      return readFromSymbol(Dst, Symbol, Bytes, Offset, Kind, N);
    });
  });
}

cudaError_t cudaGraphMemsetNodeGetParams(GraphNode *Node, MemsetNodeParams *P) {
  return guarded([&] {
    if (cudaError_t E = nodeOfKind(Node, NodeKind::Memset))
      return E;
    if (!P)
      return fail(cudaErrorInvalidValue);
    writeMemset(*Node, P);
    return cudaSuccess;
  });
}

cudaError_t cudaGraphMemsetNodeSetParams(GraphNode *Node, const MemsetNodeParams *P) {
  return guarded([&] {
    return setParams(Node, NodeKind::Memset, [&](GraphNode &N) { return readMemset(P, N); });
  });
}

cudaError_t cudaGraphHostNodeGetParams(GraphNode *Node, HostNodeParams *P) {
  return guarded([&] { return hostNodeParams(Node, P); });
}

cudaError_t cudaGraphHostNodeSetParams(GraphNode *Node, const HostNodeParams *P) {
  return guarded([&] {
    return setParams(Node, NodeKind::Host, [&](GraphNode &N) { return readHost(P, N); });
  });
}

cudaError_t cudaGraphChildGraphNodeGetGraph(GraphNode *Node, Graph **Out) {
  return guarded([&] { return childGraphOf(Node, Out); });
}

cudaError_t cudaGraphEventRecordNodeGetEvent(GraphNode *Node, cudaEvent_t *Out) {
  return guarded([&] { return nodeEvent(Node, NodeKind::EventRecord, Out); });
}

cudaError_t cudaGraphEventRecordNodeSetEvent(GraphNode *Node, cudaEvent_t Event) {
  return guarded([&] { return setNodeEvent(nullptr, Node, NodeKind::EventRecord, Event); });
}

cudaError_t cudaGraphEventWaitNodeGetEvent(GraphNode *Node, cudaEvent_t *Out) {
  return guarded([&] { return nodeEvent(Node, NodeKind::WaitEvent, Out); });
}

cudaError_t cudaGraphEventWaitNodeSetEvent(GraphNode *Node, cudaEvent_t Event) {
  return guarded([&] { return setNodeEvent(nullptr, Node, NodeKind::WaitEvent, Event); });
}

cudaError_t cudaGraphMemAllocNodeGetParams(GraphNode *Node, MemAllocNodeParams *P) {
  return guarded([&] { return memAllocNodeParams(Node, P); });
}

cudaError_t cudaGraphMemFreeNodeGetParams(GraphNode *Node, void *Out) {
  return guarded([&] { return memFreeNodeAddress(Node, static_cast<void **>(Out)); });
}

cudaError_t cudaGraphNodeSetParams(GraphNode *Node, NodeParams *P) {
  return guarded([&] {
    if (!Node || !P)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = memoryNodeParamsFixed(P->Type))
      return E;
    return setParams(Node, NodeKind(P->Type), [&](GraphNode &N) { return readNodeParams(P, N); });
  });
}

//===-- instantiated graphs ------------------------------------------------===//

cudaError_t cudaGraphInstantiate(GraphExec **Out, Graph *G, unsigned long long Flags) {
  return guarded([&] { return instantiate(Out, G, Flags); });
}

cudaError_t cudaGraphInstantiateWithFlags(GraphExec **Out, Graph *G, unsigned long long Flags) {
  return guarded([&] { return instantiate(Out, G, Flags); });
}

cudaError_t cudaGraphInstantiateWithParams(GraphExec **Out, Graph *G, InstantiateParams *P) {
  return guarded([&] { return instantiateWithParams(Out, G, P); });
}

cudaError_t cudaGraphExecGetFlags(GraphExec *X, unsigned long long *Flags) {
  return guarded([&] {
    if (!X || !Flags)
      return fail(cudaErrorInvalidValue);
    *Flags = X->Flags;
    return cudaSuccess;
  });
}

cudaError_t cudaGraphExecKernelNodeSetParams(GraphExec *X, GraphNode *Node,
                                             const KernelNodeParams *P) {
  return guarded([&] {
    GraphNode *Target = nullptr;
    if (cudaError_t E = execNode(X, Node, Target))
      return E;
    return setKernelParams(Target, [&](GraphNode &N) { return readKernel(P, N); });
  });
}

cudaError_t cudaGraphExecMemcpyNodeSetParams(GraphExec *X, GraphNode *Node,
                                             const cudaMemcpy3DParms *P) {
  return guarded([&] {
    return setExecParams(X, Node, NodeKind::Memcpy, [&](GraphNode &N) { return readCopy(P, N); });
  });
}

cudaError_t cudaGraphExecMemcpyNodeSetParams1D(GraphExec *X, GraphNode *Node, void *Dst,
                                               const void *Src, size_t Bytes, cudaMemcpyKind Kind) {
  return guarded([&] {
    return setExecParams(X, Node, NodeKind::Memcpy,
                         [&](GraphNode &N) { return readCopy1D(Dst, Src, Bytes, Kind, N); });
  });
}

cudaError_t cudaGraphExecMemcpyNodeSetParamsToSymbol(GraphExec *X, GraphNode *Node,
                                                     const void *Symbol, const void *Src,
                                                     size_t Bytes, size_t Offset,
                                                     cudaMemcpyKind Kind) {
  return guarded([&] {
    return setExecParams(X, Node, NodeKind::Memcpy, [&](GraphNode &N) {
      return readToSymbol(Symbol, Src, Bytes, Offset, Kind, N);
    });
  });
}

cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(GraphExec *X, GraphNode *Node, void *Dst,
                                                       const void *Symbol, size_t Bytes,
                                                       size_t Offset, cudaMemcpyKind Kind) {
  return guarded([&] {
    return setExecParams(X, Node, NodeKind::Memcpy, [&](GraphNode &N) {
      return readFromSymbol(Dst, Symbol, Bytes, Offset, Kind, N);
    });
  });
}

cudaError_t cudaGraphExecMemsetNodeSetParams(GraphExec *X, GraphNode *Node,
                                             const MemsetNodeParams *P) {
  return guarded([&] {
    return setExecParams(X, Node, NodeKind::Memset, [&](GraphNode &N) { return readMemset(P, N); });
  });
}

cudaError_t cudaGraphExecHostNodeSetParams(GraphExec *X, GraphNode *Node, const HostNodeParams *P) {
  return guarded([&] {
    return setExecParams(X, Node, NodeKind::Host, [&](GraphNode &N) { return readHost(P, N); });
  });
}

cudaError_t cudaGraphExecChildGraphNodeSetParams(GraphExec *X, GraphNode *Node, Graph *Child) {
  return guarded([&] {
    return setExecParams(X, Node, NodeKind::ChildGraph,
                         [&](GraphNode &N) { return readChild(Child, N); });
  });
}

cudaError_t cudaGraphExecEventRecordNodeSetEvent(GraphExec *X, GraphNode *Node, cudaEvent_t Event) {
  return guarded([&] { return setNodeEvent(X, Node, NodeKind::EventRecord, Event); });
}

cudaError_t cudaGraphExecEventWaitNodeSetEvent(GraphExec *X, GraphNode *Node, cudaEvent_t Event) {
  return guarded([&] { return setNodeEvent(X, Node, NodeKind::WaitEvent, Event); });
}

cudaError_t cudaGraphExecNodeSetParams(GraphExec *X, GraphNode *Node, NodeParams *P) {
  return guarded([&] {
    if (!P)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = memoryNodeParamsFixed(P->Type))
      return E;
    return setExecParams(X, Node, NodeKind(P->Type),
                         [&](GraphNode &N) { return readNodeParams(P, N); });
  });
}

cudaError_t cudaGraphNodeSetEnabled(GraphExec *X, GraphNode *Node, unsigned Enabled) {
  return guarded([&] { return setNodeEnabled(X, Node, Enabled); });
}

cudaError_t cudaGraphNodeGetEnabled(GraphExec *X, GraphNode *Node, unsigned *Enabled) {
  return guarded([&] { return nodeEnabled(X, Node, Enabled); });
}

cudaError_t cudaGraphExecUpdate(GraphExec *X, Graph *G, ExecUpdateResultInfo *Info) {
  return guarded([&] { return updateExecInfo(X, G, Info); });
}

cudaError_t cudaGraphUpload(GraphExec *X, cudaStream_t S) {
  return guarded([&] { return uploadGraph(X, S); });
}

cudaError_t cudaGraphLaunch(GraphExec *X, cudaStream_t S) {
  return guarded([&] { return launchGraph(X, S); });
}

cudaError_t cudaGraphExecDestroy(GraphExec *X) {
  return guarded([&] { return destroyExec(X); });
}

//===-- graph memory and user objects --------------------------------------===//

cudaError_t cudaDeviceGraphMemTrim(int Device) {
  // Graph memory goes back to the device when its graphs go: there is nothing kept to trim.
  return guarded([&] { return checkDevice(Device); });
}

cudaError_t cudaDeviceGetGraphMemAttribute(int Device, int Attribute, void *Value) {
  return guarded([&] {
    if (cudaError_t E = checkDevice(Device))
      return E;
    return graphMemAttribute(Attribute, static_cast<uint64_t *>(Value), false);
  });
}

cudaError_t cudaDeviceSetGraphMemAttribute(int Device, int Attribute, void *Value) {
  return guarded([&] {
    if (cudaError_t E = checkDevice(Device))
      return E;
    return graphMemAttribute(Attribute, static_cast<uint64_t *>(Value), true);
  });
}

cudaError_t cudaUserObjectCreate(UserObject **Out, void *Ptr, cudaHostFn_t Destroy,
                                 unsigned InitialCount, unsigned Flags) {
  return guarded([&] { return createUserObject(Out, Ptr, Destroy, InitialCount, Flags); });
}

cudaError_t cudaUserObjectRetain(UserObject *O, unsigned Count) {
  return guarded([&] { return retainUserObject(O, Count); });
}

cudaError_t cudaUserObjectRelease(UserObject *O, unsigned Count) {
  return guarded([&] { return releaseUserObject(O, Count); });
}

cudaError_t cudaGraphRetainUserObject(Graph *G, UserObject *O, unsigned Count, unsigned Flags) {
  return guarded([&] { return graphRetainUserObject(G, O, Count, Flags); });
}

cudaError_t cudaGraphReleaseUserObject(Graph *G, UserObject *O, unsigned Count) {
  return guarded([&] { return graphReleaseUserObject(G, O, Count); });
}

//===-- stream capture -----------------------------------------------------===//

cudaError_t cudaStreamBeginCapture(cudaStream_t S, int Mode) {
  return guarded([&] { return beginCapture(S, Mode, nullptr, nullptr, 0); });
}

cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t S, Graph *G, GraphNode *const *Deps,
                                          const void *EdgeData, size_t NumDeps, int Mode) {
  return guarded([&] {
    if (!G)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = checkEdgeData(EdgeData, NumDeps))
      return E;
    return beginCapture(S, Mode, G, Deps, NumDeps);
  });
}

cudaError_t cudaStreamEndCapture(cudaStream_t S, Graph **Out) {
  return guarded([&] { return endCapture(S, Out); });
}

cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t S, GraphNode *const *Deps,
                                                const void *EdgeData, size_t NumDeps,
                                                unsigned Flags) {
  return guarded([&] {
    if (cudaError_t E = checkEdgeData(EdgeData, NumDeps))
      return E;
    return updateCaptureDependencies(S, Deps, NumDeps, Flags);
  });
}

} // extern "C"
