//===- GraphState.h - what the graph files share: their state and helpers -*- C++ -*-===//
//
// Private to the files behind Graphs.h: Graphs.cpp (graphs, nodes, conditions, graph memory,
// user objects), GraphExec.cpp (instantiation, launch, update), StreamCapture.cpp and
// GraphNodeParams.cpp (node parameters and queries). What outlives a call lives here, with the
// helpers more than one of them uses.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Graphs.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ptx2amd::runtime::graphs {

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

GraphState &state();

/// Moves a graph memory counter by \p Delta and its highest value with it.
void noteUse(uint64_t &Current, uint64_t &High, int64_t Delta);
/// cudaErrorInvalidValue unless \p Deps are distinct nodes of \p G.
cudaError_t checkDependencies(const Graph *G, GraphNode *const *Deps, size_t NumDeps);
/// Adds \p Proto as a node of \p G after \p Deps, which are checked already.
GraphNode *addNodeUnchecked(Graph *G, const std::vector<GraphNode *> &Deps, const GraphNode &Proto);

} // namespace ptx2amd::runtime::graphs
