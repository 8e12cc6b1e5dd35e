//===- Graphs.cpp - CUDA graphs, their instantiation and stream capture, for both APIs ===//
//
// See Graphs.h. A launch runs the instantiated graph's nodes one after the other on the launch
// stream (a topological order satisfies every edge); nodes are the operations of Memory.cpp,
// Objects.cpp and Runtime.cpp, so a graph does what the same calls on a stream would.

#include "Graphs.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <unordered_set>

using namespace llvm;

namespace ptx2amd::runtime {

struct UserObject {
  void *Ptr = nullptr;
  void (*Destroy)(void *) = nullptr;
  unsigned Count = 0;
};

namespace {

struct Capture {
  Graph *Into = nullptr;
  bool Owned = false; ///< made by cudaStreamBeginCapture, handed over at its end
  unsigned long long Id = 0;
  int Mode = 0; ///< cudaStreamCaptureMode: global, thread-local, relaxed
  const void *Origin = nullptr;
  std::thread::id Thread;
  cudaError_t Invalid = cudaSuccess;
};

struct StreamCapture {
  std::shared_ptr<Capture> Cap;
  std::vector<GraphNode *> Frontier;
};

struct EventCapture {
  std::shared_ptr<Capture> Cap;
  std::vector<GraphNode *> Frontier;
};

/// Everything of graphs that outlives a call: live handles, captures and graph memory. Never
/// destroyed (programs destroy graphs from atexit handlers).
struct GraphState {
  std::recursive_mutex Mutex;
  std::unordered_set<const Graph *> Graphs;
  std::unordered_set<const GraphExec *> Execs;
  std::unordered_set<const UserObject *> UserObjects;
  std::unordered_map<const void *, StreamCapture> Streams; ///< by streamKey()
  std::unordered_map<cudaEvent_t, EventCapture> Events;
  std::unordered_map<const void *, GraphMemory *> Memory;                    ///< by address
  std::unordered_map<uint64_t, std::weak_ptr<ConditionalHandle>> Conditions; ///< by handle
  unsigned long long NextCaptureId = 1;
  uint64_t Used = 0, UsedHigh = 0, Reserved = 0, ReservedHigh = 0;
};

GraphState &state() {
  static GraphState *S = new GraphState;
  return *S;
}

std::atomic<int> ActiveCaptures{0};

/// What names a stream in the capture table: each thread's per-thread default stream is its own.
const void *streamKey(cudaStream_t S) { return resolveStream(S); }

bool isLegacy(cudaStream_t S) {
  S = resolveStream(S);
  return S == nullptr || S == StreamLegacy;
}

cudaError_t checkExec(const GraphExec *X) {
  std::lock_guard<std::recursive_mutex> Lock(state().Mutex);
  if (!X || !state().Execs.count(X))
    return fail(cudaErrorInvalidValue, formatv("no executable graph {0}", (const void *)X).str());
  return cudaSuccess;
}

void releaseReference(UserObject *O, unsigned Count) {
  bool Destroy;
  {
    std::lock_guard<std::recursive_mutex> Lock(state().Mutex);
    O->Count -= std::min(Count, O->Count);
    Destroy = O->Count == 0;
    if (Destroy)
      state().UserObjects.erase(O);
  }
  if (Destroy) {
    if (O->Destroy)
      O->Destroy(O->Ptr);
    delete O;
  }
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

void noteUse(uint64_t &Current, uint64_t &High, int64_t Delta) {
  Current += uint64_t(Delta);
  High = std::max(High, Current);
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

/// Whether \p N is one of \p Targets or reaches one through its dependents.
bool reaches(const GraphNode *N, const std::vector<GraphNode *> &Targets) {
  std::vector<const GraphNode *> Work{N};
  std::unordered_set<const GraphNode *> Seen;
  while (!Work.empty()) {
    const GraphNode *M = Work.back();
    Work.pop_back();
    if (std::find(Targets.begin(), Targets.end(), M) != Targets.end())
      return true;
    if (Seen.insert(M).second)
      for (const GraphNode *D : M->Dependents)
        Work.push_back(D);
  }
  return false;
}

void addUnique(std::vector<GraphNode *> &To, const std::vector<GraphNode *> &From) {
  for (GraphNode *N : From)
    if (std::find(To.begin(), To.end(), N) == To.end())
      To.push_back(N);
}

cudaError_t checkDependencies(const Graph *G, GraphNode *const *Deps, size_t NumDeps) {
  if (NumDeps && !Deps)
    return fail(cudaErrorInvalidValue);
  for (size_t I = 0; I < NumDeps; ++I) {
    if (!Deps[I] || Deps[I]->Owner != G)
      return fail(
          cudaErrorInvalidValue,
          formatv("dependency {0} is not a node of the graph", (const void *)Deps[I]).str());
    for (size_t J = 0; J < I; ++J)
      if (Deps[J] == Deps[I])
        return fail(cudaErrorInvalidValue, "a dependency is listed twice");
  }
  return cudaSuccess;
}

GraphNode *addNodeUnchecked(Graph *G, const std::vector<GraphNode *> &Deps,
                            const GraphNode &Proto) {
  auto N = std::make_unique<GraphNode>();
  N->Kind = Proto.Kind;
  N->copyParams(Proto);
  N->Owner = G;
  N->Index = G->NextIndex++;
  for (GraphNode *D : Deps) {
    N->Dependencies.push_back(D);
    D->Dependents.push_back(N.get());
  }
  G->Nodes.push_back(std::move(N));
  return G->Nodes.back().get();
}

StreamCapture *findCapture(cudaStream_t S) {
  auto It = state().Streams.find(streamKey(S));
  return It == state().Streams.end() ? nullptr : &It->second;
}

} // namespace

//===-- nodes and graphs ---------------------------------------------------===//

GraphMemory::~GraphMemory() {
  GraphState &St = state();
  {
    std::lock_guard<std::recursive_mutex> Lock(St.Mutex);
    St.Memory.erase(Ptr);
    if (Live)
      St.Used -= Bytes;
    St.Reserved -= Bytes;
  }
  release(Ptr, false);
}

GraphNode::GraphNode() = default;
GraphNode::~GraphNode() = default;

void GraphNode::copyParams(const GraphNode &N) {
  Kernel = N.Kernel;
  Copy = N.Copy;
  Memset = N.Memset;
  Host = N.Host;
  Event = N.Event;
  if (N.Child) {
    Child = std::make_unique<Graph>();
    cloneGraph(*N.Child, *Child);
  } else {
    Child.reset();
  }
  Memory = N.Memory;
  FreePtr = N.FreePtr;
  ConditionalType = N.ConditionalType;
  Condition = N.Condition;
  Bodies.clear();
  BodyHandles.clear();
  for (const auto &B : N.Bodies) {
    Bodies.push_back(std::make_unique<Graph>());
    cloneGraph(*B, *Bodies.back());
    BodyHandles.push_back(Bodies.back().get());
  }
}

Graph::Graph() {
  std::lock_guard<std::recursive_mutex> Lock(state().Mutex);
  state().Graphs.insert(this);
}

Graph::~Graph() {
  {
    std::lock_guard<std::recursive_mutex> Lock(state().Mutex);
    state().Graphs.erase(this);
  }
  for (auto &[O, Count] : UserObjects)
    releaseReference(O, Count);
}

cudaError_t captureKernelLaunch(KernelRecord *K, dim3 Grid, dim3 Block, unsigned SharedBytes,
                                void **Args, KernelLaunch &Out) {
  if (!K)
    return fail(cudaErrorInvalidDeviceFunction, "a kernel node of a function that is not a "
                                                "registered kernel");
  Context *C = nullptr;
  const loader::Kernel *DK = nullptr;
  if (cudaError_t E = contextAndKernel(*K, C, DK))
    return E;
  Out.Kernel = K;
  Out.Grid = Grid;
  Out.Block = Block;
  Out.SharedBytes = SharedBytes;
  Out.Args.clear();
  for (const amdgpu::KernelArgMetadata &A : DK->metadata().Args) {
    if (A.isHidden())
      continue;
    if (!Args)
      return fail(cudaErrorInvalidValue,
                  formatv("kernel '{0}' has parameters and none are given", K->Name).str());
    const auto *P = static_cast<const unsigned char *>(Args[Out.Args.size()]);
    Out.Args.emplace_back(P, P + A.Size);
  }
  return cudaSuccess;
}

cudaError_t checkGraph(const Graph *G) {
  std::lock_guard<std::recursive_mutex> Lock(state().Mutex);
  if (!G || !state().Graphs.count(G))
    return fail(cudaErrorInvalidValue, formatv("no graph {0}", (const void *)G).str());
  return cudaSuccess;
}

cudaError_t createGraph(Graph **Out) {
  if (!Out)
    return fail(cudaErrorInvalidValue);
  *Out = new Graph;
  return cudaSuccess;
}

cudaError_t destroyGraph(Graph *G) {
  if (cudaError_t E = checkGraph(G))
    return E;
  delete G;
  return cudaSuccess;
}

cudaError_t addNode(Graph *G, GraphNode **Out, GraphNode *const *Deps, size_t NumDeps,
                    const GraphNode &Proto) {
  if (!Out)
    return fail(cudaErrorInvalidValue);
  if (cudaError_t E = checkGraph(G))
    return E;
  if (cudaError_t E = checkDependencies(G, Deps, NumDeps))
    return E;
  *Out = addNodeUnchecked(G, std::vector<GraphNode *>(Deps, Deps + NumDeps), Proto);
  return cudaSuccess;
}

cudaError_t destroyNode(GraphNode *N) {
  if (!N || checkGraph(N->Owner))
    return fail(cudaErrorInvalidValue);
  for (GraphNode *D : N->Dependencies)
    std::erase(D->Dependents, N);
  for (GraphNode *D : N->Dependents)
    std::erase(D->Dependencies, N);
  std::erase_if(N->Owner->Nodes, [&](const auto &P) { return P.get() == N; });
  return cudaSuccess;
}

cudaError_t addDependencies(Graph *G, GraphNode *const *From, GraphNode *const *To, size_t Count,
                            bool Remove) {
  if (cudaError_t E = checkGraph(G))
    return E;
  if (Count && (!From || !To))
    return fail(cudaErrorInvalidValue);
  for (size_t I = 0; I < Count; ++I) {
    GraphNode *A = From[I], *B = To[I];
    if (!A || !B || A->Owner != G || B->Owner != G || A == B)
      return fail(cudaErrorInvalidValue, "an edge between nodes not of the graph");
    auto It = std::find(B->Dependencies.begin(), B->Dependencies.end(), A);
    if (Remove) {
      if (It == B->Dependencies.end())
        return fail(cudaErrorInvalidValue, "removing an edge the graph does not have");
      B->Dependencies.erase(It);
      std::erase(A->Dependents, B);
    } else {
      if (It != B->Dependencies.end())
        return fail(cudaErrorInvalidValue, "adding an edge the graph has");
      B->Dependencies.push_back(A);
      A->Dependents.push_back(B);
    }
  }
  return cudaSuccess;
}

void cloneGraph(const Graph &G, Graph &Out) {
  std::unordered_map<const GraphNode *, GraphNode *> Map;
  for (const auto &N : G.Nodes) {
    auto C = std::make_unique<GraphNode>();
    C->Kind = N->Kind;
    C->copyParams(*N);
    C->Owner = &Out;
    C->Index = N->Index;
    C->Enabled = N->Enabled;
    C->Original = N.get();
    Map[N.get()] = C.get();
    Out.Nodes.push_back(std::move(C));
  }
  for (const auto &N : G.Nodes) {
    GraphNode *C = Map[N.get()];
    for (GraphNode *D : N->Dependencies)
      C->Dependencies.push_back(Map[D]);
    for (GraphNode *D : N->Dependents)
      C->Dependents.push_back(Map[D]);
  }
  Out.NextIndex = G.NextIndex;
  Out.Original = &G;
  Out.Conditions = G.Conditions;
  std::lock_guard<std::recursive_mutex> Lock(state().Mutex);
  for (auto [O, Count] : G.UserObjects) {
    O->Count += Count;
    Out.UserObjects.emplace_back(O, Count);
  }
}

cudaError_t findInClone(GraphNode **Out, const GraphNode *Original, const Graph *Clone) {
  if (!Out || !Original)
    return fail(cudaErrorInvalidValue);
  if (cudaError_t E = checkGraph(Clone))
    return E;
  if (Clone->Original != Original->Owner)
    return fail(cudaErrorInvalidValue, "the graph is not a clone of the node's graph");
  for (const auto &N : Clone->Nodes)
    if (N->Original == Original) {
      *Out = N.get();
      return cudaSuccess;
    }
  return fail(cudaErrorInvalidValue, "the node has no counterpart in the clone");
}

cudaError_t printDot(const Graph *G, const char *Path, unsigned Flags) {
  (void)Flags; // every detail is written: the flags choose among details
  if (!Path)
    return fail(cudaErrorInvalidValue);
  if (cudaError_t E = checkGraph(G))
    return E;
  std::error_code EC;
  raw_fd_ostream OS(Path, EC);
  if (EC)
    return fail(cudaErrorInvalidValue, formatv("{0}: {1}", Path, EC.message()).str());
  static constexpr const char *Kinds[] = {
      "KERNEL",       "MEMCPY",       "MEMSET",           "HOST",           "GRAPH",     "EMPTY",
      "WAIT_EVENT",   "EVENT_RECORD", "EXT_SEMAS_SIGNAL", "EXT_SEMAS_WAIT", "MEM_ALLOC", "MEM_FREE",
      "BATCH_MEM_OP", "CONDITIONAL"};
  std::function<void(const Graph &, const std::string &)> Write = [&](const Graph &Gr,
                                                                      const std::string &Prefix) {
    for (const auto &N : Gr.Nodes) {
      std::string Label = Kinds[int(N->Kind)];
      if (N->Kind == NodeKind::Kernel && N->Kernel.Kernel)
        Label += "\\n" + N->Kernel.Kernel->Name +
                 formatv("\\ngrid ({0},{1},{2}) block ({3},{4},{5}) shared {6}", N->Kernel.Grid.x,
                         N->Kernel.Grid.y, N->Kernel.Grid.z, N->Kernel.Block.x, N->Kernel.Block.y,
                         N->Kernel.Block.z, N->Kernel.SharedBytes)
                     .str();
      else if (N->Kind == NodeKind::Memcpy)
        Label +=
            formatv("\\n{0} x {1} x {2} bytes", N->Copy.Width, N->Copy.Height, N->Copy.Depth).str();
      OS << "  \"" << Prefix << N->Index << "\" [shape=record label=\"" << Prefix << N->Index << " "
         << Label << "\"];\n";
      for (const GraphNode *D : N->Dependencies)
        OS << "  \"" << Prefix << D->Index << "\" -> \"" << Prefix << N->Index << "\";\n";
      if (N->Child)
        Write(*N->Child, Prefix + std::to_string(N->Index) + ".");
      for (size_t B = 0; B < N->Bodies.size(); ++B)
        Write(*N->Bodies[B], Prefix + std::to_string(N->Index) + ".body" + std::to_string(B) + ".");
    }
  };
  OS << "digraph cudaGraph {\n";
  Write(*G, "node_");
  OS << "}\n";
  return cudaSuccess;
}

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

//===-- conditions ---------------------------------------------------------===//

ConditionalHandle::~ConditionalHandle() {
  {
    std::lock_guard<std::recursive_mutex> Lock(state().Mutex);
    state().Conditions.erase(uint64_t(uintptr_t(Value)));
  }
  release(Value, false);
}

cudaError_t createConditionalHandle(uint64_t *Out, Graph *G, unsigned Default, unsigned Flags) {
  if (!Out || Flags > 1)
    return fail(cudaErrorInvalidValue);
  if (cudaError_t E = checkGraph(G))
    return E;
  void *P = nullptr;
  if (cudaError_t E = allocate(&P, sizeof(unsigned), loader::MemoryKind::Device))
    return E;
  auto H = std::make_shared<ConditionalHandle>();
  H->Value = P;
  H->Default = Default;
  H->AssignDefault = Flags == 1;
  if (cudaError_t E = copy(P, &Default, sizeof Default, cudaMemcpyHostToDevice, nullptr, true))
    return E;
  G->Conditions.push_back(H);
  *Out = uint64_t(uintptr_t(P));
  std::lock_guard<std::recursive_mutex> Lock(state().Mutex);
  state().Conditions[*Out] = H;
  return cudaSuccess;
}

cudaError_t readConditional(uint64_t Handle, int Type, unsigned Size, GraphNode &N) {
  std::shared_ptr<ConditionalHandle> H;
  {
    std::lock_guard<std::recursive_mutex> Lock(state().Mutex);
    auto It = state().Conditions.find(Handle);
    if (It != state().Conditions.end())
      H = It->second.lock();
  }
  if (!H)
    return fail(cudaErrorInvalidValue, formatv("no conditional handle {0:x}", Handle).str());
  const bool SizeFits = Type == 0 ? Size == 1 || Size == 2 : Type == 1 ? Size == 1 : Size >= 1;
  if (Type < 0 || Type > 2 || !SizeFits)
    return fail(cudaErrorInvalidValue,
                formatv("a conditional node of type {0} with {1} bodies", Type, Size).str());
  N.Kind = NodeKind::Conditional;
  N.ConditionalType = Type;
  N.Condition = H;
  N.Bodies.clear();
  N.BodyHandles.clear();
  for (unsigned I = 0; I < Size; ++I) {
    N.Bodies.push_back(std::make_unique<Graph>());
    N.BodyHandles.push_back(N.Bodies.back().get());
  }
  return cudaSuccess;
}

//===-- graph memory -------------------------------------------------------===//

cudaError_t makeGraphMemory(size_t Bytes, std::shared_ptr<GraphMemory> &Out) {
  if (!Bytes)
    return fail(cudaErrorInvalidValue, "a graph allocation of 0 bytes");
  void *P = nullptr;
  if (cudaError_t E = allocate(&P, Bytes, loader::MemoryKind::Device))
    return E;
  Out = std::make_shared<GraphMemory>();
  Out->Ptr = P;
  Out->Bytes = Bytes;
  GraphState &St = state();
  std::lock_guard<std::recursive_mutex> Lock(St.Mutex);
  St.Memory[P] = Out.get();
  noteUse(St.Reserved, St.ReservedHigh, int64_t(Bytes));
  return cudaSuccess;
}

bool freeGraphMemory(void *Ptr) {
  GraphState &St = state();
  std::lock_guard<std::recursive_mutex> Lock(St.Mutex);
  auto It = St.Memory.find(Ptr);
  if (It == St.Memory.end())
    return false;
  if (It->second->Live)
    St.Used -= It->second->Bytes;
  It->second->Live = false;
  return true;
}

cudaError_t graphMemAttribute(int Attribute, uint64_t *Value, bool Reset) {
  if (!Value)
    return fail(cudaErrorInvalidValue);
  GraphState &St = state();
  std::lock_guard<std::recursive_mutex> Lock(St.Mutex);
  uint64_t *Slots[] = {&St.Used, &St.UsedHigh, &St.Reserved, &St.ReservedHigh};
  if (Attribute < 0 || Attribute > 3 || (Reset && (Attribute % 2 == 0 || *Value != 0)))
    return fail(cudaErrorInvalidValue, formatv("graph memory attribute {0}", Attribute).str());
  if (Reset)
    *Slots[Attribute] = *Slots[Attribute - 1];
  else
    *Value = *Slots[Attribute];
  return cudaSuccess;
}

//===-- user objects -------------------------------------------------------===//

cudaError_t createUserObject(UserObject **Out, void *Ptr, void (*Destroy)(void *),
                             unsigned InitialCount, unsigned Flags) {
  constexpr unsigned NoDestructorSync = 1;
  if (!Out || !Destroy || !InitialCount || Flags != NoDestructorSync)
    return fail(cudaErrorInvalidValue);
  auto *O = new UserObject{Ptr, Destroy, InitialCount};
  std::lock_guard<std::recursive_mutex> Lock(state().Mutex);
  state().UserObjects.insert(O);
  *Out = O;
  return cudaSuccess;
}

cudaError_t retainUserObject(UserObject *O, unsigned Count) {
  std::lock_guard<std::recursive_mutex> Lock(state().Mutex);
  if (!Count || !state().UserObjects.count(O))
    return fail(cudaErrorInvalidValue);
  O->Count += Count;
  return cudaSuccess;
}

cudaError_t releaseUserObject(UserObject *O, unsigned Count) {
  {
    std::lock_guard<std::recursive_mutex> Lock(state().Mutex);
    if (!Count || !state().UserObjects.count(O))
      return fail(cudaErrorInvalidValue);
  }
  releaseReference(O, Count);
  return cudaSuccess;
}

cudaError_t graphRetainUserObject(Graph *G, UserObject *O, unsigned Count, unsigned Flags) {
  constexpr unsigned Move = 1; // cudaGraphUserObjectMove: the caller's references move
  if (cudaError_t E = checkGraph(G))
    return E;
  if (Flags & ~Move)
    return fail(cudaErrorInvalidValue);
  if (!(Flags & Move))
    if (cudaError_t E = retainUserObject(O, Count))
      return E;
  std::lock_guard<std::recursive_mutex> Lock(state().Mutex);
  if (!Count || !state().UserObjects.count(O))
    return fail(cudaErrorInvalidValue);
  for (auto &[Held, N] : G->UserObjects)
    if (Held == O) {
      N += Count;
      return cudaSuccess;
    }
  G->UserObjects.emplace_back(O, Count);
  return cudaSuccess;
}

cudaError_t graphReleaseUserObject(Graph *G, UserObject *O, unsigned Count) {
  if (cudaError_t E = checkGraph(G))
    return E;
  unsigned Released = 0;
  {
    std::lock_guard<std::recursive_mutex> Lock(state().Mutex);
    for (auto It = G->UserObjects.begin(); It != G->UserObjects.end(); ++It)
      if (It->first == O) {
        if (!Count || Count > It->second)
          return fail(cudaErrorInvalidValue);
        Released = Count;
        if (!(It->second -= Count))
          G->UserObjects.erase(It);
        break;
      }
  }
  if (!Released)
    return fail(cudaErrorInvalidValue, "the graph holds no reference to the object");
  releaseReference(O, Released);
  return cudaSuccess;
}

//===-- stream capture -----------------------------------------------------===//

bool isCapturing(cudaStream_t S) {
  if (ActiveCaptures.load(std::memory_order_acquire) == 0)
    return false;
  std::lock_guard<std::recursive_mutex> Lock(state().Mutex);
  return findCapture(S) != nullptr;
}

cudaError_t beginCapture(cudaStream_t S, int Mode, Graph *Into, GraphNode *const *Deps,
                         size_t NumDeps) {
  if (Mode < 0 || Mode > 2)
    return fail(cudaErrorInvalidValue, formatv("capture mode {0}", Mode).str());
  if (isLegacy(S))
    return fail(cudaErrorStreamCaptureUnsupported, "the legacy default stream cannot capture");
  unsigned Flags;
  if (cudaError_t E = streamFlags(S, Flags))
    return E;
  if (Into)
    if (cudaError_t E = checkGraph(Into))
      return E;
  if (cudaError_t E = checkDependencies(Into, Deps, NumDeps))
    return E;
  GraphState &St = state();
  std::lock_guard<std::recursive_mutex> Lock(St.Mutex);
  if (findCapture(S))
    return fail(cudaErrorIllegalState, "the stream is capturing already");
  auto Cap = std::make_shared<Capture>();
  Cap->Owned = !Into;
  Cap->Into = Into ? Into : new Graph;
  Cap->Id = St.NextCaptureId++;
  Cap->Mode = Mode;
  Cap->Origin = streamKey(S);
  Cap->Thread = std::this_thread::get_id();
  St.Streams[streamKey(S)] = {Cap, std::vector<GraphNode *>(Deps, Deps + NumDeps)};
  ActiveCaptures.fetch_add(1, std::memory_order_release);
  return cudaSuccess;
}

cudaError_t endCapture(cudaStream_t S, Graph **Out) {
  GraphState &St = state();
  std::unique_lock<std::recursive_mutex> Lock(St.Mutex);
  StreamCapture *SC = findCapture(S);
  if (!SC)
    return fail(cudaErrorIllegalState, "the stream is not capturing");
  std::shared_ptr<Capture> Cap = SC->Cap;
  // A capture into the program's own graph need not hand it back.
  Graph *Unused = nullptr;
  if (!Out && Cap->Owned)
    return fail(cudaErrorInvalidValue);
  if (!Out)
    Out = &Unused;
  if (Cap->Origin != streamKey(S)) {
    Cap->Invalid = cudaErrorStreamCaptureUnmatched;
    return fail(cudaErrorStreamCaptureUnmatched, "the capture began in another stream");
  }
  if (Cap->Mode != 2 && Cap->Thread != std::this_thread::get_id())
    return fail(cudaErrorStreamCaptureWrongThread);
  const std::vector<GraphNode *> Joined = SC->Frontier;
  cudaError_t Why = Cap->Invalid;
  for (auto It = St.Streams.begin(); It != St.Streams.end();) {
    if (It->second.Cap != Cap) {
      ++It;
      continue;
    }
    // Another stream's last work must be joined into the origin stream's.
    if (!Why)
      for (const GraphNode *N : It->second.Frontier)
        if (!reaches(N, Joined))
          Why = cudaErrorStreamCaptureUnjoined;
    It = St.Streams.erase(It);
  }
  std::erase_if(St.Events, [&](const auto &E) { return E.second.Cap == Cap; });
  ActiveCaptures.fetch_sub(1, std::memory_order_release);
  if (Why) {
    *Out = nullptr;
    if (Cap->Owned)
      delete Cap->Into;
    Lock.unlock();
    return fail(Why == cudaErrorStreamCaptureUnjoined ? Why : cudaErrorStreamCaptureInvalidated);
  }
  *Out = Cap->Into;
  return cudaSuccess;
}

cudaError_t captureInfo(cudaStream_t S, int *Status, unsigned long long *Id, void **Graph,
                        const void **Dependencies, const void **EdgeData, size_t *Count) {
  if (!Status)
    return fail(cudaErrorInvalidValue);
  unsigned Flags;
  if (cudaError_t E = streamFlags(S, Flags))
    return E;
  std::lock_guard<std::recursive_mutex> Lock(state().Mutex);
  StreamCapture *SC = findCapture(S);
  if (!SC) {
    *Status = 0; // cudaStreamCaptureStatusNone; the other outputs are left as they are
    return cudaSuccess;
  }
  *Status = SC->Cap->Invalid ? 2 : 1; // invalidated, active
  if (Id)
    *Id = SC->Cap->Id;
  if (Graph)
    *Graph = SC->Cap->Into;
  if (Dependencies)
    *Dependencies = SC->Frontier.data();
  if (EdgeData)
    *EdgeData = nullptr; // every edge is a default one
  if (Count)
    *Count = SC->Frontier.size();
  return cudaSuccess;
}

cudaError_t updateCaptureDependencies(cudaStream_t S, GraphNode *const *Deps, size_t NumDeps,
                                      unsigned Flags) {
  if (Flags > 1)
    return fail(cudaErrorInvalidValue);
  std::lock_guard<std::recursive_mutex> Lock(state().Mutex);
  StreamCapture *SC = findCapture(S);
  if (!SC)
    return fail(cudaErrorIllegalState, "the stream is not capturing");
  if (cudaError_t E = checkDependencies(SC->Cap->Into, Deps, NumDeps))
    return E;
  std::vector<GraphNode *> New(Deps, Deps + NumDeps);
  if (Flags == 1)
    SC->Frontier = New;
  else
    addUnique(SC->Frontier, New);
  return cudaSuccess;
}

cudaError_t captureNode(cudaStream_t S, const GraphNode &Proto) {
  std::lock_guard<std::recursive_mutex> Lock(state().Mutex);
  StreamCapture *SC = findCapture(S);
  if (!SC)
    return fail(cudaErrorIllegalState, "the stream is not capturing");
  if (SC->Cap->Invalid)
    return fail(cudaErrorStreamCaptureInvalidated);
  if (SC->Cap->Mode != 2 && SC->Cap->Thread != std::this_thread::get_id() && SC->Cap->Mode == 1)
    return fail(cudaErrorStreamCaptureWrongThread);
  GraphNode *N = addNodeUnchecked(SC->Cap->Into, SC->Frontier, Proto);
  SC->Frontier = {N};
  return cudaSuccess;
}

std::optional<cudaError_t> captureRecordEvent(cudaEvent_t E, cudaStream_t S) {
  if (ActiveCaptures.load(std::memory_order_acquire) == 0)
    return std::nullopt;
  GraphState &St = state();
  std::lock_guard<std::recursive_mutex> Lock(St.Mutex);
  StreamCapture *SC = findCapture(S);
  if (!SC) {
    St.Events.erase(E); // recorded outside the capture now
    return std::nullopt;
  }
  if (SC->Cap->Invalid)
    return fail(cudaErrorStreamCaptureInvalidated);
  St.Events[E] = {SC->Cap, SC->Frontier};
  return cudaSuccess;
}

std::optional<cudaError_t> captureWaitEvent(cudaStream_t S, cudaEvent_t E) {
  if (ActiveCaptures.load(std::memory_order_acquire) == 0)
    return std::nullopt;
  GraphState &St = state();
  std::lock_guard<std::recursive_mutex> Lock(St.Mutex);
  auto It = St.Events.find(E);
  StreamCapture *SC = findCapture(S);
  if (It == St.Events.end()) // an event of work outside any capture: waited for now
    return std::nullopt;
  const EventCapture &EC = It->second;
  if (SC) {
    if (SC->Cap != EC.Cap)
      return fail(cudaErrorStreamCaptureIsolation, "the event was recorded in another capture");
    addUnique(SC->Frontier, EC.Frontier);
    return cudaSuccess;
  }
  if (isLegacy(S))
    return fail(cudaErrorStreamCaptureImplicit, "the legacy default stream cannot join a capture");
  unsigned Flags;
  if (cudaError_t R = streamFlags(S, Flags))
    return R;
  // The stream joins the capture (a fork): its work follows the event's.
  St.Streams[streamKey(S)] = {EC.Cap, EC.Frontier};
  return cudaSuccess;
}

std::optional<cudaError_t> refuseWhileCapturing(cudaStream_t S) {
  if (ActiveCaptures.load(std::memory_order_acquire) == 0)
    return std::nullopt;
  std::lock_guard<std::recursive_mutex> Lock(state().Mutex);
  StreamCapture *SC = findCapture(S);
  if (!SC)
    return std::nullopt;
  SC->Cap->Invalid = cudaErrorStreamCaptureInvalidated;
  return fail(cudaErrorStreamCaptureUnsupported, "waiting for a capturing stream");
}

int &threadCaptureMode() {
  thread_local int Mode = 0; // cudaStreamCaptureModeGlobal
  return Mode;
}

std::optional<cudaError_t> refuseUnsafeCall(const char *What) {
  if (ActiveCaptures.load(std::memory_order_acquire) == 0)
    return std::nullopt;
  const int Mine = threadCaptureMode();
  if (Mine == 2) // cudaStreamCaptureModeRelaxed
    return std::nullopt;
  GraphState &St = state();
  std::lock_guard<std::recursive_mutex> Lock(St.Mutex);
  const std::thread::id Self = std::this_thread::get_id();
  bool Refused = false;
  for (auto &[Key, SC] : St.Streams) {
    Capture &Cap = *SC.Cap;
    // The thread's own captures forbid it unless relaxed; other threads' only global ones, and
    // only while this thread's own mode is global.
    bool Forbids = Cap.Thread == Self ? Cap.Mode != 2 : Mine == 0 && Cap.Mode == 0;
    if (Forbids) {
      Cap.Invalid = cudaErrorStreamCaptureInvalidated;
      Refused = true;
    }
  }
  if (!Refused)
    return std::nullopt;
  return fail(cudaErrorStreamCaptureUnsupported,
              formatv("{0} while a stream capture forbids unsafe calls", What).str());
}

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
