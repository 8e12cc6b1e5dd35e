//===- Graphs.cpp - CUDA graphs and their nodes, conditions, memory and user objects ===//
//
// See Graphs.h. The other graph files share GraphState.h with this one: GraphExec.cpp
// instantiates, launches and updates graphs, StreamCapture.cpp records them from streams, and
// GraphNodeParams.cpp reads and writes nodes' parameters for both APIs.

#include "GraphState.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <functional>
#include <mutex>
#include <unordered_map>

using namespace llvm;

namespace ptx2amd::runtime {

struct UserObject {
  void *Ptr = nullptr;
  void (*Destroy)(void *) = nullptr;
  unsigned Count = 0;
};

namespace graphs {

GraphState &state() {
  static GraphState *S = new GraphState;
  return *S;
}

void noteUse(uint64_t &Current, uint64_t &High, int64_t Delta) {
  Current += uint64_t(Delta);
  High = std::max(High, Current);
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

} // namespace graphs

using namespace graphs;

namespace {

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

} // namespace ptx2amd::runtime
