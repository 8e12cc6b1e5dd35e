//===- Device.cpp - choosing the device of the process --------------------===//

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
      Failure = "PTX2AMD_DEVICE=host: the host device is not available yet";
    } else if (auto D = hsaDevice()) {
      Chosen = &*D;
    } else {
      Failure = toString(D.takeError());
      Failure += *Choice == DeviceChoice::Hsa
                     ? " (PTX2AMD_DEVICE=hsa)"
                     : "; the host device to fall back to is not available yet";
    }
    if (Chosen)
      return;
    // One line, whatever the runtime's text held.
    std::replace(Failure.begin(), Failure.end(), '\n', ' ');
    errs() << "ptx2amd: " << Failure << "\n";
  });
  if (Chosen)
    return *Chosen;
  return createStringError(inconvertibleErrorCode(), Failure);
}

} // namespace ptx2amd::loader
