//===- StreamCapture.cpp - stream capture into graphs, for both APIs ===//
//
// See Graphs.h. The work a capturing stream is given becomes a node after the stream's
// frontier; events carry frontiers from stream to stream (fork and join), and calls that would
// wait for captured work, or that a capture's mode forbids, invalidate it.

#include "GraphState.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <unordered_set>

using namespace llvm;

namespace ptx2amd::runtime {

using namespace graphs;

namespace {

std::atomic<int> ActiveCaptures{0};

/// What names a stream in the capture table: each thread's per-thread default stream is its own.
const void *streamKey(cudaStream_t S) { return resolveStream(S); }

bool isLegacy(cudaStream_t S) {
  S = resolveStream(S);
  return S == nullptr || S == StreamLegacy;
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

StreamCapture *findCapture(cudaStream_t S) {
  auto It = state().Streams.find(streamKey(S));
  return It == state().Streams.end() ? nullptr : &It->second;
}

} // namespace

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

} // namespace ptx2amd::runtime
