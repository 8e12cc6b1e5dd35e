//===- Device.cpp - choosing the device of the process --------------------===//
//
// PTX2AMD_DEVICE=auto (the default) takes HSA when an AMD GPU is usable and the host device
// (hostDevice(): the CPU) otherwise; hsa and host take one or fail.

#include "ptx2amd/loader/Device.h"
#include "ptx2amd/loader/HsaDevice.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <optional>

using namespace llvm;

namespace ptx2amd::loader {
namespace {

/// One line on stderr, whatever the runtime's text held.
void note(std::string Text) {
  std::replace(Text.begin(), Text.end(), '\n', ' ');
  errs() << "ptx2amd: " << Text << "\n";
}

} // namespace

bool Module::declaresKernel(StringRef Name) { return llvm::is_contained(kernelNames(), Name); }

// A device without virtual memory management says so for each of its calls.
static Error noVirtualMemory() {
  return createStringError(inconvertibleErrorCode(), "the device has no virtual memory management");
}
Expected<void *> Device::reserveAddressRange(size_t, size_t, void *) { return noVirtualMemory(); }
Error Device::freeAddressRange(void *, size_t) { return noVirtualMemory(); }
Expected<std::unique_ptr<PhysicalMemory>> Device::createPhysical(size_t) {
  return noVirtualMemory();
}
Error Device::map(void *, size_t, PhysicalMemory &, size_t) { return noVirtualMemory(); }
Error Device::unmap(void *, size_t) { return noVirtualMemory(); }
Error Device::setAccess(void *, size_t, bool, bool) { return noVirtualMemory(); }
Expected<int> Device::exportPhysical(PhysicalMemory &) { return noVirtualMemory(); }
Expected<std::unique_ptr<PhysicalMemory>> Device::importPhysical(int) { return noVirtualMemory(); }

Expected<DeviceChoice> parseDeviceChoice(StringRef Value) {
  auto C = StringSwitch<std::optional<DeviceChoice>>(Value)
               .Cases({"", "auto"}, DeviceChoice::Auto)
               .Case("hsa", DeviceChoice::Hsa)
               .Case("host", DeviceChoice::Host)
               .Default(std::nullopt);
  if (!C)
    return createStringError(inconvertibleErrorCode(),
                             "PTX2AMD_DEVICE='" + Value + "' is not one of auto, hsa, host");
  return *C;
}

Expected<Device &> selectDevice() {
  static std::once_flag Once;
  static Device *Chosen = nullptr;
  static std::string Failure;
  std::call_once(Once, [] {
    const char *Env = std::getenv("PTX2AMD_DEVICE");
    auto Choice = parseDeviceChoice(Env ? Env : "");
    if (!Choice) {
      Failure = toString(Choice.takeError());
    } else if (*Choice == DeviceChoice::Host) {
      if (auto D = hostDevice())
        Chosen = &*D;
      else
        Failure = toString(D.takeError()) + " (PTX2AMD_DEVICE=host)";
    } else if (auto D = hsaDevice()) {
      Chosen = &*D;
    } else {
      std::string Why = toString(D.takeError());
      if (*Choice == DeviceChoice::Hsa) {
        Failure = Why + " (PTX2AMD_DEVICE=hsa)";
      } else if (auto H = hostDevice()) {
        Chosen = &*H;
        // The one line that says why the program runs on the CPU.
        note(Why + "; using " + Chosen->properties().Name);
        return;
      } else {
        Failure = Why + "; the host device to fall back to failed: " + toString(H.takeError());
      }
    }
    if (!Chosen)
      note(Failure);
  });
  if (Chosen)
    return *Chosen;
  return createStringError(inconvertibleErrorCode(), Failure);
}

} // namespace ptx2amd::loader
