//===- DriverLink.cpp - the driver API: JIT linking (cuLink*) ===//
//
// A link state collects PTX: given as text, or taken from a fatbin, cubin or host object that
// carries it (the PTX the loader would choose). cuLinkComplete links it as the loader links the
// per-TU modules of -rdc programs (ir::linkModules) and hands out the linked PTX text, the image
// cuModuleLoadData takes here. Inputs without PTX (SASS-only cubins, libraries, LTO IR) are
// refused with a message saying so, in the error log buffer too.

#include "Driver.h"

#include "ptx2amd/fatbin/Fatbin.h"
#include "ptx2amd/fatbin/Select.h"
#include "ptx2amd/ptx-ir/Link.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_set>

using namespace llvm;
using namespace ptx2amd;
using namespace ptx2amd::runtime;

namespace {

enum CUjitInputType : int {
  CU_JIT_INPUT_CUBIN = 0,
  CU_JIT_INPUT_PTX = 1,
  CU_JIT_INPUT_FATBINARY = 2,
  CU_JIT_INPUT_OBJECT = 3,
  CU_JIT_INPUT_LIBRARY = 4,
  CU_JIT_INPUT_NVVM = 5,
};
constexpr int CU_JIT_WALL_TIME = 2;

struct LinkState {
  JitLogs Logs;
  float *WallTimeMs = nullptr;
  std::vector<std::string> Names, Texts;
  std::string Output; ///< the linked PTX, NUL-terminated, kept until destroyed
  std::string ErrorText;
};

struct LinkStates {
  std::mutex Mutex;
  std::unordered_set<LinkState *> Live;
};
LinkStates &linkStates() {
  static LinkStates *S = new LinkStates;
  return *S;
}

cudaError_t stateOf(void *Handle, LinkState *&Out) {
  LinkStates &S = linkStates();
  std::lock_guard<std::mutex> Lock(S.Mutex);
  auto *L = static_cast<LinkState *>(Handle);
  if (!S.Live.count(L))
    return fail(cudaErrorInvalidResourceHandle, formatv("no link state {0}", Handle).str());
  Out = L;
  return cudaSuccess;
}

/// Fails with \p E and says why in the state's error log.
cudaError_t refuse(LinkState &L, cudaError_t E, const std::string &Why) {
  L.ErrorText += Why + "\n";
  L.Logs.Errors.write(L.ErrorText);
  return fail(E, Why);
}

/// The PTX an input of \p Type carries.
cudaError_t inputPtx(LinkState &L, int Type, ArrayRef<uint8_t> Bytes, const std::string &Name,
                     std::string &Out) {
  switch (Type) {
  case CU_JIT_INPUT_PTX: {
    StringRef Text(reinterpret_cast<const char *>(Bytes.data()), Bytes.size());
    Out = Text.take_until([](char C) { return C == 0; }).str();
    return cudaSuccess;
  }
  case CU_JIT_INPUT_CUBIN:
  case CU_JIT_INPUT_FATBINARY:
  case CU_JIT_INPUT_OBJECT: {
    auto F = fatbin::Fatbin::parse(MemoryBufferRef(
        StringRef(reinterpret_cast<const char *>(Bytes.data()), Bytes.size()), Name));
    if (!F)
      return refuse(L, cudaErrorInvalidKernelImage, Name + ": " + toString(F.takeError()));
    Context *C = nullptr;
    if (cudaError_t E = context(C))
      return E;
    // What the loader would take for the device: its compute capability bounds the arch.
    auto E = fatbin::selectPTX(F->entries(), C->Loader.options().Selection, Name);
    if (!E)
      return refuse(L, cudaErrorInvalidKernelImage, toString(E.takeError()));
    auto Text = F->ptx(**E);
    if (!Text)
      return refuse(L, cudaErrorInvalidKernelImage, Name + ": " + toString(Text.takeError()));
    Out = std::string(Text->text());
    return cudaSuccess;
  }
  case CU_JIT_INPUT_LIBRARY:
    return refuse(L, cudaErrorNotSupported,
                  Name + ": device-code libraries cannot be linked by ptx2amd yet");
  case CU_JIT_INPUT_NVVM:
    return refuse(L, cudaErrorNotSupported,
                  Name + ": LTO IR carries no PTX; link with PTX or a fatbin that has it");
  default:
    return refuse(L, cudaErrorInvalidValue, formatv("{0}: input type {1}", Name, Type).str());
  }
}

cudaError_t addInput(void *Handle, int Type, ArrayRef<uint8_t> Bytes, const char *Name) {
  LinkState *L = nullptr;
  if (cudaError_t E = stateOf(Handle, L))
    return E;
  std::string InputName =
      Name && *Name ? Name : formatv("link input {0}", L->Texts.size() + 1).str();
  std::string Text;
  if (cudaError_t E = inputPtx(*L, Type, Bytes, InputName, Text))
    return E;
  L->Names.push_back(std::move(InputName));
  L->Texts.push_back(std::move(Text));
  return cudaSuccess;
}

} // namespace

extern "C" {

CUresult cuLinkCreate_v2(unsigned NumOptions, CUjit_option *Options, void **Values, void **Out) {
  return driverCall([&] {
    if (!Out || (NumOptions && (!Options || !Values)))
      return fail(cudaErrorInvalidValue);
    auto L = std::make_unique<LinkState>();
    L->Logs = jitLogs(NumOptions, Options, Values);
    for (unsigned I = 0; I < NumOptions; ++I)
      if (Options[I] == CU_JIT_WALL_TIME)
        L->WallTimeMs = reinterpret_cast<float *>(&Values[I]);
    L->Logs.Info.write("");
    L->Logs.Errors.write("");
    LinkStates &S = linkStates();
    std::lock_guard<std::mutex> Lock(S.Mutex);
    S.Live.insert(L.get());
    *Out = L.release();
    return cudaSuccess;
  });
}

CUresult cuLinkCreate(unsigned NumOptions, CUjit_option *Options, void **Values, void **Out) {
  return cuLinkCreate_v2(NumOptions, Options, Values, Out);
}

// Per-input options (optimisation levels, targets) change nothing: the PTX is translated later.
CUresult cuLinkAddData_v2(void *State, int Type, void *Data, size_t Size, const char *Name,
                          unsigned, CUjit_option *, void **) {
  return driverCall([&] {
    if (!Data || !Size)
      return fail(cudaErrorInvalidValue);
    return addInput(State, Type, ArrayRef<uint8_t>(static_cast<const uint8_t *>(Data), Size), Name);
  });
}

CUresult cuLinkAddData(void *State, int Type, void *Data, size_t Size, const char *Name,
                       unsigned NumOptions, CUjit_option *Options, void **Values) {
  return cuLinkAddData_v2(State, Type, Data, Size, Name, NumOptions, Options, Values);
}

CUresult cuLinkAddFile_v2(void *State, int Type, const char *Path, unsigned, CUjit_option *,
                          void **) {
  return driverCall([&] {
    if (!Path)
      return fail(cudaErrorInvalidValue);
    auto Buffer = MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!Buffer)
      return fail(cudaErrorFileNotFound,
                  formatv("{0}: {1}", Path, Buffer.getError().message()).str());
    return addInput(
        State, Type,
        ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>((*Buffer)->getBufferStart()),
                          (*Buffer)->getBufferSize()),
        Path);
  });
}

CUresult cuLinkAddFile(void *State, int Type, const char *Path, unsigned NumOptions,
                       CUjit_option *Options, void **Values) {
  return cuLinkAddFile_v2(State, Type, Path, NumOptions, Options, Values);
}

CUresult cuLinkComplete(void *State, void **Image, size_t *Size) {
  return driverCall([&] {
    if (!Image || !Size)
      return fail(cudaErrorInvalidValue);
    LinkState *L = nullptr;
    if (cudaError_t E = stateOf(State, L))
      return E;
    if (L->Texts.empty())
      return refuse(*L, cudaErrorInvalidValue, "nothing was added to the link");
    auto Start = std::chrono::steady_clock::now();
    std::vector<ir::LinkInput> Inputs;
    for (size_t I = 0; I < L->Texts.size(); ++I)
      Inputs.push_back({L->Names[I], L->Texts[I]});
    auto Linked = ir::linkModules(Inputs);
    if (!Linked)
      return refuse(*L, cudaErrorInvalidPtx, toString(Linked.takeError()));
    L->Output = std::move(*Linked);
    *Image = L->Output.data();
    *Size = L->Output.size() + 1; // with its NUL, which ends PTX text passed by address
    if (L->WallTimeMs)
      *L->WallTimeMs =
          std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - Start)
              .count();
    L->Logs.Info.write(formatv("linked {0} PTX modules", L->Texts.size()).str());
    return cudaSuccess;
  });
}

CUresult cuLinkDestroy(void *State) {
  return driverCall([&] {
    LinkState *L = nullptr;
    if (cudaError_t E = stateOf(State, L))
      return E;
    LinkStates &S = linkStates();
    {
      std::lock_guard<std::mutex> Lock(S.Mutex);
      S.Live.erase(L);
    }
    delete L;
    return cudaSuccess;
  });
}

} // extern "C"
