//===- GraphExec.cpp - instantiated graphs: instantiation, launch, update, for both APIs ===//
//
// See Graphs.h. A launch runs the instantiated graph's nodes one after the other on the launch
// stream (a topological order satisfies every edge); nodes are the operations of Memory.cpp,
// Objects.cpp and Runtime.cpp, so a graph does what the same calls on a stream would.

#include "GraphState.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>

using namespace llvm;

namespace ptx2amd::runtime {

using namespace graphs;

namespace {

cudaError_t checkExec(const GraphExec *X) {
  std::lock_guard<std::recursive_mutex> Lock(state().Mutex);
  if (!X || !state().Execs.count(X))
    return fail(cudaErrorInvalidValue, formatv("no executable graph {0}", (const void *)X).str());
  return cudaSuccess;
}

/// Kahn's algorithm, ready nodes taken in creation order; false when \p G has a cycle.
bool topologicalOrder(const Graph &G, std::vector<GraphNode *> &Out) {
  std::unordered_map<const GraphNode *, size_t> Waiting;
  std::vector<GraphNode *> Ready;
  for (const auto &N : G.Nodes) {
    Waiting[N.get()] = N->Dependencies.size();
    if (N->Dependencies.empty())
      Ready.push_back(N.get());
  }
  Out.clear();
  for (size_t I = 0; I < Ready.size(); ++I) {
    GraphNode *N = Ready[I];
    Out.push_back(N);
    for (GraphNode *D : N->Dependents)
      if (--Waiting[D] == 0)
        Ready.push_back(D);
  }
  return Out.size() == G.Nodes.size();
}

cudaError_t runNodes(const std::vector<GraphNode *> &Order, cudaStream_t S,
                     unsigned long long Flags);

/// Conditions created with cudaGraphCondAssignDefault get their default at each launch, in
/// \p G and the graphs it holds.
cudaError_t assignConditionDefaults(const Graph &G, cudaStream_t S) {
  for (const auto &C : G.Conditions)
    if (C->AssignDefault)
      if (cudaError_t E =
              copy(C->Value, &C->Default, sizeof C->Default, cudaMemcpyHostToDevice, S, true))
        return E;
  for (const auto &N : G.Nodes) {
    if (N->Child)
      if (cudaError_t E = assignConditionDefaults(*N->Child, S))
        return E;
    for (const auto &B : N->Bodies)
      if (cudaError_t E = assignConditionDefaults(*B, S))
        return E;
  }
  return cudaSuccess;
}

cudaError_t runNode(GraphNode &N, cudaStream_t S, unsigned long long Flags) {
  switch (N.Kind) {
  case NodeKind::Kernel: {
    KernelLaunch &L = N.Kernel;
    std::vector<void *> Args;
    for (auto &A : L.Args)
      Args.push_back(A.data());
    if (L.Attributes.empty())
      return launchKernel(L.Kernel, L.Grid, L.Block, Args.data(), L.SharedBytes, S);
    return launchKernelEx(L.Kernel, L.Grid, L.Block, Args.data(), L.SharedBytes, S,
                          L.Attributes.data(), unsigned(L.Attributes.size()));
  }
  case NodeKind::Memcpy:
    return copy3D(N.Copy, S, false);
  case NodeKind::Memset: {
    const Fill2D &F = N.Memset;
    return fill2D(F.Dst, F.Pitch, F.Value, F.ElementBytes, F.Width, F.Height, S, false);
  }
  case NodeKind::Host:
    if (cudaError_t E = synchronizeStream(S))
      return E;
    N.Host.Fn(N.Host.UserData);
    return cudaSuccess;
  case NodeKind::ChildGraph: {
    std::vector<GraphNode *> Order;
    if (!topologicalOrder(*N.Child, Order))
      return fail(cudaErrorInvalidValue, "a child graph has a cycle");
    return runNodes(Order, S, Flags);
  }
  case NodeKind::Empty:
    return cudaSuccess;
  case NodeKind::WaitEvent:
    return streamWaitEvent(S, N.Event);
  case NodeKind::EventRecord:
    return recordEvent(N.Event, S);
  case NodeKind::MemAlloc: {
    GraphState &St = state();
    std::lock_guard<std::recursive_mutex> Lock(St.Mutex);
    GraphMemory &M = *N.Memory;
    constexpr unsigned long long AutoFreeOnLaunch = 1;
    if (M.Live && !(Flags & AutoFreeOnLaunch))
      return fail(
          cudaErrorInvalidValue,
          formatv("the graph's allocation at {0} from an earlier launch is not freed (the "
                  "graph was not instantiated with cudaGraphInstantiateFlagAutoFreeOnLaunch)",
                  M.Ptr)
              .str());
    if (!M.Live)
      noteUse(St.Used, St.UsedHigh, int64_t(M.Bytes));
    M.Live = true;
    return cudaSuccess;
  }
  case NodeKind::Conditional: {
    auto Condition = [&](unsigned &Out) {
      return copy(&Out, N.Condition->Value, sizeof Out, cudaMemcpyDeviceToHost, S, true);
    };
    auto Run = [&](Graph &Body) {
      std::vector<GraphNode *> Order;
      if (!topologicalOrder(Body, Order))
        return fail(cudaErrorInvalidValue, "a conditional body graph has a cycle");
      return runNodes(Order, S, Flags);
    };
    unsigned Value = 0;
    if (cudaError_t E = Condition(Value))
      return E;
    switch (N.ConditionalType) {
    case 0: // if, with an else body when there are two
      if (Value)
        return Run(*N.Bodies[0]);
      return N.Bodies.size() > 1 ? Run(*N.Bodies[1]) : cudaSuccess;
    case 1: // while
      while (Value) {
        if (cudaError_t E = Run(*N.Bodies[0]))
          return E;
        if (cudaError_t E = Condition(Value))
          return E;
      }
      return cudaSuccess;
    default: // switch
      return Value < N.Bodies.size() ? Run(*N.Bodies[Value]) : cudaSuccess;
    }
  }
  case NodeKind::MemFree:
    // The stream's earlier work may still use the memory; later work may reuse it.
    if (cudaError_t E = synchronizeStream(S))
      return E;
    freeGraphMemory(N.FreePtr);
    return cudaSuccess;
  default:
    return fail(cudaErrorNotSupported,
                formatv("graph nodes of type {0} are not supported", int(N.Kind)).str());
  }
}

cudaError_t runNodes(const std::vector<GraphNode *> &Order, cudaStream_t S,
                     unsigned long long Flags) {
  for (GraphNode *N : Order)
    if (N->Enabled)
      if (cudaError_t E = runNode(*N, S, Flags))
        return E;
  return cudaSuccess;
}

} // namespace

//===-- instantiated graphs ------------------------------------------------===//

cudaError_t instantiate(GraphExec **Out, const Graph *G, unsigned long long Flags) {
  if (!Out)
    return fail(cudaErrorInvalidValue);
  if (cudaError_t E = checkGraph(G))
    return E;
  constexpr unsigned long long KnownFlags = 1 | 2 | 4 | 8;
  if (Flags & ~KnownFlags)
    return fail(cudaErrorInvalidValue, formatv("instantiation flags {0:x}", Flags).str());
  if (Flags & 4)
    return fail(cudaErrorNotSupported, "graphs launched from the device");
  auto X = std::make_unique<GraphExec>();
  cloneGraph(*G, X->Copy);
  if (!topologicalOrder(X->Copy, X->Order))
    return fail(cudaErrorInvalidValue, "the graph has a cycle");
  X->Flags = Flags;
  std::lock_guard<std::recursive_mutex> Lock(state().Mutex);
  state().Execs.insert(X.get());
  *Out = X.release();
  return cudaSuccess;
}

cudaError_t destroyExec(GraphExec *X) {
  if (cudaError_t E = checkExec(X))
    return E;
  {
    std::lock_guard<std::recursive_mutex> Lock(state().Mutex);
    state().Execs.erase(X);
  }
  delete X;
  return cudaSuccess;
}

cudaError_t launchGraph(GraphExec *X, cudaStream_t S) {
  if (cudaError_t E = checkExec(X))
    return E;
  unsigned Flags;
  if (cudaError_t E = streamFlags(S, Flags))
    return E;
  if (isCapturing(S)) {
    // Captured as a child graph of what it holds.
    GraphNode Proto;
    Proto.Kind = NodeKind::ChildGraph;
    Proto.Child = std::make_unique<Graph>();
    cloneGraph(X->Copy, *Proto.Child);
    return captureNode(S, Proto);
  }
  if (cudaError_t E = assignConditionDefaults(X->Copy, S))
    return E;
  return runNodes(X->Order, S, X->Flags);
}

cudaError_t execNode(GraphExec *X, const GraphNode *Node, GraphNode *&Out) {
  if (cudaError_t E = checkExec(X))
    return E;
  if (!Node)
    return fail(cudaErrorInvalidValue);
  for (const auto &N : X->Copy.Nodes)
    if (N->Original == Node) {
      Out = N.get();
      return cudaSuccess;
    }
  return fail(cudaErrorInvalidValue, "the node is not of the graph the executable graph was "
                                     "instantiated from");
}

cudaError_t updateExec(GraphExec *X, const Graph *G, int &Result, GraphNode *&ErrorNode) {
  enum { Success = 0, Error = 1, TopologyChanged = 2, NodeTypeChanged = 3, ParametersChanged = 5 };
  Result = Error;
  ErrorNode = nullptr;
  if (cudaError_t E = checkExec(X))
    return E;
  if (cudaError_t E = checkGraph(G))
    return E;
  auto &Old = X->Copy.Nodes;
  const auto &New = G->Nodes;
  // Nodes are paired in creation order, as a capture repeated makes them.
  std::unordered_map<const GraphNode *, size_t> OldAt, NewAt;
  for (size_t I = 0; I < Old.size(); ++I)
    OldAt[Old[I].get()] = I;
  for (size_t I = 0; I < New.size(); ++I)
    NewAt[New[I].get()] = I;
  auto Positions = [](const std::vector<GraphNode *> &Deps, auto &At) {
    std::vector<size_t> P;
    for (const GraphNode *D : Deps)
      P.push_back(At[D]);
    std::sort(P.begin(), P.end());
    return P;
  };
  auto Refuse = [&](int Why, const GraphNode *N, const char *Text) {
    Result = Why;
    ErrorNode = const_cast<GraphNode *>(N);
    return fail(cudaErrorGraphExecUpdateFailure, Text);
  };
  if (Old.size() != New.size())
    return Refuse(TopologyChanged, nullptr, "the graphs have different numbers of nodes");
  for (size_t I = 0; I < New.size(); ++I) {
    const GraphNode &A = *Old[I], &B = *New[I];
    if (A.Kind != B.Kind)
      return Refuse(NodeTypeChanged, &B, "a node's type differs");
    if (Positions(A.Dependencies, OldAt) != Positions(B.Dependencies, NewAt))
      return Refuse(TopologyChanged, &B, "a node's dependencies differ");
    if ((A.Kind == NodeKind::MemAlloc && A.Memory->Bytes != B.Memory->Bytes) ||
        (A.Kind == NodeKind::MemFree && A.FreePtr != B.FreePtr) ||
        (A.Kind == NodeKind::ChildGraph && A.Child->Nodes.size() != B.Child->Nodes.size()) ||
        (A.Kind == NodeKind::Conditional &&
         (A.ConditionalType != B.ConditionalType || A.Bodies.size() != B.Bodies.size())))
      return Refuse(ParametersChanged, &B, "a node's parameters may not change");
  }
  for (size_t I = 0; I < New.size(); ++I) {
    // The allocation of a mem-alloc node keeps its address.
    std::shared_ptr<GraphMemory> Memory = Old[I]->Memory;
    Old[I]->copyParams(*New[I]);
    Old[I]->Memory = Memory;
  }
  Result = Success;
  return cudaSuccess;
}

//===-- the entry points' shared operations --------------------------------===//

cudaError_t setNodeEnabled(GraphExec *X, GraphNode *N, unsigned Enabled) {
  GraphNode *Target = nullptr;
  if (cudaError_t E = execNode(X, N, Target))
    return E;
  if (Target->Kind != NodeKind::Kernel && Target->Kind != NodeKind::Memcpy &&
      Target->Kind != NodeKind::Memset)
    return fail(cudaErrorInvalidValue, "only kernel, copy and memset nodes can be disabled");
  Target->Enabled = Enabled != 0;
  return cudaSuccess;
}

cudaError_t nodeEnabled(GraphExec *X, GraphNode *N, unsigned *Enabled) {
  if (!Enabled)
    return fail(cudaErrorInvalidValue);
  GraphNode *Target = nullptr;
  if (cudaError_t E = execNode(X, N, Target))
    return E;
  *Enabled = Target->Enabled;
  return cudaSuccess;
}

cudaError_t instantiateWithParams(GraphExec **Out, const Graph *G, InstantiateParams *P) {
  if (!P)
    return fail(cudaErrorInvalidValue);
  P->ErrorNode = nullptr;
  cudaError_t E = instantiate(Out, G, P->Flags);
  // cudaGraphInstantiateResult: success, error, (invalid structure, multiple devices), device
  // launch not supported. An upload (flag 2) has nothing to do ahead of the launch.
  P->Result = E == cudaSuccess ? 0 : (P->Flags & 4) ? 3 : 1;
  return E;
}

cudaError_t updateExecInfo(GraphExec *X, const Graph *G, ExecUpdateResultInfo *Info) {
  if (!Info)
    return fail(cudaErrorInvalidValue);
  GraphNode *ErrorNode = nullptr;
  cudaError_t E = updateExec(X, G, Info->Result, ErrorNode);
  Info->ErrorNode = ErrorNode;
  Info->ErrorFromNode = nullptr;
  return E;
}

cudaError_t uploadGraph(GraphExec *X, cudaStream_t S) {
  // Nothing to upload ahead of a launch; the graph and the stream are checked.
  if (cudaError_t E = checkExec(X))
    return E;
  unsigned Flags;
  return streamFlags(S, Flags);
}

} // namespace ptx2amd::runtime
