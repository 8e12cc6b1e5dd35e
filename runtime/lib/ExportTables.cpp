//===- ExportTables.cpp - cuGetExportTable: the driver's private interfaces ===//
//
// NVIDIA's static runtime (libcudart_static, linked into every program nvcc builds by default
// and into NVIDIA's own libraries) reaches parts of the driver through tables of function
// pointers that cuGetExportTable hands out by UUID (../shared/notes/static-cudart.md). Each
// table here lists its slots; a slot the runtime was not seen to call is a stub that says so at
// PTX2AMD_LOG=debug, as does an unknown UUID.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "IntegrityCheck.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <array>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <pthread.h>
#include <unistd.h>

using namespace ptx2amd::runtime;
using llvm::formatv;

namespace {

/// Where unusedSlot<Table, Slot>() finds its table's name and UUID (tables(), below).
struct TableEntry;
const std::vector<TableEntry> &tables();
std::string slotOwner(const void *Slot, unsigned &Index);

/// A slot nobody was seen to call: says so once at PTX2AMD_LOG=info (the table by name and
/// UUID, the slot, and the first four integer argument registers as they came, which tell the
/// next reader what the caller passed), and fails the call.
template <unsigned Table, unsigned Slot>
CUresult unusedSlot(uintptr_t A0, uintptr_t A1, uintptr_t A2, uintptr_t A3) {
  static std::once_flag Once;
  std::call_once(Once, [&] {
    unsigned Index = Slot;
    std::string Owner = slotOwner(reinterpret_cast<const void *>(&unusedSlot<Table, Slot>), Index);
    log(ptx2amd::loader::LogLevel::Info,
        formatv("cuGetExportTable: {0} slot {1} called ({2:x}, {3:x}, {4:x}, {5:x}), which "
                "ptx2amd does not implement",
                Owner, Index, A0, A1, A2, A3)
            .str());
  });
  return CUDA_ERROR_NOT_SUPPORTED;
}

template <unsigned Table, size_t... Slot>
constexpr std::array<void *, sizeof...(Slot)> unusedSlots(std::index_sequence<Slot...>) {
  return {reinterpret_cast<void *>(&unusedSlot<Table, unsigned(Slot)>)...};
}

/// A table of \p N slots, each unusedSlot until set; slot 0 holds the table's size where the
/// table has one. \p Table only tells the instantiations of unusedSlot apart.
template <unsigned Table, size_t N> struct SlotTable {
  std::array<void *, N> Slots = unusedSlots<Table>(std::make_index_sequence<N>());
  SlotTable &sized() {
    Slots[0] = reinterpret_cast<void *>(N * sizeof(void *));
    return *this;
  }
  template <typename Fn> SlotTable &set(size_t I, Fn *F) {
    Slots[I] = reinterpret_cast<void *>(F);
    return *this;
  }
  SlotTable &null(size_t I) {
    Slots[I] = nullptr;
    return *this;
  }
};

struct TableEntry {
  const char *Name;
  uint8_t Uuid[16];
  void *const *Slots;
  size_t Count; ///< slots
};

std::string uuidText(const void *Bytes) {
  return llvm::toHex(llvm::ArrayRef(static_cast<const uint8_t *>(Bytes), 16), /*LowerCase=*/true);
}

//===-- CUDART_INTERFACE ---------------------------------------------------===//

/// [2]: the device's primary context, neither retained nor made current (the runtime does both
/// itself, through the public API).
CUresult primaryContext(CUcontext *Ctx, CUdevice Device) {
  return driverCall([&] {
    if (!Ctx)
      return fail(cudaErrorInvalidValue);
    if (Device != 0)
      return fail(cudaErrorInvalidDevice);
    *Ctx = reinterpret_cast<CUcontext>(&driverState().PrimaryContext);
    return cudaSuccess;
  });
}

/// A module of the current context from a __fatBinC_Wrapper_t (or, \p IsHeader, from the fatbin
/// container it points to).
cudaError_t moduleFromFatbin(CUmodule *Module, const void *Image, bool IsHeader) {
  if (!Module || !Image)
    return fail(cudaErrorInvalidValue);
  std::string Name = IsHeader ? "fatbin" : "registered fatbin";
  return loadInCurrentContext(
      Module,
      [&](ptx2amd::loader::ModuleLoader &L) {
        return IsHeader ? L.open(imageBytes(Image), Name) : L.openWrapper(Image, Name);
      },
      Name, /*ErrorLog=*/nullptr, Image);
}

// [1]: a module from a fatbin wrapper.
CUresult moduleFromWrapper(CUmodule *Module, const void *Wrapper) {
  return driverCall([&] { return moduleFromFatbin(Module, Wrapper, false); });
}
// [6]: the same, with arguments the runtime leaves null (anything else is refused).
CUresult moduleFromWrapperEx(CUmodule *Module, const void *Wrapper, void *A3, void *A4, unsigned) {
  return driverCall([&] {
    if (A3 || A4)
      return fail(cudaErrorNotSupported, "CUDART_INTERFACE slot 6 with extra arguments");
    return moduleFromFatbin(Module, Wrapper, false);
  });
}
// [8]: from the fatbin container itself, module second.
CUresult moduleFromHeaderEx(const void *Header, CUmodule *Module, void *A3, void *A4, unsigned A5) {
  return driverCall([&] {
    if (A3 || A4 || A5)
      return fail(cudaErrorNotSupported, "CUDART_INTERFACE slot 8 with extra arguments");
    return moduleFromFatbin(Module, Header, true);
  });
}
// [7]: takes a size, asks nothing of the driver.
CUresult cudartNotice(size_t) { return CUDA_SUCCESS; }

SlotTable<0, 10> &cudartInterface() {
  static SlotTable<0, 10> T = SlotTable<0, 10>()
                                  .sized()
                                  .set(1, &moduleFromWrapper)
                                  .set(2, &primaryContext)
                                  .set(6, &moduleFromWrapperEx)
                                  .set(7, &cudartNotice)
                                  .set(8, &moduleFromHeaderEx);
  return T;
}

//===-- TOOLS_TLS, TOOLS_RUNTIME_CALLBACK_HOOKS ---------------------------===//

// The slots the runtime calls around every launch to tell an attached tool (profiler, debugger)
// what it does. No tool is attached: they answer so (an empty slot crashes the runtime), and
// the runtime goes on without one.
CUresult noTool() { return CUDA_ERROR_NOT_SUPPORTED; }

// TOOLS_TLS [2]: the thread's current context, as cuCtxGetCurrent answers (null when it has
// none). The static runtime writes it into the records it would hand an attached tool (and
// ignores the result); cuBLAS asks it for the context whose stream slots it then calls
// (CONTEXT_STREAM_INTERNALS) and gives up with CUBLAS_STATUS_INTERNAL_ERROR when it fails.
CUresult toolsCurrentContext(CUcontext *Ctx) { return cuCtxGetCurrent(Ctx); }

SlotTable<1, 4> &toolsTls() {
  static SlotTable<1, 4> T = SlotTable<1, 4>().sized().set(2, &toolsCurrentContext);
  return T;
}

// [2], [6]: where tools' callbacks would be registered, as zeroed buffers the runtime reads
// (none registered): a 1024-byte one and one of 14 words.
void callbackHooks(void **Buffer, size_t *Size) {
  static uint8_t Hooks[1024];
  *Buffer = Hooks;
  *Size = sizeof Hooks;
}
void callbackCounts(void **Buffer, size_t *Size) {
  static uint32_t Counts[14];
  *Buffer = Counts;
  *Size = std::size(Counts);
}

SlotTable<2, 7> &toolsCallbackHooks() {
  static SlotTable<2, 7> T = SlotTable<2, 7>()
                                 .sized()
                                 .set(1, &noTool)
                                 .set(2, &callbackHooks)
                                 .set(4, &noTool)
                                 .set(6, &callbackCounts);
  return T;
}

//===-- CONTEXT_LOCAL_STORAGE_V0301 (no size slot) -------------------------===//

/// The context a slot names: \p Ctx, or the current one when null.
cudaError_t storageContext(CUcontext Ctx, DriverContext *&Out) {
  return Ctx ? contextOf(Ctx, Out) : currentContext(Out);
}

// [0]: keeps (value, destructor) under key for the context; the destructor runs when the
// context is reset or destroyed.
CUresult putLocal(CUcontext Ctx, void *Key, void *Value, LocalStorageDestructor Destructor) {
  return driverCall([&] {
    DriverContext *C = nullptr;
    if (cudaError_t E = storageContext(Ctx, C))
      return E;
    std::lock_guard<std::mutex> Lock(driverState().Mutex);
    C->LocalStorage[Key] = {Value, Destructor};
    return cudaSuccess;
  });
}

// [1]: forgets key's value, without its destructor.
CUresult deleteLocal(CUcontext Ctx, void *Key) {
  return driverCall([&] {
    DriverContext *C = nullptr;
    if (cudaError_t E = storageContext(Ctx, C))
      return E;
    std::lock_guard<std::mutex> Lock(driverState().Mutex);
    C->LocalStorage.erase(Key);
    return cudaSuccess;
  });
}

// [2]: key's value; CUDA_ERROR_INVALID_HANDLE when there is none, which tells the runtime to
// make its state for the context.
CUresult getLocal(void **Value, CUcontext Ctx, void *Key) {
  if (!driverInitialized())
    return CUDA_ERROR_NOT_INITIALIZED;
  DriverContext *C = nullptr;
  if (cudaError_t E = storageContext(Ctx, C))
    return toResult(E);
  std::lock_guard<std::mutex> Lock(driverState().Mutex);
  auto It = C->LocalStorage.find(Key);
  if (It == C->LocalStorage.end())
    return CUDA_ERROR_INVALID_HANDLE; // expected, not an error worth a log line
  *Value = It->second.first;
  return CUDA_SUCCESS;
}

// No size slot; [3] is empty.
SlotTable<3, 4> &contextLocalStorage() {
  static SlotTable<3, 4> T =
      SlotTable<3, 4>().set(0, &putLocal).set(1, &deleteLocal).set(2, &getLocal).null(3);
  return T;
}

//===-- CTX_CREATE_BYPASS, HEAP_ACCESS, DEVICE_EXTENDED_RT -----------------===//

SlotTable<4, 2> &ctxCreateBypass() {
  static SlotTable<4, 2> T = SlotTable<4, 2>().sized();
  return T;
}

SlotTable<5, 3> &heapAccess() {
  static SlotTable<5, 3> T = SlotTable<5, 3>().sized();
  return T;
}

SlotTable<6, 26> &deviceExtendedRt() {
  static SlotTable<6, 26> T = SlotTable<6, 26>().sized();
  return T;
}

//===-- INTEGRITY_CHECK, CONTEXT_CHECKS ------------------------------------===//

SlotTable<7, 3> &integrityTable();

/// What the runtime hashes about device \p Ordinal, read through the entry points that report
/// it, so that the runtime and the hash see the same values.
CUresult integrityDevice(int Ordinal, IntegrityDevice &Out) {
  CUdevice Device = 0;
  CUuuid Uuid{};
  if (CUresult R = cuDeviceGet(&Device, Ordinal))
    return R;
  if (CUresult R = cuDeviceGetUuid_v2(&Uuid, Device))
    return R;
  std::memcpy(Out.Uuid.data(), Uuid.bytes, Out.Uuid.size());
  // CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, _PCI_BUS_ID, _PCI_DEVICE_ID.
  const std::pair<int, int32_t *> Pci[] = {
      {50, &Out.PciDomain}, {33, &Out.PciBus}, {34, &Out.PciDevice}};
  for (auto [Attribute, Value] : Pci) {
    int V = 0;
    if (CUresult R = cuDeviceGetAttribute(&V, Attribute, Device))
      return R;
    *Value = V;
  }
  return CUDA_SUCCESS;
}

// [1]: the runtime's check that it talks to NVIDIA's driver: 16 bytes per runtime version it
// asks (IntegrityCheck.h). CUDA 13.0's asks 13000, 13001 and 13002, fails on any error, and
// compares the last answer with its own computation.
CUresult integrityCheck(uint32_t Version, uint64_t UnixSeconds, uint64_t *Out) {
  log(ptx2amd::loader::LogLevel::Debug, "cuGetExportTable: integrity check for runtime " +
                                            std::to_string(Version) + " at " +
                                            std::to_string(UnixSeconds));
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  IntegrityInputs In;
  int DriverVersion = 0, Count = 0;
  if (CUresult R = cuDriverGetVersion(&DriverVersion))
    return R;
  if (CUresult R = cuDeviceGetCount(&Count))
    return R;
  In.DriverVersion = uint32_t(DriverVersion);
  In.RuntimeVersion = Version;
  In.ProcessId = uint32_t(getpid());
  In.ThreadId = uint32_t(pthread_self());
  // The addresses cuGetExportTable hands out, and the function the runtime found in slot 1.
  In.CudartTable = reinterpret_cast<uintptr_t>(cudartInterface().Slots.data());
  In.IntegrityTable = reinterpret_cast<uintptr_t>(integrityTable().Slots.data());
  In.CheckFunction = reinterpret_cast<uintptr_t>(integrityTable().Slots[1]);
  In.UnixSeconds = UnixSeconds;
  In.Devices.resize(size_t(Count));
  for (int I = 0; I < Count; ++I)
    if (CUresult R = integrityDevice(I, In.Devices[size_t(I)]))
      return R;
  std::array<uint8_t, 16> Answer = integrityAnswer(In);
  std::memcpy(Out, Answer.data(), Answer.size());
  log(ptx2amd::loader::LogLevel::Debug,
      "cuGetExportTable: integrity answer " + llvm::toHex(Answer, /*LowerCase=*/true));
  return CUDA_SUCCESS;
}

SlotTable<7, 3> &integrityTable() {
  static SlotTable<7, 3> T = SlotTable<7, 3>().sized().set(1, &integrityCheck);
  return T;
}

// [2]: a check of a context the runtime is about to use; [3]: asked once at start-up (CUDA
// 12.3 and later). Both find nothing to object to.
CUresult checkContext(CUcontext, uint32_t *Result, void **) {
  if (Result)
    *Result = 0;
  return CUDA_SUCCESS;
}
CUresult checkStartup() { return CUDA_SUCCESS; }

SlotTable<8, 4> &contextChecks() {
  static SlotTable<8, 4> T = SlotTable<8, 4>().sized().set(2, &checkContext).set(3, &checkStartup);
  return T;
}

//===-- CONTEXT_STREAM_INTERNALS (21318c60-9714-3248-8ca6-41ff7324c8f2) ----===//
//
// Contexts' and streams' identities for NVIDIA's libraries, which key their per-context and
// per-stream state by them: cuBLAS (its workspace per stream: [51] then [39], with the context
// from TOOLS_TLS [2]) and cuFFT ([4], for each plan). Seen in their code, not documented; 93 slots
// is a public project's reading of NVIDIA's driver (unverified here), the rest of which is unknown.

/// The context a slot names (null: the current one) must be live.
cudaError_t liveContext(CUcontext Ctx) {
  DriverContext *C = nullptr;
  return Ctx ? contextOf(Ctx, C) : currentContext(C);
}

// [4]: the context's unique identity, as cuCtxGetId answers (a public project saw NVIDIA's
// driver give the same).
CUresult internalContextId(CUcontext Ctx, unsigned long long *Id) { return cuCtxGetId(Ctx, Id); }

// [51]: the stream \p Public names in \p Ctx, as a handle [39] takes: the legacy default
// stream (null, CU_STREAM_LEGACY) as CU_STREAM_LEGACY, the per-thread one (CU_STREAM_PER_THREAD,
// or null when \p PerThread, which cuBLAS sets exactly for CU_STREAM_PER_THREAD) as the
// thread's stream, any other as itself once checked.
CUresult internalStream(CUcontext Ctx, CUstream Public, CUstream *Internal, int PerThread) {
  return driverCall([&] {
    if (!Internal)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = liveContext(Ctx))
      return E;
    cudaStream_t S = Public;
    if (!S)
      S = PerThread ? StreamPerThread : StreamLegacy;
    if (S != StreamLegacy)
      S = resolveStream(S);
    unsigned Flags;
    if (cudaError_t E = streamFlags(S, Flags))
      return E;
    *Internal = S;
    return cudaSuccess;
  });
}

// [39]: the identity of a stream [51] gave, as cuStreamGetId answers.
CUresult internalStreamId(CUcontext Ctx, CUstream Internal, unsigned long long *Id) {
  return driverCall([&] {
    if (!Id)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = liveContext(Ctx))
      return E;
    return streamId(Internal, *Id);
  });
}

SlotTable<9, 93> &contextStreamInternals() {
  static SlotTable<9, 93> T = SlotTable<9, 93>()
                                  .sized()
                                  .set(4, &internalContextId)
                                  .set(39, &internalStreamId)
                                  .set(51, &internalStream);
  return T;
}

//===-- FUNCTION_INTERNALS (6e163fbe-b958-444d-835c-e182aff1991e) ---------===//
//
// Modules' functions for cuFFT, which loads each of its kernels as a module of its own
// (cuModuleLoadData of a fatbin in its .ldata, every one with a single .entry) and takes the
// kernel through [7] rather than by name. Its size, 64 slots, is a guess: cuFFT checks only
// that it is above 7 slots.

/// What [7] calls for each function: cuFFT's keeps the last one it is given.
using FunctionVisitor = void (*)(void *User, CUfunction Function);

// [7]: calls \p Visit for each function of \p Module, a module of \p Ctx (null: the current
// context's), and returns how many it visited; 0 when it visited none (no such module, a
// module that does not translate). cuFFT takes anything but 1 as a failure, which for its
// one-kernel modules a count and a success flag both give; which of the two NVIDIA's returns
// is not known.
int visitModuleFunctions(CUcontext Ctx, CUmodule Module, FunctionVisitor Visit, void *User) {
  std::vector<KernelRecord *> Functions;
  CUresult R = driverCall([&] {
    if (!Visit)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = liveContext(Ctx))
      return E;
    FatbinRecord *F = nullptr;
    if (cudaError_t E = moduleOf(Module, F))
      return E;
    if (llvm::Error E = F->Module->load())
      return failByKind(std::move(E), cudaErrorInvalidPtx);
    for (const std::string &Name : F->Module->kernelNames()) {
      KernelRecord *K = nullptr;
      if (cudaError_t E = functionIn(*F, Name.c_str(), K))
        return E;
      Functions.push_back(K);
    }
    return cudaSuccess;
  });
  if (R != CUDA_SUCCESS)
    return 0;
  // Outside the driver's locks: the visitor is the library's code.
  for (KernelRecord *K : Functions)
    Visit(User, reinterpret_cast<CUfunction>(K));
  return int(Functions.size());
}

SlotTable<10, 64> &functionInternals() {
  static SlotTable<10, 64> T = SlotTable<10, 64>().sized().set(7, &visitModuleFunctions);
  return T;
}

//===-- RUNTIME_DIAGNOSTICS (f8cff951-2146-8b4e-b9e2-fb469e7c0dd9) --------===//
//
// Asked by the static runtime before cuInit; [1] is where it reports why it cannot start
// ("Insufficient driver: %d < %d", "Failed to load CUDA driver!") for the driver's error log.
// Without the table it says nothing and returns its error code. That is all the runtimes here
// (in the programs nvcc 13.0 builds, in the toolkit's cuBLAS and cuFFT) were seen to use; a
// public project describes a larger layout that a later runtime reads, not known here.

// [1]: one message: a component ("CUDA"), a severity and a printf format with its arguments.
void runtimeMessage(const char *Component, int Severity, const char *Format, va_list Args) {
  char Text[1024] = "";
  if (Format)
    std::vsnprintf(Text, sizeof Text, Format, Args);
  log(ptx2amd::loader::LogLevel::Info,
      formatv("{0} (severity {1}): {2}", Component ? Component : "runtime", Severity, Text).str());
}

SlotTable<11, 2> &runtimeDiagnostics() {
  static SlotTable<11, 2> T = SlotTable<11, 2>().sized().set(1, &runtimeMessage);
  return T;
}

const std::vector<TableEntry> &tables() {
  static const std::vector<TableEntry> T = {
      {"CUDART_INTERFACE",
       {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d,
        0xf9},
       cudartInterface().Slots.data(),
       cudartInterface().Slots.size()},
      {"TOOLS_TLS",
       {0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec,
        0xdc},
       toolsTls().Slots.data(),
       toolsTls().Slots.size()},
      {"TOOLS_RUNTIME_CALLBACK_HOOKS",
       {0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a,
        0x66},
       toolsCallbackHooks().Slots.data(),
       toolsCallbackHooks().Slots.size()},
      {"CONTEXT_LOCAL_STORAGE_V0301",
       {0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95,
        0x93},
       contextLocalStorage().Slots.data(),
       contextLocalStorage().Slots.size()},
      {"CTX_CREATE_BYPASS",
       {0x0c, 0xa5, 0x0b, 0x8c, 0x10, 0x04, 0x92, 0x9a, 0x89, 0xa7, 0xd0, 0xdf, 0x10, 0xe7, 0x72,
        0x86},
       ctxCreateBypass().Slots.data(),
       ctxCreateBypass().Slots.size()},
      {"HEAP_ACCESS",
       {0x19, 0x5b, 0xcb, 0xf4, 0xd6, 0x7d, 0x02, 0x4a, 0xac, 0xc5, 0x1d, 0x29, 0xce, 0xa6, 0x31,
        0xae},
       heapAccess().Slots.data(),
       heapAccess().Slots.size()},
      {"DEVICE_EXTENDED_RT",
       {0xb1, 0x05, 0x41, 0xe1, 0xf7, 0xc7, 0xc7, 0x4a, 0x9f, 0x64, 0xf2, 0x23, 0xbe, 0x99, 0xf1,
        0xe2},
       deviceExtendedRt().Slots.data(),
       deviceExtendedRt().Slots.size()},
      {"INTEGRITY_CHECK",
       {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1,
        0xf2},
       integrityTable().Slots.data(),
       integrityTable().Slots.size()},
      {"CONTEXT_CHECKS",
       {0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa,
        0x7e},
       contextChecks().Slots.data(),
       contextChecks().Slots.size()},
      {"CONTEXT_STREAM_INTERNALS",
       {0x21, 0x31, 0x8c, 0x60, 0x97, 0x14, 0x32, 0x48, 0x8c, 0xa6, 0x41, 0xff, 0x73, 0x24, 0xc8,
        0xf2},
       contextStreamInternals().Slots.data(),
       contextStreamInternals().Slots.size()},
      {"FUNCTION_INTERNALS",
       {0x6e, 0x16, 0x3f, 0xbe, 0xb9, 0x58, 0x44, 0x4d, 0x83, 0x5c, 0xe1, 0x82, 0xaf, 0xf1, 0x99,
        0x1e},
       functionInternals().Slots.data(),
       functionInternals().Slots.size()},
      {"RUNTIME_DIAGNOSTICS",
       {0xf8, 0xcf, 0xf9, 0x51, 0x21, 0x46, 0x8b, 0x4e, 0xb9, 0xe2, 0xfb, 0x46, 0x9e, 0x7c, 0x0d,
        0xd9},
       runtimeDiagnostics().Slots.data(),
       runtimeDiagnostics().Slots.size()},
  };
  return T;
}

/// The table that holds \p Slot, as "NAME (uuid)"; \p Index becomes its slot there.
std::string slotOwner(const void *Slot, unsigned &Index) {
  for (const TableEntry &E : tables())
    for (size_t I = 0; I < E.Count; ++I)
      if (E.Slots[I] == Slot) {
        Index = unsigned(I);
        return formatv("{0} ({1})", E.Name, uuidText(E.Uuid)).str();
      }
  return "a table";
}

} // namespace

void ptx2amd::runtime::releaseLocalStorage(DriverContext &C) {
  std::map<void *, std::pair<void *, LocalStorageDestructor>> Values;
  {
    std::lock_guard<std::mutex> Lock(driverState().Mutex);
    Values.swap(C.LocalStorage);
  }
  // Outside the lock: a destructor may call back into the driver.
  for (auto &[Key, Entry] : Values)
    if (Entry.second)
      Entry.second(reinterpret_cast<CUcontext>(&C), Key, Entry.first);
}

extern "C" {

CUresult cuGetExportTable(const void **Table, const CUuuid *Id) {
  if (!Table || !Id)
    return CUDA_ERROR_INVALID_VALUE;
  for (const TableEntry &E : tables())
    if (std::memcmp(E.Uuid, Id->bytes, 16) == 0) {
      log(ptx2amd::loader::LogLevel::Debug, std::string("cuGetExportTable: ") + E.Name);
      *Table = E.Slots;
      return CUDA_SUCCESS;
    }
  // Once per table at info: a library that needs it fails in its own words, and this says why.
  static std::mutex Mutex;
  static std::set<std::string> Logged;
  std::string Text = uuidText(Id->bytes);
  bool First;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    First = Logged.insert(Text).second;
  }
  if (First)
    log(ptx2amd::loader::LogLevel::Info,
        "cuGetExportTable: unknown table " + Text + ", which ptx2amd does not implement");
  *Table = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}

} // extern "C"
