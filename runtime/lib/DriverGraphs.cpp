//===- DriverGraphs.cpp - the driver API's graphs, graph nodes and stream capture ===//
//
// The driver API's parameter structures over the nodes of Graphs.h, which the runtime API's
// share. CUDA's static runtime implements its cudaGraph* calls with these. The older ABI variants
// (CUDA_KERNEL_NODE_PARAMS_v1, edges without edge data, cuGraphInstantiate with a log buffer,
// cuGraphExecUpdate with an error node) are the same operations.

#include "DriverGraphs.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>

using namespace llvm;
using namespace ptx2amd;
using namespace ptx2amd::runtime;

namespace {

cudaError_t readKernel(const CuKernelNodeParamsV1 *P, KernelRecord *Fallback, GraphNode &N) {
  if (!P)
    return fail(cudaErrorInvalidValue);
  if (P->Extra)
    return fail(cudaErrorNotSupported, "kernel nodes with 'extra' arguments");
  KernelRecord *K = nullptr;
  if (cudaError_t E = functionOf(reinterpret_cast<CUfunction>(P->Func ? P->Func : Fallback), K))
    return E;
  N.Kind = NodeKind::Kernel;
  return captureKernelLaunch(K, dim3{P->GridX, P->GridY, P->GridZ},
                             dim3{P->BlockX, P->BlockY, P->BlockZ}, P->SharedBytes, P->KernelParams,
                             N.Kernel);
}

cudaError_t readKernel(const CuKernelNodeParams *P, GraphNode &N) {
  if (!P)
    return fail(cudaErrorInvalidValue);
  return readKernel(&P->V1, P->Kernel, N);
}

void writeKernel(const GraphNode &N, CuKernelNodeParamsV1 *P) {
  const KernelLaunch &L = N.Kernel;
  P->Func = L.Kernel;
  P->GridX = L.Grid.x, P->GridY = L.Grid.y, P->GridZ = L.Grid.z;
  P->BlockX = L.Block.x, P->BlockY = L.Block.y, P->BlockZ = L.Block.z;
  P->SharedBytes = L.SharedBytes;
  thread_local std::vector<void *> Args;
  Args.clear();
  for (const auto &A : L.Args)
    Args.push_back(const_cast<unsigned char *>(A.data()));
  P->KernelParams = Args.data();
  P->Extra = nullptr;
}

cudaError_t readCopy(const CUDA_MEMCPY3D *P, GraphNode &N) {
  if (!P)
    return fail(cudaErrorInvalidValue);
  N.Kind = NodeKind::Memcpy;
  return describeCopy3D(*P, N.Copy);
}

void writeCopy(const GraphNode &N, CUDA_MEMCPY3D *P) {
  const Copy3D &C = N.Copy;
  *P = {};
  // Both sides as unified memory, which any address is here.
  P->srcMemoryType = P->dstMemoryType = CU_MEMORYTYPE_UNIFIED;
  P->srcDevice = CUdeviceptr(uintptr_t(C.Src));
  P->dstDevice = CUdeviceptr(uintptr_t(C.Dst));
  P->srcPitch = C.SrcPitch, P->dstPitch = C.DstPitch;
  P->srcHeight = C.SrcPitch ? C.SrcSlice / C.SrcPitch : 0;
  P->dstHeight = C.DstPitch ? C.DstSlice / C.DstPitch : 0;
  P->WidthInBytes = C.Width, P->Height = C.Height, P->Depth = C.Depth;
}

cudaError_t readNodeParams(CuNodeParams *P, GraphNode &N) {
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
    N.FreePtr = reinterpret_cast<void *>(uintptr_t(P->FreePtr));
    return cudaSuccess;
  default:
    return fail(cudaErrorNotSupported,
                formatv("graph nodes of type {0} are not supported", P->Type).str());
  }
}

} // namespace

extern "C" {

//===-- graphs -------------------------------------------------------------===//

CUresult cuGraphCreate(Graph **Out, unsigned Flags) {
  return inContext([&] { return Flags ? fail(cudaErrorInvalidValue) : createGraph(Out); });
}

CUresult cuGraphDestroy(Graph *G) {
  return inContext([&] { return destroyGraph(G); });
}

CUresult cuGraphClone(Graph **Out, Graph *G) {
  return inContext([&] { return cloneGraphHandle(Out, G); });
}

CUresult cuGraphNodeFindInClone(GraphNode **Out, GraphNode *Original, Graph *Clone) {
  return inContext([&] { return findInClone(Out, Original, Clone); });
}

CUresult cuGraphDebugDotPrint(Graph *G, const char *Path, unsigned Flags) {
  return inContext([&] { return printDot(G, Path, Flags); });
}

CUresult cuGraphGetNodes(Graph *G, GraphNode **Nodes, size_t *Count) {
  return inContext([&] { return listNodes(G, false, Nodes, Count); });
}

CUresult cuGraphGetRootNodes(Graph *G, GraphNode **Nodes, size_t *Count) {
  return inContext([&] { return listNodes(G, true, Nodes, Count); });
}

CUresult cuGraphGetEdges(Graph *G, GraphNode **From, GraphNode **To, size_t *Count) {
  return inContext([&] { return listEdges(G, From, To, nullptr, Count); });
}

CUresult cuGraphGetEdges_v2(Graph *G, GraphNode **From, GraphNode **To, void *EdgeData,
                            size_t *Count) {
  return inContext([&] { return listEdges(G, From, To, EdgeData, Count); });
}

CUresult cuGraphNodeGetDependencies(GraphNode *N, GraphNode **Deps, size_t *Count) {
  return inContext([&] { return listNeighbours(N, false, Deps, nullptr, Count); });
}

CUresult cuGraphNodeGetDependencies_v2(GraphNode *N, GraphNode **Deps, void *EdgeData,
                                       size_t *Count) {
  return inContext([&] { return listNeighbours(N, false, Deps, EdgeData, Count); });
}

CUresult cuGraphNodeGetDependentNodes(GraphNode *N, GraphNode **Deps, size_t *Count) {
  return inContext([&] { return listNeighbours(N, true, Deps, nullptr, Count); });
}

CUresult cuGraphNodeGetDependentNodes_v2(GraphNode *N, GraphNode **Deps, void *EdgeData,
                                         size_t *Count) {
  return inContext([&] { return listNeighbours(N, true, Deps, EdgeData, Count); });
}

CUresult cuGraphAddDependencies(Graph *G, GraphNode *const *From, GraphNode *const *To,
                                size_t Count) {
  return inContext([&] { return changeDependencies(G, From, To, nullptr, Count, false); });
}

CUresult cuGraphAddDependencies_v2(Graph *G, GraphNode *const *From, GraphNode *const *To,
                                   const void *EdgeData, size_t Count) {
  return inContext([&] { return changeDependencies(G, From, To, EdgeData, Count, false); });
}

CUresult cuGraphRemoveDependencies(Graph *G, GraphNode *const *From, GraphNode *const *To,
                                   size_t Count) {
  return inContext([&] { return changeDependencies(G, From, To, nullptr, Count, true); });
}

CUresult cuGraphRemoveDependencies_v2(Graph *G, GraphNode *const *From, GraphNode *const *To,
                                      const void *EdgeData, size_t Count) {
  return inContext([&] { return changeDependencies(G, From, To, EdgeData, Count, true); });
}

CUresult cuGraphDestroyNode(GraphNode *N) {
  return inContext([&] { return destroyNode(N); });
}

CUresult cuGraphNodeGetType(GraphNode *N, int *Type) {
  return inContext([&] { return nodeType(N, Type); });
}

//===-- adding nodes -------------------------------------------------------===//

CUresult cuGraphAddKernelNode(GraphNode **Out, Graph *G, GraphNode *const *Deps, size_t NumDeps,
                              const CuKernelNodeParamsV1 *P) {
  return inContext([&] {
    return add(Out, G, Deps, NumDeps, [&](GraphNode &N) { return readKernel(P, nullptr, N); });
  });
}

CUresult cuGraphAddKernelNode_v2(GraphNode **Out, Graph *G, GraphNode *const *Deps, size_t NumDeps,
                                 const CuKernelNodeParams *P) {
  return inContext(
      [&] { return add(Out, G, Deps, NumDeps, [&](GraphNode &N) { return readKernel(P, N); }); });
}

CUresult cuGraphAddMemcpyNode(GraphNode **Out, Graph *G, GraphNode *const *Deps, size_t NumDeps,
                              const CUDA_MEMCPY3D *P, CUcontext) {
  return inContext(
      [&] { return add(Out, G, Deps, NumDeps, [&](GraphNode &N) { return readCopy(P, N); }); });
}

CUresult cuGraphAddMemsetNode(GraphNode **Out, Graph *G, GraphNode *const *Deps, size_t NumDeps,
                              const MemsetNodeParams *P, CUcontext) {
  return inContext(
      [&] { return add(Out, G, Deps, NumDeps, [&](GraphNode &N) { return readMemset(P, N); }); });
}

CUresult cuGraphAddHostNode(GraphNode **Out, Graph *G, GraphNode *const *Deps, size_t NumDeps,
                            const HostNodeParams *P) {
  return inContext(
      [&] { return add(Out, G, Deps, NumDeps, [&](GraphNode &N) { return readHost(P, N); }); });
}

CUresult cuGraphAddChildGraphNode(GraphNode **Out, Graph *G, GraphNode *const *Deps, size_t NumDeps,
                                  Graph *Child) {
  return inContext([&] {
    return add(Out, G, Deps, NumDeps, [&](GraphNode &N) { return readChild(Child, N); });
  });
}

CUresult cuGraphAddEmptyNode(GraphNode **Out, Graph *G, GraphNode *const *Deps, size_t NumDeps) {
  return inContext([&] { return add(Out, G, Deps, NumDeps, readEmpty); });
}

CUresult cuGraphAddEventRecordNode(GraphNode **Out, Graph *G, GraphNode *const *Deps,
                                   size_t NumDeps, cudaEvent_t Event) {
  return inContext([&] {
    return add(Out, G, Deps, NumDeps,
               [&](GraphNode &N) { return readEvent(Event, NodeKind::EventRecord, N); });
  });
}

CUresult cuGraphAddEventWaitNode(GraphNode **Out, Graph *G, GraphNode *const *Deps, size_t NumDeps,
                                 cudaEvent_t Event) {
  return inContext([&] {
    return add(Out, G, Deps, NumDeps,
               [&](GraphNode &N) { return readEvent(Event, NodeKind::WaitEvent, N); });
  });
}

CUresult cuGraphAddMemAllocNode(GraphNode **Out, Graph *G, GraphNode *const *Deps, size_t NumDeps,
                                MemAllocNodeParams *P) {
  return inContext(
      [&] { return add(Out, G, Deps, NumDeps, [&](GraphNode &N) { return readAlloc(P, N); }); });
}

CUresult cuGraphAddMemFreeNode(GraphNode **Out, Graph *G, GraphNode *const *Deps, size_t NumDeps,
                               CUdeviceptr Ptr) {
  return inContext([&] {
    return add(Out, G, Deps, NumDeps, [&](GraphNode &N) { return readMemFree(pointer(Ptr), N); });
  });
}

CUresult cuGraphAddNode(GraphNode **Out, Graph *G, GraphNode *const *Deps, size_t NumDeps,
                        CuNodeParams *P) {
  return inContext([&] { return addFromParams(Out, G, Deps, NumDeps, P, readNodeParams); });
}

CUresult cuGraphAddNode_v2(GraphNode **Out, Graph *G, GraphNode *const *Deps, const void *EdgeData,
                           size_t NumDeps, CuNodeParams *P) {
  return inContext([&] {
    if (cudaError_t E = checkEdgeData(EdgeData, NumDeps))
      return E;
    return addFromParams(Out, G, Deps, NumDeps, P, readNodeParams);
  });
}

//===-- node parameters ----------------------------------------------------===//

CUresult cuGraphKernelNodeGetParams(GraphNode *Node, CuKernelNodeParamsV1 *P) {
  return inContext([&] {
    if (cudaError_t E = nodeOfKind(Node, NodeKind::Kernel))
      return E;
    if (!P)
      return fail(cudaErrorInvalidValue);
    writeKernel(*Node, P);
    return cudaSuccess;
  });
}

CUresult cuGraphKernelNodeGetParams_v2(GraphNode *Node, CuKernelNodeParams *P) {
  return inContext([&] {
    if (cudaError_t E = nodeOfKind(Node, NodeKind::Kernel))
      return E;
    if (!P)
      return fail(cudaErrorInvalidValue);
    writeKernel(*Node, &P->V1);
    P->Kernel = Node->Kernel.Kernel;
    P->Ctx = nullptr;
    return cudaSuccess;
  });
}

CUresult cuGraphKernelNodeSetParams(GraphNode *Node, const CuKernelNodeParamsV1 *P) {
  return inContext([&] {
    return setKernelParams(Node, [&](GraphNode &N) { return readKernel(P, nullptr, N); });
  });
}

CUresult cuGraphKernelNodeSetParams_v2(GraphNode *Node, const CuKernelNodeParams *P) {
  return inContext([&] {
    if (!P)
      return fail(cudaErrorInvalidValue);
    return setKernelParams(Node, [&](GraphNode &N) { return readKernel(&P->V1, P->Kernel, N); });
  });
}

CUresult cuGraphKernelNodeCopyAttributes(GraphNode *Dst, GraphNode *Src) {
  return inContext([&] { return copyKernelNodeAttributes(Dst, Src); });
}

CUresult cuGraphKernelNodeGetAttribute(GraphNode *Node, int Id, void *Value) {
  return inContext([&] { return kernelNodeAttribute(Node, Id, Value, false); });
}

CUresult cuGraphKernelNodeSetAttribute(GraphNode *Node, int Id, const void *Value) {
  return inContext([&] { return kernelNodeAttribute(Node, Id, const_cast<void *>(Value), true); });
}

CUresult cuGraphMemcpyNodeGetParams(GraphNode *Node, CUDA_MEMCPY3D *P) {
  return inContext([&] {
    if (cudaError_t E = nodeOfKind(Node, NodeKind::Memcpy))
      return E;
    if (!P)
      return fail(cudaErrorInvalidValue);
    writeCopy(*Node, P);
    return cudaSuccess;
  });
}

CUresult cuGraphMemcpyNodeSetParams(GraphNode *Node, const CUDA_MEMCPY3D *P) {
  return inContext([&] {
    return setParams(Node, NodeKind::Memcpy, [&](GraphNode &N) { return readCopy(P, N); });
  });
}

CUresult cuGraphMemsetNodeGetParams(GraphNode *Node, MemsetNodeParams *P) {
  return inContext([&] {
    if (cudaError_t E = nodeOfKind(Node, NodeKind::Memset))
      return E;
    if (!P)
      return fail(cudaErrorInvalidValue);
    writeMemset(*Node, P);
    return cudaSuccess;
  });
}

CUresult cuGraphMemsetNodeSetParams(GraphNode *Node, const MemsetNodeParams *P) {
  return inContext([&] {
    return setParams(Node, NodeKind::Memset, [&](GraphNode &N) { return readMemset(P, N); });
  });
}

CUresult cuGraphHostNodeGetParams(GraphNode *Node, HostNodeParams *P) {
  return inContext([&] { return hostNodeParams(Node, P); });
}

CUresult cuGraphHostNodeSetParams(GraphNode *Node, const HostNodeParams *P) {
  return inContext([&] {
    return setParams(Node, NodeKind::Host, [&](GraphNode &N) { return readHost(P, N); });
  });
}

CUresult cuGraphChildGraphNodeGetGraph(GraphNode *Node, Graph **Out) {
  return inContext([&] { return childGraphOf(Node, Out); });
}

CUresult cuGraphEventRecordNodeGetEvent(GraphNode *Node, cudaEvent_t *Out) {
  return inContext([&] { return nodeEvent(Node, NodeKind::EventRecord, Out); });
}

CUresult cuGraphEventRecordNodeSetEvent(GraphNode *Node, cudaEvent_t Event) {
  return inContext([&] { return setNodeEvent(nullptr, Node, NodeKind::EventRecord, Event); });
}

CUresult cuGraphEventWaitNodeGetEvent(GraphNode *Node, cudaEvent_t *Out) {
  return inContext([&] { return nodeEvent(Node, NodeKind::WaitEvent, Out); });
}

CUresult cuGraphEventWaitNodeSetEvent(GraphNode *Node, cudaEvent_t Event) {
  return inContext([&] { return setNodeEvent(nullptr, Node, NodeKind::WaitEvent, Event); });
}

CUresult cuGraphMemAllocNodeGetParams(GraphNode *Node, MemAllocNodeParams *P) {
  return inContext([&] { return memAllocNodeParams(Node, P); });
}

CUresult cuGraphMemFreeNodeGetParams(GraphNode *Node, CUdeviceptr *Out) {
  return inContext([&] { return memFreeNodeAddress(Node, reinterpret_cast<void **>(Out)); });
}

CUresult cuGraphNodeSetParams(GraphNode *Node, CuNodeParams *P) {
  return inContext([&] {
    if (!Node || !P)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = memoryNodeParamsFixed(P->Type))
      return E;
    return setParams(Node, NodeKind(P->Type), [&](GraphNode &N) { return readNodeParams(P, N); });
  });
}

//===-- instantiated graphs ------------------------------------------------===//

CUresult cuGraphInstantiate(GraphExec **Out, Graph *G, GraphNode **ErrorNode, char *Log,
                            size_t LogSize) {
  return inContext([&] {
    if (ErrorNode)
      *ErrorNode = nullptr;
    cudaError_t E = instantiate(Out, G, 0);
    if (Log && LogSize)
      std::snprintf(Log, LogSize, "%s", E ? detailOf(E).c_str() : "");
    return E;
  });
}

CUresult cuGraphInstantiate_v2(GraphExec **Out, Graph *G, GraphNode **ErrorNode, char *Log,
                               size_t LogSize) {
  return cuGraphInstantiate(Out, G, ErrorNode, Log, LogSize);
}

CUresult cuGraphInstantiateWithFlags(GraphExec **Out, Graph *G, unsigned long long Flags) {
  return inContext([&] { return instantiate(Out, G, Flags); });
}

CUresult cuGraphInstantiateWithParams(GraphExec **Out, Graph *G, InstantiateParams *P) {
  return inContext([&] { return instantiateWithParams(Out, G, P); });
}

CUresult cuGraphExecGetFlags(GraphExec *X, unsigned long long *Flags) {
  return inContext([&] {
    if (!X || !Flags)
      return fail(cudaErrorInvalidValue);
    *Flags = X->Flags;
    return cudaSuccess;
  });
}

CUresult cuGraphExecKernelNodeSetParams(GraphExec *X, GraphNode *Node,
                                        const CuKernelNodeParamsV1 *P) {
  return inContext([&] {
    GraphNode *Target = nullptr;
    if (cudaError_t E = execNode(X, Node, Target))
      return E;
    return setKernelParams(Target, [&](GraphNode &N) { return readKernel(P, nullptr, N); });
  });
}

CUresult cuGraphExecKernelNodeSetParams_v2(GraphExec *X, GraphNode *Node,
                                           const CuKernelNodeParams *P) {
  return inContext([&] {
    GraphNode *Target = nullptr;
    if (!P)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = execNode(X, Node, Target))
      return E;
    return setKernelParams(Target, [&](GraphNode &N) { return readKernel(&P->V1, P->Kernel, N); });
  });
}

CUresult cuGraphExecMemcpyNodeSetParams(GraphExec *X, GraphNode *Node, const CUDA_MEMCPY3D *P,
                                        CUcontext) {
  return inContext([&] {
    return setExecParams(X, Node, NodeKind::Memcpy, [&](GraphNode &N) { return readCopy(P, N); });
  });
}

CUresult cuGraphExecMemsetNodeSetParams(GraphExec *X, GraphNode *Node, const MemsetNodeParams *P,
                                        CUcontext) {
  return inContext([&] {
    return setExecParams(X, Node, NodeKind::Memset, [&](GraphNode &N) { return readMemset(P, N); });
  });
}

CUresult cuGraphExecHostNodeSetParams(GraphExec *X, GraphNode *Node, const HostNodeParams *P) {
  return inContext([&] {
    return setExecParams(X, Node, NodeKind::Host, [&](GraphNode &N) { return readHost(P, N); });
  });
}

CUresult cuGraphExecChildGraphNodeSetParams(GraphExec *X, GraphNode *Node, Graph *Child) {
  return inContext([&] {
    return setExecParams(X, Node, NodeKind::ChildGraph,
                         [&](GraphNode &N) { return readChild(Child, N); });
  });
}

CUresult cuGraphExecEventRecordNodeSetEvent(GraphExec *X, GraphNode *Node, cudaEvent_t Event) {
  return inContext([&] { return setNodeEvent(X, Node, NodeKind::EventRecord, Event); });
}

CUresult cuGraphExecEventWaitNodeSetEvent(GraphExec *X, GraphNode *Node, cudaEvent_t Event) {
  return inContext([&] { return setNodeEvent(X, Node, NodeKind::WaitEvent, Event); });
}

CUresult cuGraphExecNodeSetParams(GraphExec *X, GraphNode *Node, CuNodeParams *P) {
  return inContext([&] {
    if (!P)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = memoryNodeParamsFixed(P->Type))
      return E;
    return setExecParams(X, Node, NodeKind(P->Type),
                         [&](GraphNode &N) { return readNodeParams(P, N); });
  });
}

CUresult cuGraphNodeSetEnabled(GraphExec *X, GraphNode *Node, unsigned Enabled) {
  return inContext([&] { return setNodeEnabled(X, Node, Enabled); });
}

CUresult cuGraphNodeGetEnabled(GraphExec *X, GraphNode *Node, unsigned *Enabled) {
  return inContext([&] { return nodeEnabled(X, Node, Enabled); });
}

CUresult cuGraphExecUpdate(GraphExec *X, Graph *G, GraphNode **ErrorNode, int *Result) {
  return inContext([&] {
    if (!ErrorNode || !Result)
      return fail(cudaErrorInvalidValue);
    ExecUpdateResultInfo Info{};
    cudaError_t E = updateExecInfo(X, G, &Info);
    *ErrorNode = Info.ErrorNode;
    *Result = Info.Result;
    return E;
  });
}

CUresult cuGraphExecUpdate_v2(GraphExec *X, Graph *G, ExecUpdateResultInfo *Info) {
  return inContext([&] { return updateExecInfo(X, G, Info); });
}

CUresult cuGraphUpload(GraphExec *X, CUstream S) {
  return inContext([&] { return uploadGraph(X, S); });
}

CUresult cuGraphLaunch(GraphExec *X, CUstream S) {
  return inContext([&] { return launchGraph(X, S); });
}

CUresult cuGraphExecDestroy(GraphExec *X) {
  return inContext([&] { return destroyExec(X); });
}

//===-- graph memory and user objects --------------------------------------===//

CUresult cuDeviceGraphMemTrim(CUdevice Device) {
  // Graph memory goes back to the device when its graphs go: there is nothing kept to trim.
  return driverCall([&] { return checkDevice(Device); });
}

CUresult cuDeviceGetGraphMemAttribute(CUdevice Device, int Attribute, void *Value) {
  return driverCall([&] {
    if (cudaError_t E = checkDevice(Device))
      return E;
    return graphMemAttribute(Attribute, static_cast<uint64_t *>(Value), false);
  });
}

CUresult cuDeviceSetGraphMemAttribute(CUdevice Device, int Attribute, void *Value) {
  return driverCall([&] {
    if (cudaError_t E = checkDevice(Device))
      return E;
    return graphMemAttribute(Attribute, static_cast<uint64_t *>(Value), true);
  });
}

CUresult cuUserObjectCreate(UserObject **Out, void *Ptr, void (*Destroy)(void *),
                            unsigned InitialCount, unsigned Flags) {
  return driverCall([&] { return createUserObject(Out, Ptr, Destroy, InitialCount, Flags); });
}

CUresult cuUserObjectRetain(UserObject *O, unsigned Count) {
  return driverCall([&] { return retainUserObject(O, Count); });
}

CUresult cuUserObjectRelease(UserObject *O, unsigned Count) {
  return driverCall([&] { return releaseUserObject(O, Count); });
}

CUresult cuGraphRetainUserObject(Graph *G, UserObject *O, unsigned Count, unsigned Flags) {
  return driverCall([&] { return graphRetainUserObject(G, O, Count, Flags); });
}

CUresult cuGraphReleaseUserObject(Graph *G, UserObject *O, unsigned Count) {
  return driverCall([&] { return graphReleaseUserObject(G, O, Count); });
}

CUresult cuGraphConditionalHandleCreate(uint64_t *Out, Graph *G, CUcontext, unsigned Default,
                                        unsigned Flags) {
  return inContext([&] { return createConditionalHandle(Out, G, Default, Flags); });
}

//===-- stream capture -----------------------------------------------------===//

CUresult cuStreamBeginCapture(CUstream S) {
  // CUDA 10.0's form, before capture modes: a global capture.
  return inContext([&] { return beginCapture(S, 0, nullptr, nullptr, 0); });
}

CUresult cuStreamBeginCapture_v2(CUstream S, int Mode) {
  return inContext([&] { return beginCapture(S, Mode, nullptr, nullptr, 0); });
}

CUresult cuStreamBeginCaptureToGraph(CUstream S, Graph *G, GraphNode *const *Deps,
                                     const void *EdgeData, size_t NumDeps, int Mode) {
  return inContext([&] {
    if (!G)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = checkEdgeData(EdgeData, NumDeps))
      return E;
    return beginCapture(S, Mode, G, Deps, NumDeps);
  });
}

CUresult cuStreamEndCapture(CUstream S, Graph **Out) {
  return inContext([&] { return endCapture(S, Out); });
}

CUresult cuStreamUpdateCaptureDependencies(CUstream S, GraphNode *const *Deps, size_t NumDeps,
                                           unsigned Flags) {
  return inContext([&] { return updateCaptureDependencies(S, Deps, NumDeps, Flags); });
}

CUresult cuStreamUpdateCaptureDependencies_v2(CUstream S, GraphNode *const *Deps,
                                              const void *EdgeData, size_t NumDeps,
                                              unsigned Flags) {
  return inContext([&] {
    if (cudaError_t E = checkEdgeData(EdgeData, NumDeps))
      return E;
    return updateCaptureDependencies(S, Deps, NumDeps, Flags);
  });
}

} // extern "C"
