// The HSA device on a machine without an AMD GPU (no /dev/kfd): hsa_init fails cleanly, once per
// process, and the device selection says why in one line on stderr, once, and takes the host
// device.
#include "ptx2amd/loader/HsaDevice.h"
#include "ptx2amd/loader/Device.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <catch2/catch.hpp>
#include <hsa/hsa.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <unistd.h>

using namespace ptx2amd;

namespace {
std::atomic<int> HsaInitCalls{0};

bool haveKfd() { return ::access("/dev/kfd", F_OK) == 0; }
} // namespace

// Counts the loader's calls of hsa_init: this definition in the executable takes the place of
// ROCr's for the statically linked loader, and forwards to ROCr's.
extern "C" hsa_status_t hsa_init() {
  ++HsaInitCalls;
  static auto *Real = reinterpret_cast<hsa_status_t (*)()>(dlsym(RTLD_NEXT, "hsa_init"));
  return Real ? Real() : HSA_STATUS_ERROR;
}

TEST_CASE("PTX2AMD_DEVICE values", "[hsa]") {
  CHECK(llvm::cantFail(loader::parseDeviceChoice("")) == loader::DeviceChoice::Auto);
  CHECK(llvm::cantFail(loader::parseDeviceChoice("auto")) == loader::DeviceChoice::Auto);
  CHECK(llvm::cantFail(loader::parseDeviceChoice("hsa")) == loader::DeviceChoice::Hsa);
  CHECK(llvm::cantFail(loader::parseDeviceChoice("host")) == loader::DeviceChoice::Host);
  auto Bad = loader::parseDeviceChoice("cuda");
  REQUIRE(!Bad);
  CHECK(llvm::toString(Bad.takeError()) == "PTX2AMD_DEVICE='cuda' is not one of auto, hsa, host");
}

TEST_CASE("without /dev/kfd the HSA device is one line of error, initialised once", "[hsa]") {
  if (haveKfd()) {
    WARN("/dev/kfd is present: this test is for machines without an AMD GPU driver");
    return;
  }
  auto D = loader::hsaDevice();
  REQUIRE(!D);
  std::string First = llvm::toString(D.takeError());
  INFO(First);
  CHECK(First.rfind("HSA: hsa_init failed: HSA_STATUS_ERROR_OUT_OF_RESOURCES (0x1008)", 0) == 0);
  CHECK(First.find("/dev/kfd is missing") != std::string::npos);
  CHECK(First.find('\n') == std::string::npos);
  for (int I = 0; I < 3; ++I) {
    auto Again = loader::hsaDevice();
    REQUIRE(!Again);
    CHECK(llvm::toString(Again.takeError()) == First);
  }
  CHECK(HsaInitCalls == 1);
}

namespace {
/// What selectDevice() gave: "device: NAME" or "error: TEXT".
std::string selection() {
  auto D = loader::selectDevice();
  return D ? "device: " + D->properties().Name : "error: " + llvm::toString(D.takeError());
}
} // namespace

// Run by the next test in a process of its own (a fresh selection state): selects three times,
// checks the outcome is the same each time, with hsa_init called at most once, and prints it.
TEST_CASE("selectDevice, in a child process", "[.][select-child]") {
  const char *Env = std::getenv("PTX2AMD_DEVICE");
  std::string Choice = Env ? Env : "";
  std::string First = selection();
  for (int I = 0; I < 2; ++I)
    CHECK(selection() == First);
  std::printf("selected %s\n", First.c_str());
  bool UsesHsa = Choice == "" || Choice == "auto" || Choice == "hsa";
  CHECK(HsaInitCalls == (UsesHsa ? 1 : 0));
}

namespace {
struct ChildOutput {
  std::string Out, Err;
};

/// Runs this test binary on the [select-child] test with PTX2AMD_DEVICE=\p Choice (and
/// PTX2AMD_HOST_TARGET=\p HostTarget when not empty); returns what it wrote.
ChildOutput runSelection(const std::string &Choice, const std::string &HostTarget = "") {
  static int Anchor;
  std::string Self = llvm::sys::fs::getMainExecutable("loader_tests", &Anchor);
  REQUIRE(!Self.empty());
  llvm::SmallString<128> Out, Err;
  REQUIRE(!llvm::sys::fs::createTemporaryFile("select-out", "txt", Out));
  REQUIRE(!llvm::sys::fs::createTemporaryFile("select-err", "txt", Err));
  std::vector<std::string> EnvStore;
  for (char **E = environ; *E; ++E)
    if (llvm::StringRef(*E).starts_with("PTX2AMD_DEVICE=") ||
        llvm::StringRef(*E).starts_with("PTX2AMD_HOST_TARGET="))
      continue;
    else
      EnvStore.push_back(*E);
  EnvStore.push_back("PTX2AMD_DEVICE=" + Choice);
  if (!HostTarget.empty())
    EnvStore.push_back("PTX2AMD_HOST_TARGET=" + HostTarget);
  std::vector<llvm::StringRef> Env(EnvStore.begin(), EnvStore.end());
  llvm::StringRef Args[] = {Self, "[select-child]"};
  std::optional<llvm::StringRef> Redirects[] = {llvm::StringRef(""), Out.str(), Err.str()};
  std::string Message;
  int Rc = llvm::sys::ExecuteAndWait(Self, Args, Env, Redirects, 60, 0, &Message);
  auto Stdout = llvm::MemoryBuffer::getFile(Out);
  auto Stderr = llvm::MemoryBuffer::getFile(Err);
  REQUIRE(bool(Stdout));
  REQUIRE(bool(Stderr));
  ChildOutput R{(*Stdout)->getBuffer().str(), (*Stderr)->getBuffer().str()};
  INFO("PTX2AMD_DEVICE=" << Choice << ": " << Message << "\n" << R.Out);
  CHECK(Rc == 0);
  llvm::sys::fs::remove(Out);
  llvm::sys::fs::remove(Err);
  return R;
}

/// Whether \p Text is one line, newline-terminated.
bool oneLine(const std::string &Text) {
  return !Text.empty() && Text.back() == '\n' && Text.find('\n') == Text.size() - 1;
}
} // namespace

TEST_CASE("selectDevice says once, in one line, why there is no GPU", "[hsa]") {
  const std::string OnHost = "selected device: ptx2amd host (gfx90a)\n";
  if (!haveKfd()) {
    for (const char *Choice : {"auto", ""}) {
      ChildOutput C = runSelection(Choice);
      INFO(C.Err);
      CHECK(oneLine(C.Err));
      CHECK(C.Err.rfind("ptx2amd: HSA: hsa_init failed:", 0) == 0);
      CHECK(C.Err.find("/dev/kfd is missing") != std::string::npos);
      CHECK(llvm::StringRef(C.Err).ends_with("; using ptx2amd host (gfx90a)\n"));
      CHECK(C.Out.find(OnHost) != std::string::npos);
    }
    ChildOutput C = runSelection("hsa");
    INFO(C.Err);
    CHECK(oneLine(C.Err));
    CHECK(C.Err.rfind("ptx2amd: HSA: hsa_init failed:", 0) == 0);
    CHECK(C.Err.find("(PTX2AMD_DEVICE=hsa)") != std::string::npos);
    CHECK(C.Out.find("selected error: HSA: hsa_init failed:") != std::string::npos);
  }
  ChildOutput Host = runSelection("host");
  CHECK(Host.Err == "");
  CHECK(Host.Out.find(OnHost) != std::string::npos);
  ChildOutput Wave32 = runSelection("host", "gfx1100");
  CHECK(Wave32.Out.find("selected device: ptx2amd host (gfx1100)\n") != std::string::npos);
  ChildOutput BadTarget = runSelection("host", "gfx9000");
  CHECK(oneLine(BadTarget.Err));
  CHECK(BadTarget.Err.rfind("ptx2amd: PTX2AMD_HOST_TARGET='gfx9000' is not one of ", 0) == 0);
  ChildOutput Bad = runSelection("gpu");
  CHECK(Bad.Err == "ptx2amd: PTX2AMD_DEVICE='gpu' is not one of auto, hsa, host\n");
}
