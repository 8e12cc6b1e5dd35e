//===- HsaQueues.cpp - the HSA device's streams: queues, dispatch, events, device output ===//
//
// One AQL queue per stream: kernels and event markers are its packets (the barrier bit keeps
// them in order), finished work is reclaimed lazily, and synchronizing a stream prints the
// device output of the modules it ran and reports their failed assertions.

#include "HsaObjects.h"

#include "ptx2amd/amdgpu-backend/DeviceOutput.h"
#include "ptx2amd/amdgpu-backend/KernelFault.h"

#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

using namespace llvm;

namespace ptx2amd::loader::hsa {
namespace {

void onQueueError(hsa_status_t S, hsa_queue_t *, void *Data) {
  uint32_t Expected = HSA_STATUS_SUCCESS;
  static_cast<HsaDevice *>(Data)->QueueFailure.compare_exchange_strong(Expected, uint32_t(S));
}

} // namespace

HsaStream::~HsaStream() {
  std::lock_guard<std::mutex> Lock(Mutex);
  // Failures of this work were the caller's to collect by synchronizing.
  consumeError(Dev.drain(*this));
  hsa_queue_destroy(Queue);
}

Error HsaDevice::checkQueues() const {
  uint32_t S = QueueFailure.load();
  if (S == HSA_STATUS_SUCCESS)
    return Error::success();
  amdgpu::FaultKind Kind = amdgpu::FaultKind::Other;
  switch (S) {
  case HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION:
  case HSA_STATUS_ERROR_MEMORY_FAULT:
    Kind = amdgpu::FaultKind::MemoryFault;
    break;
  case HSA_STATUS_ERROR_EXCEPTION:
    Kind = amdgpu::FaultKind::Trap;
    break;
  default:
    break;
  }
  return amdgpu::makeFault(Kind, "device work failed earlier: " + statusName(hsa_status_t(S)));
}

Error HsaDevice::waitFor(hsa_signal_t Signal) {
  // In slices of 100 ms: a failed queue never lowers the signal, and says so in QueueFailure.
  for (;;) {
    hsa_signal_value_t V = hsa_signal_wait_scacquire(Signal, HSA_SIGNAL_CONDITION_LT, 1,
                                                     TimestampHz / 10, HSA_WAIT_STATE_BLOCKED);
    if (V < 0)
      return fail(ErrorKind::Internal, "device work failed (completion signal " + Twine(V) + ")");
    if (V == 0)
      return Error::success();
    if (Error E = checkQueues())
      return E;
  }
}

Expected<HsaStream *> HsaDevice::newStream() {
  hsa_queue_t *Q = nullptr;
  PTX2AMD_HSA_CHECK(hsa_queue_create(Gpu, QueueSize, HSA_QUEUE_TYPE_MULTI, onQueueError, this,
                                     UINT32_MAX, UINT32_MAX, &Q));
  // Timestamps on completion signals, for elapsedMs().
  if (hsa_status_t S = hsa_amd_profiling_set_profiler_enabled(Q, 1); S != HSA_STATUS_SUCCESS) {
    hsa_queue_destroy(Q);
    return hsaError(S, "hsa_amd_profiling_set_profiler_enabled");
  }
  return new HsaStream(*this, Q);
}

void HsaDevice::reclaim(HsaStream &St) {
  while (!St.InFlight.empty() && hsa_signal_load_scacquire(St.InFlight.front().Done) < 1) {
    hsa_signal_destroy(St.InFlight.front().Done);
    if (St.InFlight.front().Kernarg)
      hsa_amd_memory_pool_free(St.InFlight.front().Kernarg);
    if (St.InFlight.front().Workspace)
      hsa_amd_memory_pool_free(St.InFlight.front().Workspace);
    St.InFlight.pop_front();
  }
  if (St.InFlight.empty())
    St.LastOutsideQueue = false;
}

Error HsaDevice::drain(HsaStream &St) {
  Error E = St.InFlight.empty() ? Error::success() : waitFor(St.InFlight.back().Done);
  if (!E)
    reclaim(St);
  return E;
}

Error HsaDevice::submit(HsaStream &St, const void *Packet) {
  hsa_queue_t *Q = St.Queue;
  uint64_t Index = hsa_queue_add_write_index_scacq_screl(Q, 1);
  while (Index - hsa_queue_load_read_index_scacquire(Q) >= Q->size) {
    if (Error E = checkQueues())
      return E;
    std::this_thread::yield();
  }
  void *Slot = static_cast<uint8_t *>(Q->base_address) + (Index & (Q->size - 1)) * 64;
  hsa::writeAqlPacket(Slot, Packet);
  hsa_signal_store_screlease(Q->doorbell_signal, hsa_signal_value_t(Index));
  return Error::success();
}

Error HsaDevice::orderPackets(HsaStream &St, uint64_t Completion) {
  if (!St.LastOutsideQueue && !Completion)
    return Error::success();
  SmallVector<uint64_t, 1> Deps;
  if (St.LastOutsideQueue)
    Deps.push_back(St.InFlight.back().Done.handle);
  auto B = hsa::makeBarrierPacket(Deps, Completion);
  if (!B)
    return B.takeError();
  St.LastOutsideQueue = false;
  return submit(St, &*B);
}

Error HsaDevice::launch(const Kernel &K, const amdgpu::LaunchGeometry &G, void **Args, Stream *S,
                        const LaunchOptions &O) {
  const auto &HK = static_cast<const HsaKernel &>(K);
  const amdgpu::KernelMetadata &Meta = HK.Meta;
  const uint64_t Lds =
      Meta.GroupSegmentFixedSize + (G.DynamicSharedAddress ? 0 : G.DynamicLdsBytes);
  if (Lds > Props.LdsBytesPerWorkgroup)
    return fail(ErrorKind::OutOfResources, "kernel '" + Meta.Name + "' needs " + Twine(Lds) +
                                               " bytes of LDS; the device has " +
                                               Twine(Props.LdsBytesPerWorkgroup));
  HsaStream &St = stream(S);
  std::lock_guard<std::mutex> Lock(St.Mutex);
  if (Error E = checkQueues())
    return E;
  reclaim(St);
  auto Kernarg = poolAllocate(Mem.Kernarg, Meta.KernargSegmentSize, false);
  if (!Kernarg)
    return Kernarg.takeError();
  // A cooperative launch is an ordinary dispatch (the runtime checked that its workgroups are
  // co-resident, and AMDGPU then runs them all at once) with a grid workspace in device memory,
  // zeroed: cooperative_groups' grid barrier counts arrivals in it.
  void *Workspace = nullptr;
  if (O.Cooperative) {
    auto W = poolAllocate(Mem.Device, 256, true);
    if (!W) {
      hsa_amd_memory_pool_free(*Kernarg);
      return W.takeError();
    }
    Workspace = *W;
  }
  auto FreeBuffers = [&] {
    hsa_amd_memory_pool_free(*Kernarg);
    if (Workspace)
      hsa_amd_memory_pool_free(Workspace);
  };
  hsa_signal_t Done;
  if (hsa_status_t R = hsa_signal_create(1, 0, nullptr, &Done); R != HSA_STATUS_SUCCESS) {
    FreeBuffers();
    return hsaError(R, "hsa_signal_create");
  }
  amdgpu::HiddenArgValues H;
  H.QueuePtr = reinterpret_cast<uint64_t>(St.Queue);
  H.MultigridSyncArg = reinterpret_cast<uint64_t>(Workspace);
  auto Packet = hsa::prepareDispatch(
      Meta, Args, G, H,
      MutableArrayRef<uint8_t>(static_cast<uint8_t *>(*Kernarg), Meta.KernargSegmentSize),
      HK.Object, Done.handle);
  Error E = Packet ? orderPackets(St, 0) : Packet.takeError();
  if (!E)
    E = submit(St, &*Packet);
  if (E) {
    hsa_signal_destroy(Done);
    FreeBuffers();
    return E;
  }
  St.InFlight.push_back({Done, *Kernarg, Workspace});
  if (HK.Output && !llvm::is_contained(St.Outputs, HK.Output))
    St.Outputs.push_back(HK.Output);
  return Error::success();
}

Expected<std::unique_ptr<Stream>> HsaDevice::createStream() {
  auto St = newStream();
  if (!St)
    return St.takeError();
  return std::unique_ptr<Stream>(*St);
}

Error HsaDevice::drainOutput(HsaStream &St) {
  std::string Assertions;
  for (const std::shared_ptr<OutputBuffer> &B : St.Outputs) {
    auto Out = amdgpu::readDeviceOutput(ArrayRef<uint8_t>(B->Data, OutputBufferBytes));
    // Emptied for the next launches: the used and dropped counts.
    std::memset(B->Data + 4, 0, 8);
    if (!Out) {
      Assertions += "\n  " + B->Module + ": unreadable device output: " + toString(Out.takeError());
      continue;
    }
    // Device printf goes where the program's own printf goes.
    if (!Out->Text.empty()) {
      std::fwrite(Out->Text.data(), 1, Out->Text.size(), stdout);
      std::fflush(stdout);
    }
    if (Out->Dropped)
      std::fprintf(stderr, "ptx2amd: '%s': %u device printf records did not fit the buffer\n",
                   B->Module.c_str(), Out->Dropped);
    for (const std::string &A : Out->Assertions)
      Assertions += "\n  " + A;
  }
  St.Outputs.clear();
  if (Assertions.empty())
    return Error::success();
  return amdgpu::makeFault(amdgpu::FaultKind::Assertion,
                           "a kernel failed a device assertion:" + Assertions);
}

Error HsaDevice::synchronize(Stream *S) {
  HsaStream &St = stream(S);
  std::lock_guard<std::mutex> Lock(St.Mutex);
  Error E = drain(St);
  if (!E)
    E = checkQueues();
  // A failed assertion traps, which fails the queue: the assertion is what to report.
  if (Error Asserted = drainOutput(St)) {
    consumeError(std::move(E));
    return Asserted;
  }
  return E;
}

Expected<std::unique_ptr<Event>> HsaDevice::createEvent() {
  hsa_signal_t Done;
  PTX2AMD_HSA_CHECK(hsa_signal_create(0, 0, nullptr, &Done));
  return std::make_unique<HsaEvent>(Done);
}

Error HsaDevice::record(Event &E, Stream *S) {
  auto &HE = static_cast<HsaEvent &>(E);
  // A marker still pending from an earlier record() would lower the reset value too early.
  if (Error Err = waitFor(HE.Done))
    return Err;
  HsaStream &St = stream(S);
  std::lock_guard<std::mutex> Lock(St.Mutex);
  if (Error Err = checkQueues())
    return Err;
  reclaim(St);
  hsa_signal_store_screlease(HE.Done, 1);
  // A marker packet: it completes after the stream's earlier work and carries a timestamp.
  if (Error Err = orderPackets(St, HE.Done.handle)) {
    hsa_signal_store_screlease(HE.Done, 0);
    return Err;
  }
  HE.Recorded = true;
  return Error::success();
}

Error HsaDevice::synchronize(Event &E) { return waitFor(static_cast<HsaEvent &>(E).Done); }

Expected<bool> HsaDevice::isComplete(Event &E) {
  if (Error Err = checkQueues())
    return Err;
  return hsa_signal_load_scacquire(static_cast<HsaEvent &>(E).Done) < 1;
}

Expected<float> HsaDevice::elapsedMs(Event &Start, Event &End) {
  uint64_t Ends[2];
  Event *Events[] = {&Start, &End};
  for (unsigned I = 0; I < 2; ++I) {
    auto &HE = static_cast<HsaEvent &>(*Events[I]);
    if (!HE.Recorded)
      return fail(ErrorKind::BadInput, "elapsed time of an event that was never recorded");
    if (hsa_signal_load_scacquire(HE.Done) >= 1)
      return fail(ErrorKind::BadInput, "elapsed time of an event that is not complete");
    hsa_amd_profiling_dispatch_time_t T;
    PTX2AMD_HSA_CHECK(hsa_amd_profiling_get_dispatch_time(Gpu, HE.Done, &T));
    Ends[I] = T.end;
  }
  return float((double(Ends[1]) - double(Ends[0])) * 1000.0 / double(TimestampHz));
}

} // namespace ptx2amd::loader::hsa
