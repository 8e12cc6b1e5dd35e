// What the memory families (MemoryFamilies.cpp, MemorySyncFamilies.cpp) share: the kernels'
// prologue and the comparison of their buffers.
#pragma once

#include "Families.h"
#include "KernelHarness.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <map>
#include <random>
#include <sstream>

namespace conformance::memory_families {

constexpr uint32_t Sentinel = 0xdeadbeef;

/// Declarations and the thread's indices: %gid (launch-wide), %tid, %ntid; %o4/%o8/%o16 =
/// %gid * 4/8/16; %b<J> = buffer J's address. Scratch: %r<32>, %rd<32>, %h<8>, %p<8>.
inline std::string prologue(unsigned Buffers) {
  std::ostringstream S;
  S << "  .reg .b32 %gid, %tid, %ntid, %cta, %r<32>;\n  .reg .b16 %h<8>;\n"
    << "  .reg .b64 %o4, %o8, %o16, %rd<32>, %b<" << Buffers << ">;\n  .reg .pred %p<8>;\n"
    << "  mov.u32 %cta, %ctaid.x;\n  mov.u32 %ntid, %ntid.x;\n  mov.u32 %tid, %tid.x;\n"
    << "  mad.lo.u32 %gid, %cta, %ntid, %tid;\n  mul.wide.u32 %o4, %gid, 4;\n"
    << "  mul.wide.u32 %o8, %gid, 8;\n  mul.wide.u32 %o16, %gid, 16;\n";
  for (unsigned J = 0; J < Buffers; ++J)
    S << "  ld.param.u64 %b" << J << ", [buf" << J << "];\n";
  return S.str();
}

inline std::string hex32(uint32_t V) {
  char Buf[16];
  std::snprintf(Buf, sizeof Buf, "0x%08x", V);
  return Buf;
}

/// Compares every buffer from \p First on with its expected words.
inline std::string compareAll(const std::vector<Expected> &Want, const std::vector<Words> &Out,
                              size_t First, unsigned PerThread = 0) {
  std::string Report;
  for (size_t J = 0; J < Want.size(); ++J) {
    auto Describe = [PerThread](size_t I) {
      return PerThread ? "thread " + std::to_string(I / PerThread) + " word " +
                             std::to_string(I % PerThread)
                       : std::string();
    };
    std::string R =
        compareWords("buf" + std::to_string(First + J), Want[J], Out[First + J], Describe);
    if (!R.empty())
      Report += (Report.empty() ? "" : "\n  ") + R;
  }
  return Report;
}

inline Expected all(const Words &W) { return Expected(W.begin(), W.end()); }

inline uint32_t sext(uint32_t V, unsigned Bits) {
  return uint32_t(int32_t(V << (32 - Bits)) >> (32 - Bits));
}

// MemorySyncFamilies.cpp.
KernelFamily atomics();
KernelFamily barriers();

} // namespace conformance::memory_families
