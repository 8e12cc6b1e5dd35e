//===- GraphNodeParams.cpp - graph nodes' parameters and queries, for both APIs ===//
//
// What cudart/Graphs.cpp and DriverGraphs.cpp share: nodes read from and written to the
// parameter structures both APIs lay out alike, and the list, attribute and parameter queries.

#include "Graphs.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>

using namespace llvm;

namespace ptx2amd::runtime {

//===-- node parameters of both APIs ---------------------------------------===//

cudaError_t readCopy1D(void *Dst, const void *Src, size_t Bytes, cudaMemcpyKind Kind,
                       GraphNode &N) {
  if (!Dst || !Src)
    return fail(cudaErrorInvalidValue, "a copy node without a source or destination");
  N.Kind = NodeKind::Memcpy;
  N.Copy = {static_cast<const char *>(Src),
            Bytes,
            Bytes,
            static_cast<char *>(Dst),
            Bytes,
            Bytes,
            Bytes,
            1,
            1,
            Kind};
  return cudaSuccess;
}

cudaError_t readMemset(const MemsetNodeParams *P, GraphNode &N) {
  if (!P || !P->Dst)
    return fail(cudaErrorInvalidValue);
  if (P->ElementSize != 1 && P->ElementSize != 2 && P->ElementSize != 4)
    return fail(cudaErrorInvalidValue, formatv("element size {0}", P->ElementSize).str());
  if (P->Height > 1 && P->Width * P->ElementSize > P->Pitch)
    return fail(cudaErrorInvalidValue, "a memset node's rows are wider than its pitch");
  N.Kind = NodeKind::Memset;
  N.Memset = {P->Dst, P->Pitch, P->Value, P->ElementSize, P->Width, P->Height};
  return cudaSuccess;
}

void writeMemset(const GraphNode &N, MemsetNodeParams *P) {
  const Fill2D &F = N.Memset;
  *P = {F.Dst, F.Pitch, F.Value, F.ElementBytes, F.Width, F.Height};
}

cudaError_t readHost(const HostNodeParams *P, GraphNode &N) {
  if (!P || !P->Fn)
    return fail(cudaErrorInvalidValue);
  N.Kind = NodeKind::Host;
  N.Host = {P->Fn, P->UserData};
  return cudaSuccess;
}

cudaError_t readChild(Graph *Child, GraphNode &N) {
  N.Kind = NodeKind::ChildGraph;
  if (cudaError_t E = checkGraph(Child))
    return E;
  N.Child = std::make_unique<Graph>();
  cloneGraph(*Child, *N.Child);
  return cudaSuccess;
}

cudaError_t readAlloc(MemAllocNodeParams *P, GraphNode &N) {
  if (!P)
    return fail(cudaErrorInvalidValue);
  N.Kind = NodeKind::MemAlloc;
  if (cudaError_t E = makeGraphMemory(P->Bytes, N.Memory))
    return E;
  P->Ptr = N.Memory->Ptr;
  return cudaSuccess;
}

/// The node of \p Node's kind, checked.
cudaError_t nodeOfKind(GraphNode *Node, NodeKind Kind) {
  if (!Node)
    return fail(cudaErrorInvalidValue);
  if (Node->Kind != Kind)
    return fail(cudaErrorInvalidValue,
                formatv("a node of type {0}, not {1}", int(Node->Kind), int(Kind)).str());
  return cudaSuccess;
}

/// Edge data of default edges, for the queries that may return it.
void zeroEdgeData(void *EdgeData, size_t Count) {
  if (EdgeData)
    std::memset(EdgeData, 0, Count * 8);
}

cudaError_t checkEdgeData(const void *EdgeData, size_t Count) {
  if (!EdgeData)
    return cudaSuccess;
  const auto *Bytes = static_cast<const unsigned char *>(EdgeData);
  for (size_t I = 0; I < Count * 8; ++I)
    if (Bytes[I])
      return fail(cudaErrorNotSupported, "graph edges other than the default ones");
  return cudaSuccess;
}

void writeAlloc(const GraphNode &N, MemAllocNodeParams *P) {
  *P = {};
  // cudaMemPoolProps: pinned (1) device (1) memory of device 0.
  const int Props[4] = {1, 0, 1, 0};
  std::memcpy(P->PoolProps, Props, sizeof Props);
  P->Bytes = N.Memory->Bytes;
  P->Ptr = N.Memory->Ptr;
}

//===-- the entry points' shared operations --------------------------------===//

cudaError_t cloneGraphHandle(Graph **Out, Graph *G) {
  if (!Out)
    return fail(cudaErrorInvalidValue);
  if (cudaError_t E = checkGraph(G))
    return E;
  auto C = std::make_unique<Graph>();
  cloneGraph(*G, *C);
  *Out = C.release();
  return cudaSuccess;
}

cudaError_t listNodes(Graph *G, bool RootsOnly, GraphNode **Out, size_t *Count) {
  if (cudaError_t E = checkGraph(G))
    return E;
  std::vector<GraphNode *> List;
  for (auto &N : G->Nodes)
    if (!RootsOnly || N->Dependencies.empty())
      List.push_back(N.get());
  return writeList(List, Out, Count);
}

cudaError_t listEdges(Graph *G, GraphNode **From, GraphNode **To, void *EdgeData, size_t *Count) {
  if (cudaError_t E = checkGraph(G))
    return E;
  if (!Count || (!From != !To))
    return fail(cudaErrorInvalidValue);
  std::vector<GraphNode *> F, T;
  for (auto &N : G->Nodes)
    for (GraphNode *D : N->Dependencies) {
      F.push_back(D);
      T.push_back(N.get());
    }
  size_t Room = *Count;
  if (cudaError_t E = writeList(F, From, Count))
    return E;
  if (To)
    writeList(T, To, &Room);
  zeroEdgeData(EdgeData, *Count);
  return cudaSuccess;
}

cudaError_t listNeighbours(GraphNode *N, bool Dependents, GraphNode **Out, void *EdgeData,
                           size_t *Count) {
  if (!N)
    return fail(cudaErrorInvalidValue);
  if (cudaError_t E = writeList(Dependents ? N->Dependents : N->Dependencies, Out, Count))
    return E;
  zeroEdgeData(Out ? EdgeData : nullptr, *Count);
  return cudaSuccess;
}

cudaError_t changeDependencies(Graph *G, GraphNode *const *From, GraphNode *const *To,
                               const void *EdgeData, size_t Count, bool Remove) {
  if (cudaError_t E = checkEdgeData(EdgeData, Count))
    return E;
  return addDependencies(G, From, To, Count, Remove);
}

cudaError_t nodeType(GraphNode *N, int *Type) {
  if (!N || !Type)
    return fail(cudaErrorInvalidValue);
  *Type = int(N->Kind);
  return cudaSuccess;
}

cudaError_t kernelNodeAttribute(GraphNode *N, int Id, void *Value, bool Set) {
  if (cudaError_t E = nodeOfKind(N, NodeKind::Kernel))
    return E;
  if (!Value)
    return fail(cudaErrorInvalidValue);
  auto &Attributes = N->Kernel.Attributes;
  if (Set) {
    std::erase_if(Attributes, [&](const LaunchAttribute &A) { return A.Id == Id; });
    LaunchAttribute A{};
    A.Id = Id;
    std::memcpy(A.Value, Value, sizeof A.Value);
    Attributes.push_back(A);
    return cudaSuccess;
  }
  std::memset(Value, 0, sizeof(LaunchAttribute::Value));
  for (const LaunchAttribute &A : Attributes)
    if (A.Id == Id)
      std::memcpy(Value, A.Value, sizeof A.Value);
  return cudaSuccess;
}

cudaError_t copyKernelNodeAttributes(GraphNode *Dst, GraphNode *Src) {
  if (cudaError_t E = nodeOfKind(Dst, NodeKind::Kernel))
    return E;
  if (cudaError_t E = nodeOfKind(Src, NodeKind::Kernel))
    return E;
  Dst->Kernel.Attributes = Src->Kernel.Attributes;
  return cudaSuccess;
}

cudaError_t hostNodeParams(GraphNode *N, HostNodeParams *Out) {
  if (cudaError_t E = nodeOfKind(N, NodeKind::Host))
    return E;
  if (!Out)
    return fail(cudaErrorInvalidValue);
  *Out = {N->Host.Fn, N->Host.UserData};
  return cudaSuccess;
}

cudaError_t childGraphOf(GraphNode *N, Graph **Out) {
  if (cudaError_t E = nodeOfKind(N, NodeKind::ChildGraph))
    return E;
  if (!Out)
    return fail(cudaErrorInvalidValue);
  *Out = N->Child.get();
  return cudaSuccess;
}

cudaError_t memAllocNodeParams(GraphNode *N, MemAllocNodeParams *Out) {
  if (cudaError_t E = nodeOfKind(N, NodeKind::MemAlloc))
    return E;
  if (!Out)
    return fail(cudaErrorInvalidValue);
  writeAlloc(*N, Out);
  return cudaSuccess;
}

cudaError_t memFreeNodeAddress(GraphNode *N, void **Out) {
  if (cudaError_t E = nodeOfKind(N, NodeKind::MemFree))
    return E;
  if (!Out)
    return fail(cudaErrorInvalidValue);
  *Out = N->FreePtr;
  return cudaSuccess;
}

cudaError_t nodeEvent(GraphNode *N, NodeKind Kind, cudaEvent_t *Out) {
  if (cudaError_t E = nodeOfKind(N, Kind))
    return E;
  if (!Out)
    return fail(cudaErrorInvalidValue);
  *Out = N->Event;
  return cudaSuccess;
}

cudaError_t readEvent(cudaEvent_t Event, NodeKind Kind, GraphNode &N) {
  if (!Event)
    return fail(cudaErrorInvalidValue);
  N.Kind = Kind;
  N.Event = Event;
  return cudaSuccess;
}

cudaError_t setNodeEvent(GraphExec *X, GraphNode *N, NodeKind Kind, cudaEvent_t Event) {
  auto Read = [&](GraphNode &P) { return readEvent(Event, Kind, P); };
  return X ? setExecParams(X, N, Kind, Read) : setParams(N, Kind, Read);
}

cudaError_t readEmpty(GraphNode &N) {
  N.Kind = NodeKind::Empty;
  return cudaSuccess;
}

cudaError_t readMemFree(void *Ptr, GraphNode &N) {
  if (!Ptr)
    return fail(cudaErrorInvalidValue);
  N.Kind = NodeKind::MemFree;
  N.FreePtr = Ptr;
  return cudaSuccess;
}

cudaError_t memoryNodeParamsFixed(int Type) {
  if (NodeKind(Type) == NodeKind::MemAlloc || NodeKind(Type) == NodeKind::MemFree)
    return fail(cudaErrorInvalidValue, "a memory node's parameters cannot change");
  return cudaSuccess;
}

} // namespace ptx2amd::runtime
