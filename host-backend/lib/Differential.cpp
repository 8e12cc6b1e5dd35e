// The differential mode (Differential.h): every plan of a launch from one snapshot of the device
// memory, compared with the default plan's result byte for byte.
#include "Differential.h"

#include "ptx2amd/support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <map>
#include <mutex>
#include <set>

using namespace llvm;

namespace ptx2amd::host {
namespace {

struct Range {
  size_t Bytes = 0;
  bool HostWritable = false;
};

struct Tracked {
  std::mutex Mutex;
  std::map<uintptr_t, Range> Ranges;
};

Tracked &tracked() {
  static Tracked *T = new Tracked; // never destroyed: memory may be released at exit
  return *T;
}

/// The device memory and \p Globals, or none when they hold more than MaxDifferentialBytes.
std::vector<MemoryRange> snapshotRanges(const std::vector<MemoryRange> &Globals, uint64_t &Total) {
  std::vector<MemoryRange> Out = Globals;
  {
    Tracked &T = tracked();
    std::lock_guard<std::mutex> Lock(T.Mutex);
    for (auto &[P, R] : T.Ranges)
      if (!R.HostWritable)
        Out.push_back({reinterpret_cast<uint8_t *>(P), R.Bytes, ""});
  }
  Total = 0;
  for (const MemoryRange &R : Out)
    Total += R.Bytes;
  if (Total > MaxDifferentialBytes)
    Out.clear();
  return Out;
}

/// Whether an aligned 64-bit word of \p Arguments points into host-writable memory.
bool passesHostMemory(ArrayRef<uint8_t> Arguments) {
  Tracked &T = tracked();
  std::lock_guard<std::mutex> Lock(T.Mutex);
  for (size_t At = 0; At + 8 <= Arguments.size(); At += 8) {
    uintptr_t P;
    std::memcpy(&P, Arguments.data() + At, 8);
    auto It = T.Ranges.upper_bound(P);
    if (It == T.Ranges.begin())
      continue;
    --It;
    if (It->second.HostWritable && P - It->first < It->second.Bytes)
      return true;
  }
  return false;
}

using Snapshot = std::vector<std::vector<uint8_t>>;

Snapshot take(const std::vector<MemoryRange> &Ranges) {
  Snapshot S;
  S.reserve(Ranges.size());
  for (const MemoryRange &R : Ranges)
    S.emplace_back(R.Begin, R.Begin + R.Bytes);
  return S;
}

/// Writes \p S back where it differs (memory registered read-only never does).
void restore(const std::vector<MemoryRange> &Ranges, const Snapshot &S) {
  for (size_t I = 0; I < Ranges.size(); ++I)
    if (std::memcmp(Ranges[I].Begin, S[I].data(), Ranges[I].Bytes) != 0)
      std::memcpy(Ranges[I].Begin, S[I].data(), Ranges[I].Bytes);
}

/// The first range where memory differs from \p Want, described; empty when none does.
std::string firstDifference(const std::vector<MemoryRange> &Ranges, const Snapshot &Want,
                            StringRef WantPlan, StringRef GotPlan) {
  for (size_t I = 0; I < Ranges.size(); ++I) {
    const MemoryRange &R = Ranges[I];
    const uint8_t *Got = R.Begin, *Expected = Want[I].data();
    if (std::memcmp(Got, Expected, R.Bytes) == 0)
      continue;
    size_t First = R.Bytes, Count = 0;
    for (size_t B = 0; B < R.Bytes; ++B)
      if (Got[B] != Expected[B]) {
        First = std::min(First, B);
        ++Count;
      }
    std::string S;
    raw_string_ostream OS(S);
    if (R.Name.empty())
      OS << "device memory at 0x" << utohexstr(uintptr_t(R.Begin)) << " (" << R.Bytes << " bytes)";
    else
      OS << R.Name << " (" << R.Bytes << " bytes)";
    OS << ", first at byte offset " << First << ": " << format_hex(Expected[First], 4) << " under "
       << WantPlan << ", " << format_hex(Got[First], 4) << " under " << GotPlan << "; " << Count
       << " bytes differ";
    return S;
  }
  return "";
}

/// Logs \p Msg once per kernel and kind of message.
void logOnce(StringRef Kernel, StringRef Kind, const Twine &Msg) {
  static std::mutex Mutex;
  static std::set<std::string> Seen;
  std::lock_guard<std::mutex> Lock(Mutex);
  if (Seen.insert((Kind + "/" + Kernel).str()).second)
    errs() << "ptx2amd: host: differential mode: kernel '" << Kernel << "': " << Msg << "\n";
}

Error failure(const DifferentialLaunch &D, const Twine &Msg) {
  std::string Text = ("differential mode: kernel '" + D.Kernel + "': " + Msg).str();
  errs() << "ptx2amd: host: " << Text << "\n";
  return makeError(ErrorKind::Internal, Text);
}

} // namespace

void trackMemory(void *P, size_t Bytes, bool HostWritable) {
  Tracked &T = tracked();
  std::lock_guard<std::mutex> Lock(T.Mutex);
  T.Ranges[uintptr_t(P)] = {Bytes, HostWritable};
}

void untrackMemory(void *P) {
  Tracked &T = tracked();
  std::lock_guard<std::mutex> Lock(T.Mutex);
  T.Ranges.erase(uintptr_t(P));
}

Expected<amdgpu::DeviceOutput> runDifferential(const DifferentialLaunch &D, PlanRunner Run) {
  if (D.Others.empty())
    return Run(D.How, *D.Plan);
  if (passesHostMemory(D.Arguments)) {
    logOnce(D.Kernel, "host",
            "only its default plan runs: an argument points into host memory (pinned, managed or "
            "registered), which the program may write while the kernel runs");
    return Run(D.How, *D.Plan);
  }
  uint64_t Total = 0;
  std::vector<MemoryRange> Ranges = snapshotRanges(D.Globals, Total);
  if (Ranges.empty()) {
    logOnce(D.Kernel, "big",
            "only its default plan runs: " + Twine(Total) + " bytes of device memory, more than " +
                Twine(MaxDifferentialBytes) + " the mode snapshots");
    return Run(D.How, *D.Plan);
  }
  const Snapshot Before = take(Ranges);
  auto Out = Run(D.How, *D.Plan);
  if (!Out)
    return Out.takeError();
  const Snapshot After = take(Ranges);
  const char *Default = modeName(D.How);
  // An order-dependent kernel's plans are not compared: the program checks them instead, by
  // going on with the memory the last of them left (csrmm's float atomics hid a defect of the
  // work-item plans that its own check found).
  const bool Ordered = !D.Plan->OrderReason.empty();
  if (Ordered)
    logOnce(D.Kernel, "order",
            "its plans run, their memory is not compared: it is order-dependent (" +
                D.Plan->OrderReason + "); the program goes on with what its last plan wrote");
  for (auto &[How, Plan] : D.Others) {
    restore(Ranges, Before);
    auto Other = Run(How, *Plan);
    if (!Other) {
      restore(Ranges, After);
      return failure(D, "fails under " + Twine(modeName(How)) + " but not under " + Default + ": " +
                            toString(Other.takeError()));
    }
    if (Ordered)
      continue;
    if (std::string Diff = firstDifference(Ranges, After, Default, modeName(How)); !Diff.empty()) {
      restore(Ranges, After);
      return failure(D, "writes different memory under " + Twine(modeName(How)) + " than under " +
                            Default + ": " + Diff);
    }
  }
  if (!Ordered || D.Others.empty())
    restore(Ranges, After);
  return Out;
}

} // namespace ptx2amd::host
