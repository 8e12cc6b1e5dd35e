// Memory families: every state space (global, shared with 32- and 64-bit addresses, dynamic
// shared, local, const, param), generic pointers (cvta, cvta.to, isspacep), vector accesses,
// atomics under contention from many work-items and workgroups, and barriers. References follow
// the PTX ISA; an atomic's returned old values are checked exactly too: the accesses to one
// location must form one serial order (each old value is the location's value at that point).
#include "Families.h"
#include "KernelHarness.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <map>
#include <random>
#include <sstream>

namespace conformance {

namespace {

constexpr uint32_t Sentinel = 0xdeadbeef;

/// Declarations and the thread's indices: %gid (launch-wide), %tid, %ntid; %o4/%o8/%o16 =
/// %gid * 4/8/16; %b<J> = buffer J's address. Scratch: %r<32>, %rd<32>, %h<8>, %p<8>.
std::string prologue(unsigned Buffers) {
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

std::string hex32(uint32_t V) {
  char Buf[16];
  std::snprintf(Buf, sizeof Buf, "0x%08x", V);
  return Buf;
}

/// Compares every buffer from \p First on with its expected words.
std::string compareAll(const std::vector<Expected> &Want, const std::vector<Words> &Out,
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

Expected all(const Words &W) { return Expected(W.begin(), W.end()); }

uint32_t sext(uint32_t V, unsigned Bits) {
  return uint32_t(int32_t(V << (32 - Bits)) >> (32 - Bits));
}

// --- state spaces ----------------------------------------------------------------------------

KernelCase globalWidths() {
  const uint32_t N = 4 * 128;
  KernelCase C;
  C.Name = "ld/st.global u8 s8 u16 s16 u64, s8 into b64, st u8 u16";
  C.Grid = {4};
  C.Block = {128};
  C.Buffers = {randomWords(2 * N, 11), Words(8 * N, Sentinel), Words(N / 4, Sentinel),
               Words(N / 2, Sentinel)};
  C.Body = prologue(4) + R"(
  mul.wide.u32 %rd9, %gid, 32;
  add.s64 %rd9, %b1, %rd9;
  add.s64 %rd0, %b0, %gid;
  ld.global.s8 %r0, [%rd0];
  st.global.u32 [%rd9], %r0;
  ld.global.u8 %r1, [%rd0];
  st.global.u32 [%rd9+4], %r1;
  mul.wide.u32 %rd1, %gid, 2;
  add.s64 %rd1, %b0, %rd1;
  ld.global.s16 %r2, [%rd1];
  st.global.u32 [%rd9+8], %r2;
  ld.global.u16 %r3, [%rd1];
  st.global.u32 [%rd9+12], %r3;
  add.s64 %rd2, %b0, %o8;
  ld.global.u64 %rd3, [%rd2];
  st.global.u64 [%rd9+16], %rd3;
  ld.global.s8 %rd4, [%rd0];
  st.global.u64 [%rd9+24], %rd4;
  add.s64 %rd5, %b0, %o4;
  ld.global.u32 %r4, [%rd5];
  add.s64 %rd6, %b2, %gid;
  st.global.u8 [%rd6], %r4;
  mul.wide.u32 %rd7, %gid, 2;
  add.s64 %rd7, %b3, %rd7;
  shr.u32 %r5, %r4, 8;
  st.global.u16 [%rd7], %r5;
  ret;)";
  C.Check = [N](const std::vector<Words> &In, const std::vector<Words> &Out) {
    const uint8_t *Bytes = reinterpret_cast<const uint8_t *>(In[0].data());
    Words W(8 * N), B(N / 4), H(N / 2);
    for (uint32_t I = 0; I < N; ++I) {
      uint16_t Half;
      std::memcpy(&Half, Bytes + 2 * I, 2);
      W[8 * I] = sext(Bytes[I], 8);
      W[8 * I + 1] = Bytes[I];
      W[8 * I + 2] = sext(Half, 16);
      W[8 * I + 3] = Half;
      W[8 * I + 4] = In[0][2 * I];
      W[8 * I + 5] = In[0][2 * I + 1];
      W[8 * I + 6] = sext(Bytes[I], 8);
      W[8 * I + 7] = Bytes[I] & 0x80 ? 0xffffffff : 0;
      reinterpret_cast<uint8_t *>(B.data())[I] = uint8_t(In[0][I]);
      reinterpret_cast<uint16_t *>(H.data())[I] = uint16_t(In[0][I] >> 8);
    }
    return compareAll({all(W), all(B), all(H)}, Out, 1, 8);
  };
  return C;
}

KernelCase globalVectors() {
  const uint32_t N = 4 * 128;
  KernelCase C;
  C.Name = "ld/st.global v4.u32 v2.u64 v4.u16 v2.u32 (aligned, with offsets)";
  C.Grid = {4};
  C.Block = {128};
  C.Buffers = {randomWords(4 * N, 12), Words(4 * N, Sentinel), Words(4 * N, Sentinel),
               Words(4 * N, Sentinel)};
  C.Body = prologue(4) + R"(
  add.s64 %rd0, %b0, %o16;
  ld.global.v4.u32 {%r0, %r1, %r2, %r3}, [%rd0];
  add.s64 %rd1, %b1, %o16;
  st.global.v4.u32 [%rd1], {%r3, %r2, %r1, %r0};
  ld.global.v2.u64 {%rd3, %rd4}, [%rd0];
  add.s64 %rd2, %b2, %o16;
  st.global.v2.u64 [%rd2], {%rd4, %rd3};
  ld.global.v4.u16 {%h0, %h1, %h2, %h3}, [%rd0];
  add.s64 %rd5, %b3, %o16;
  st.global.v4.u16 [%rd5], {%h3, %h2, %h1, %h0};
  ld.global.v2.u32 {%r4, %r5}, [%rd0+8];
  st.global.v2.u32 [%rd5+8], {%r5, %r4};
  ret;)";
  C.Check = [N](const std::vector<Words> &In, const std::vector<Words> &Out) {
    Words A(4 * N), B(4 * N), D(4 * N);
    for (uint32_t I = 0; I < N; ++I) {
      const uint32_t *X = &In[0][4 * I];
      A[4 * I] = X[3], A[4 * I + 1] = X[2], A[4 * I + 2] = X[1], A[4 * I + 3] = X[0];
      B[4 * I] = X[2], B[4 * I + 1] = X[3], B[4 * I + 2] = X[0], B[4 * I + 3] = X[1];
      D[4 * I] = (X[1] >> 16) | (X[1] << 16);
      D[4 * I + 1] = (X[0] >> 16) | (X[0] << 16);
      D[4 * I + 2] = X[3], D[4 * I + 3] = X[2];
    }
    return compareAll({all(A), all(B), all(D)}, Out, 1, 4);
  };
  return C;
}

/// Static shared memory through 32-bit addresses (mov.u32 of the symbol, register + offset,
/// symbol + offset), 64-bit shared addresses, byte and vector accesses; blocks keep their own.
KernelCase sharedSpace() {
  const uint32_t Blocks = 4, B = 256, N = Blocks * B;
  KernelCase C;
  C.Name = "ld/st.shared 32-bit and 64-bit addresses, u8, v4";
  C.Grid = {Blocks};
  C.Block = {B};
  C.Globals = ".shared .align 16 .b32 {K}_s[256];\n.shared .align 4 .b8 {K}_t[64];\n";
  C.Buffers = {randomWords(N, 13), Words(8 * N, Sentinel)};
  C.Body = prologue(2) + R"(
  add.s64 %rd0, %b0, %o4;
  ld.global.u32 %r3, [%rd0];
  mov.u32 %r0, {K}_s;
  shl.b32 %r1, %tid, 2;
  add.u32 %r2, %r0, %r1;
  st.shared.u32 [%r2], %r3;
  setp.lt.u32 %p0, %tid, 64;
  mov.u32 %r4, {K}_t;
  add.u32 %r5, %r4, %tid;
  @%p0 st.shared.u8 [%r5], %r3;
  bar.sync 0;
  mul.wide.u32 %rd9, %gid, 32;
  add.s64 %rd9, %b1, %rd9;
  add.u32 %r6, %tid, 1;
  and.b32 %r6, %r6, 255;
  shl.b32 %r6, %r6, 2;
  add.u32 %r7, %r0, %r6;
  ld.shared.u32 %r8, [%r7];
  st.global.u32 [%rd9], %r8;
  ld.shared.u32 %r9, [{K}_s+8];
  st.global.u32 [%rd9+4], %r9;
  and.b32 %r10, %tid, 63;
  add.u32 %r11, %r4, %r10;
  ld.shared.u8 %r12, [%r11];
  st.global.u32 [%rd9+8], %r12;
  shl.b32 %r13, %r10, 4;
  add.u32 %r14, %r0, %r13;
  ld.shared.v4.u32 {%r15, %r16, %r17, %r18}, [%r14];
  st.global.v4.u32 [%rd9+16], {%r15, %r16, %r17, %r18};
  mov.u64 %rd1, {K}_s;
  cvt.u64.u32 %rd2, %r1;
  add.s64 %rd3, %rd1, %rd2;
  ld.shared.u32 %r19, [%rd3];
  st.global.u32 [%rd9+12], %r19;
  ret;)";
  C.Check = [N, B](const std::vector<Words> &In, const std::vector<Words> &Out) {
    Words W(8 * N);
    for (uint32_t I = 0; I < N; ++I) {
      const uint32_t *Blk = &In[0][I / B * B], T = I % B;
      W[8 * I] = Blk[(T + 1) % B];
      W[8 * I + 1] = Blk[2];
      W[8 * I + 2] = Blk[T % 64] & 0xff;
      W[8 * I + 3] = Blk[T];
      for (unsigned K = 0; K < 4; ++K)
        W[8 * I + 4 + K] = Blk[4 * (T % 64) + K];
    }
    return compareAll({all(W)}, Out, 1, 8);
  };
  return C;
}

/// Dynamic shared memory (.extern .shared) of a launch-time size, after a static variable.
KernelCase dynamicShared(uint32_t B) {
  const uint32_t Blocks = 3, N = Blocks * B;
  KernelCase C;
  C.Name = "dynamic shared, block " + std::to_string(B) + ", " + std::to_string(8 * B) + " bytes";
  C.Grid = {Blocks};
  C.Block = {B};
  C.DynamicSharedBytes = 8 * B;
  C.Globals = ".shared .align 4 .b32 {K}_st[32];\n.extern .shared .align 16 .b8 {K}_dyn[];\n";
  C.Buffers = {randomWords(N, 14 + B), Words(3 * N, Sentinel)};
  C.Body = prologue(2) + R"(
  add.s64 %rd0, %b0, %o4;
  ld.global.u32 %r0, [%rd0];
  mov.u32 %r1, {K}_dyn;
  shl.b32 %r2, %tid, 2;
  add.u32 %r3, %r1, %r2;
  st.shared.u32 [%r3], %r0;
  shl.b32 %r4, %ntid, 2;
  add.u32 %r5, %r3, %r4;
  not.b32 %r6, %r0;
  st.shared.u32 [%r5], %r6;
  setp.lt.u32 %p0, %tid, 32;
  mov.u32 %r7, {K}_st;
  add.u32 %r8, %r7, %r2;
  xor.b32 %r9, %r0, 0x5555;
  @%p0 st.shared.u32 [%r8], %r9;
  bar.sync 0;
  mul.wide.u32 %rd9, %gid, 12;
  add.s64 %rd9, %b1, %rd9;
  sub.u32 %r10, %ntid, 1;
  sub.u32 %r10, %r10, %tid;
  shl.b32 %r10, %r10, 2;
  add.u32 %r11, %r1, %r10;
  ld.shared.u32 %r12, [%r11];
  st.global.u32 [%rd9], %r12;
  add.u32 %r13, %tid, 1;
  rem.u32 %r13, %r13, %ntid;
  add.u32 %r13, %r13, %ntid;
  shl.b32 %r13, %r13, 2;
  add.u32 %r14, %r1, %r13;
  ld.shared.u32 %r15, [%r14];
  st.global.u32 [%rd9+4], %r15;
  and.b32 %r16, %tid, 31;
  shl.b32 %r16, %r16, 2;
  add.u32 %r17, %r7, %r16;
  ld.shared.u32 %r18, [%r17];
  st.global.u32 [%rd9+8], %r18;
  ret;)";
  C.Check = [N, B](const std::vector<Words> &In, const std::vector<Words> &Out) {
    Words W(3 * N);
    for (uint32_t I = 0; I < N; ++I) {
      const uint32_t *Blk = &In[0][I / B * B], T = I % B;
      W[3 * I] = Blk[B - 1 - T];
      W[3 * I + 1] = ~Blk[(T + 1) % B];
      W[3 * I + 2] = Blk[T % 32] ^ 0x5555;
    }
    return compareAll({all(W)}, Out, 1, 3);
  };
  return C;
}

/// Function-scope .local arrays: dynamic indices, vectors, and a generic pointer to them.
KernelCase localSpace() {
  const uint32_t N = 4 * 64;
  KernelCase C;
  C.Name = "ld/st.local dynamic index, v4, through cvta.local";
  C.Grid = {4};
  C.Block = {64};
  C.Buffers = {randomWords(N, 15), Words(8 * N, Sentinel)};
  C.Body = prologue(2) + R"(
  .local .align 16 .b32 {K}_l[16];
  add.s64 %rd0, %b0, %o4;
  ld.global.u32 %r0, [%rd0];
  mov.u64 %rd1, {K}_l;
  mov.u32 %r1, 0;
$FILL:
  mul.lo.u32 %r2, %r0, %r1;
  add.u32 %r2, %r2, %gid;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd2, %rd1, %rd2;
  st.local.u32 [%rd2], %r2;
  add.u32 %r1, %r1, 1;
  setp.lt.u32 %p0, %r1, 16;
  @%p0 bra $FILL;
  mul.wide.u32 %rd9, %gid, 32;
  add.s64 %rd9, %b1, %rd9;
  and.b32 %r3, %r0, 15;
  mul.wide.u32 %rd3, %r3, 4;
  add.s64 %rd3, %rd1, %rd3;
  ld.local.u32 %r4, [%rd3];
  st.global.u32 [%rd9], %r4;
  ld.local.v4.u32 {%r5, %r6, %r7, %r8}, [%rd1+16];
  st.global.v4.u32 [%rd9+16], {%r5, %r6, %r7, %r8};
  cvta.local.u64 %rd4, %rd1;
  ld.u32 %r9, [%rd4+8];
  st.global.u32 [%rd9+4], %r9;
  st.u32 [%rd4+12], %r0;
  ld.local.u32 %r10, [{K}_l+12];
  st.global.u32 [%rd9+8], %r10;
  ld.local.u32 %r11, [%rd1+60];
  st.global.u32 [%rd9+12], %r11;
  ret;)";
  C.Check = [N](const std::vector<Words> &In, const std::vector<Words> &Out) {
    Words W(8 * N);
    for (uint32_t I = 0; I < N; ++I) {
      const uint32_t V = In[0][I];
      auto L = [&](uint32_t J) { return V * J + I; };
      W[8 * I] = L(V & 15);
      W[8 * I + 1] = L(2);
      W[8 * I + 2] = V;
      W[8 * I + 3] = L(15);
      for (unsigned K = 0; K < 4; ++K)
        W[8 * I + 4 + K] = L(4 + K);
    }
    return compareAll({all(W)}, Out, 1, 8);
  };
  return C;
}

const uint32_t ConstData[16] = {
    0x00000001, 0x80000000, 0xffffffff, 0x12345678, 0x9abcdef0, 0x0000ff00, 0x7fffffff, 0xdeadbeef,
    0x01020304, 0xcafef00d, 0x00000000, 0x55555555, 0xaaaaaaaa, 0x0f0f0f0f, 0xf0f0f0f0, 0x13579bdf};

std::string constInit() {
  std::string S;
  for (uint32_t V : ConstData)
    S += (S.empty() ? "" : ", ") + hex32(V);
  return S;
}

/// Module .const data with an initialiser: dynamic indices, bytes, vectors, symbol + offset,
/// and a generic pointer from cvta.const (and back through cvta.to.const).
KernelCase constSpace() {
  const uint32_t N = 2 * 64;
  KernelCase C;
  C.Name = "ld.const dynamic index, u8, v4, through cvta.const / cvta.to.const";
  C.Grid = {2};
  C.Block = {64};
  C.Globals = ".const .align 16 .b32 {K}_c[16] = {" + constInit() + "};\n";
  C.Buffers = {Words(8 * N, Sentinel)};
  C.Body = prologue(1) + R"(
  mul.wide.u32 %rd9, %gid, 32;
  add.s64 %rd9, %b0, %rd9;
  mov.u64 %rd0, {K}_c;
  and.b32 %r0, %gid, 15;
  mul.wide.u32 %rd1, %r0, 4;
  add.s64 %rd2, %rd0, %rd1;
  ld.const.u32 %r1, [%rd2];
  st.global.u32 [%rd9], %r1;
  and.b32 %r2, %gid, 63;
  cvt.u64.u32 %rd3, %r2;
  add.s64 %rd3, %rd0, %rd3;
  ld.const.u8 %r3, [%rd3];
  st.global.u32 [%rd9+4], %r3;
  and.b32 %r4, %gid, 3;
  mul.wide.u32 %rd4, %r4, 16;
  add.s64 %rd4, %rd0, %rd4;
  ld.const.v4.u32 {%r5, %r6, %r7, %r8}, [%rd4];
  st.global.v4.u32 [%rd9+16], {%r5, %r6, %r7, %r8};
  ld.const.u32 %r9, [{K}_c+12];
  st.global.u32 [%rd9+8], %r9;
  cvta.const.u64 %rd5, %rd2;
  cvta.to.const.u64 %rd6, %rd5;
  ld.u32 %r10, [%rd5];
  ld.const.u32 %r11, [%rd6];
  add.u32 %r12, %r10, %r11;
  st.global.u32 [%rd9+12], %r12;
  ret;)";
  C.Check = [N](const std::vector<Words> &, const std::vector<Words> &Out) {
    const uint8_t *Bytes = reinterpret_cast<const uint8_t *>(ConstData);
    Words W(8 * N);
    for (uint32_t I = 0; I < N; ++I) {
      W[8 * I] = ConstData[I % 16];
      W[8 * I + 1] = Bytes[I % 64];
      W[8 * I + 2] = ConstData[3];
      W[8 * I + 3] = 2 * ConstData[I % 16];
      for (unsigned K = 0; K < 4; ++K)
        W[8 * I + 4 + K] = ConstData[4 * (I % 4) + K];
    }
    return compareAll({all(W)}, Out, 0, 8);
  };
  return C;
}

template <typename T> std::vector<uint8_t> bytes(T V) {
  std::vector<uint8_t> B(sizeof V);
  std::memcpy(B.data(), &V, sizeof V);
  return B;
}

/// Kernel parameters of every width, at CUDA's offsets (natural alignment, an .align 8
/// aggregate), sign- and zero-extending loads, vector loads; \p Generic: through cvta.param.
KernelCase paramSpace(bool Generic) {
  const uint32_t N = 2 * 64;
  KernelCase C;
  C.Name = Generic ? "ld through cvta.param, isspacep.param" : "ld.param every width, aggregate";
  C.Grid = {2};
  C.Block = {64};
  C.Params = ".param .u64 buf0, .param .u8 p8, .param .s16 p16, .param .u32 p32, .param .u64 "
             "p64, .param .align 8 .b8 agg[24], .param .f32 pf, .param .u8 tail";
  C.Buffers = {Words(16 * N, Sentinel)};
  std::vector<uint8_t> Agg(24);
  for (unsigned I = 0; I < 24; ++I)
    Agg[I] = uint8_t(0x91 + 7 * I);
  C.Args = {Arg{0, {}},
            Arg{-1, bytes<uint8_t>(0xa5)},
            Arg{-1, bytes<int16_t>(-12345)},
            Arg{-1, bytes<uint32_t>(0x89abcdef)},
            Arg{-1, bytes<uint64_t>(0xfedcba9876543210ull)},
            Arg{-1, Agg},
            Arg{-1, bytes<float>(-2.5f)},
            Arg{-1, bytes<uint8_t>(0x7e)}};
  C.Body = prologue(1) + "  mul.wide.u32 %rd9, %gid, 64;\n  add.s64 %rd9, %b0, %rd9;\n";
  if (!Generic)
    C.Body += R"(
  ld.param.u8 %r0, [p8];
  ld.param.s8 %r1, [p8];
  ld.param.s16 %r2, [p16];
  ld.param.u32 %r3, [p32];
  ld.param.u64 %rd0, [p64];
  ld.param.u32 %r4, [agg+4];
  ld.param.v2.u32 {%r5, %r6}, [agg+8];
  ld.param.u64 %rd1, [agg+16];
  ld.param.f32 %r7, [pf];
  ld.param.u8 %r8, [tail];
  st.global.v4.u32 [%rd9], {%r0, %r1, %r2, %r3};
  st.global.u64 [%rd9+16], %rd0;
  st.global.v4.u32 [%rd9+32], {%r4, %r5, %r6, %r7};
  st.global.u64 [%rd9+24], %rd1;
  ld.param.u16 %r9, [agg+2];
  add.u32 %r8, %r8, %r9;
  st.global.u32 [%rd9+48], %r8;
  ret;)";
  else
    C.Body += R"(
  mov.u64 %rd0, agg;
  cvta.param.u64 %rd1, %rd0;
  ld.u32 %r4, [%rd1+4];
  ld.v2.u32 {%r5, %r6}, [%rd1+8];
  ld.u64 %rd2, [%rd1+16];
  mov.u64 %rd3, p64;
  cvta.param.u64 %rd4, %rd3;
  ld.u64 %rd5, [%rd4];
  isspacep.param %p0, %rd1;
  isspacep.shared %p1, %rd1;
  isspacep.local %p2, %rd1;
  selp.u32 %r0, 1, 0, %p0;
  selp.u32 %r1, 1, 0, %p1;
  selp.u32 %r2, 1, 0, %p2;
  mov.u32 %r3, 0;
  mov.u32 %r7, 0;
  st.global.v4.u32 [%rd9], {%r0, %r1, %r2, %r3};
  st.global.u64 [%rd9+16], %rd5;
  st.global.v4.u32 [%rd9+32], {%r4, %r5, %r6, %r7};
  st.global.u64 [%rd9+24], %rd2;
  st.global.u32 [%rd9+48], %r3;
  ret;)";
  C.Check = [N, Agg, Generic](const std::vector<Words> &, const std::vector<Words> &Out) {
    auto A32 = [&](unsigned Off) {
      uint32_t V;
      std::memcpy(&V, &Agg[Off], 4);
      return V;
    };
    const uint32_t A16 = Agg[2] | Agg[3] << 8;
    // The row each thread stores (PTX above); the generic form has predicates and no scalars.
    const uint32_t Row[16] = {Generic ? 1u : 0xa5u,
                              Generic ? 0u : 0xffffffa5u,
                              Generic ? 0u : uint32_t(-12345),
                              Generic ? 0u : 0x89abcdefu,
                              0x76543210u,
                              0xfedcba98u,
                              A32(16),
                              A32(20),
                              A32(4),
                              A32(8),
                              A32(12),
                              Generic ? 0u : std::bit_cast<uint32_t>(-2.5f),
                              Generic ? 0u : 0x7eu + A16,
                              Sentinel,
                              Sentinel,
                              Sentinel};
    Words W(16 * N);
    for (uint32_t I = 0; I < N; ++I)
      std::copy(Row, Row + 16, &W[16 * I]);
    return compareAll({all(W)}, Out, 0, 16);
  };
  return C;
}

/// Generic pointers to each space (cvta) with loads and stores through them, back to the space
/// (cvta.to) and isspacep of every space on each.
KernelCase genericPointers() {
  const uint32_t Blocks = 2, B = 128, N = Blocks * B;
  KernelCase C;
  C.Name = "cvta/cvta.to every space, ld/st generic, isspacep";
  C.Grid = {Blocks};
  C.Block = {B};
  C.Globals = ".shared .align 8 .b32 {K}_s[128];\n.const .align 4 .b32 {K}_c[16] = {" +
              constInit() + "};\n";
  C.Buffers = {randomWords(N, 16), Words(N, Sentinel), Words(8 * N, Sentinel)};
  C.Body = prologue(3) + R"(
  .local .align 8 .b32 {K}_l[4];
  add.s64 %rd0, %b0, %o4;
  ld.global.u32 %r0, [%rd0];
  cvta.to.global.u64 %rd1, %b1;
  add.s64 %rd1, %rd1, %o4;
  cvta.global.u64 %rd10, %rd1;
  mov.u32 %r1, {K}_s;
  shl.b32 %r2, %tid, 2;
  add.u32 %r1, %r1, %r2;
  cvt.u64.u32 %rd2, %r1;
  cvta.shared.u64 %rd11, %rd2;
  mov.u64 %rd3, {K}_l;
  cvta.local.u64 %rd12, %rd3;
  mov.u64 %rd4, {K}_c;
  and.b32 %r3, %gid, 15;
  mul.wide.u32 %rd5, %r3, 4;
  add.s64 %rd4, %rd4, %rd5;
  cvta.const.u64 %rd13, %rd4;
  st.u32 [%rd10], %r0;
  not.b32 %r4, %r0;
  st.u32 [%rd11], %r4;
  add.u32 %r5, %r0, 7;
  st.u32 [%rd12+4], %r5;
  bar.sync 0;
  mul.wide.u32 %rd9, %gid, 32;
  add.s64 %rd9, %b2, %rd9;
  cvta.to.shared.u64 %rd14, %rd11;
  cvt.u32.u64 %r6, %rd14;
  add.u32 %r7, %tid, 1;
  and.b32 %r7, %r7, 127;
  mov.u32 %r8, {K}_s;
  shl.b32 %r7, %r7, 2;
  add.u32 %r8, %r8, %r7;
  cvt.u64.u32 %rd15, %r8;
  cvta.shared.u64 %rd15, %rd15;
  ld.u32 %r9, [%rd15];
  st.global.u32 [%rd9], %r9;
  ld.shared.u32 %r10, [%r6];
  st.global.u32 [%rd9+4], %r10;
  cvta.to.local.u64 %rd16, %rd12;
  ld.local.u32 %r11, [%rd16+4];
  st.global.u32 [%rd9+8], %r11;
  ld.u32 %r12, [%rd13];
  cvta.to.const.u64 %rd17, %rd13;
  ld.const.u32 %r13, [%rd17];
  xor.b32 %r12, %r12, %r13;
  st.global.u32 [%rd9+12], %r12;
  cvta.to.global.u64 %rd18, %rd10;
  ld.global.u32 %r14, [%rd18];
  st.global.u32 [%rd9+16], %r14;
  ld.u32 %r15, [%rd13];
  st.global.u32 [%rd9+20], %r15;
  mov.u32 %r16, 0;
  isspacep.global %p0, %rd10;
  selp.u32 %r17, 1, 0, %p0;
  or.b32 %r16, %r16, %r17;
  isspacep.global %p0, %rd11;
  selp.u32 %r17, 2, 0, %p0;
  or.b32 %r16, %r16, %r17;
  isspacep.global %p0, %rd12;
  selp.u32 %r17, 4, 0, %p0;
  or.b32 %r16, %r16, %r17;
  isspacep.global %p0, %rd13;
  selp.u32 %r17, 8, 0, %p0;
  or.b32 %r16, %r16, %r17;
  isspacep.shared %p0, %rd10;
  selp.u32 %r17, 0x10, 0, %p0;
  or.b32 %r16, %r16, %r17;
  isspacep.shared %p0, %rd11;
  selp.u32 %r17, 0x20, 0, %p0;
  or.b32 %r16, %r16, %r17;
  isspacep.shared %p0, %rd12;
  selp.u32 %r17, 0x40, 0, %p0;
  or.b32 %r16, %r16, %r17;
  isspacep.shared %p0, %rd13;
  selp.u32 %r17, 0x80, 0, %p0;
  or.b32 %r16, %r16, %r17;
  isspacep.local %p0, %rd10;
  selp.u32 %r17, 0x100, 0, %p0;
  or.b32 %r16, %r16, %r17;
  isspacep.local %p0, %rd11;
  selp.u32 %r17, 0x200, 0, %p0;
  or.b32 %r16, %r16, %r17;
  isspacep.local %p0, %rd12;
  selp.u32 %r17, 0x400, 0, %p0;
  or.b32 %r16, %r16, %r17;
  isspacep.local %p0, %rd13;
  selp.u32 %r17, 0x800, 0, %p0;
  or.b32 %r16, %r16, %r17;
  isspacep.const %p0, %rd10;
  selp.u32 %r17, 0x1000, 0, %p0;
  or.b32 %r16, %r16, %r17;
  isspacep.const %p0, %rd11;
  selp.u32 %r17, 0x2000, 0, %p0;
  or.b32 %r16, %r16, %r17;
  isspacep.const %p0, %rd12;
  selp.u32 %r17, 0x4000, 0, %p0;
  or.b32 %r16, %r16, %r17;
  isspacep.const %p0, %rd13;
  selp.u32 %r17, 0x8000, 0, %p0;
  or.b32 %r16, %r16, %r17;
  st.global.u32 [%rd9+24], %r16;
  ret;)";
  C.Check = [N, B](const std::vector<Words> &In, const std::vector<Words> &Out) {
    // isspacep: a pointer is in its own space only; a const pointer is not global and a global
    // one not const, though AMDGPU has one address range for both.
    const uint32_t Spaces = 0x1 | 0x20 | 0x400 | 0x8000;
    Words W(8 * N, Sentinel);
    for (uint32_t I = 0; I < N; ++I) {
      const uint32_t *Blk = &In[0][I / B * B], T = I % B;
      W[8 * I] = ~Blk[(T + 1) % B];
      W[8 * I + 1] = ~Blk[T];
      W[8 * I + 2] = In[0][I] + 7;
      W[8 * I + 3] = 0;
      W[8 * I + 4] = In[0][I];
      W[8 * I + 5] = ConstData[I % 16];
      W[8 * I + 6] = Spaces;
    }
    return compareAll({all(In[0]), all(W)}, Out, 1, 8);
  };
  return C;
}

KernelFamily memorySpaces() {
  KernelFamily F{"memory-spaces", {}};
  F.Cases = {globalWidths(),     globalVectors(),  sharedSpace(), dynamicShared(128),
             dynamicShared(256), localSpace(),     constSpace(),  paramSpace(false),
             paramSpace(true),   genericPointers()};
  return F;
}

// --- atomics under contention ----------------------------------------------------------------

enum class Space { Global, Shared, GenericGlobal, GenericShared };

/// One read-modify-write: its PTX (`{old}`, `{a}`, `{v}`, `{v2}` and `{sp}` = ".global",
/// ".shared" or "" are filled in), its value width and semantics, and how the values are drawn.
struct Rmw {
  std::string Name, Ptx;
  unsigned Bits;
  std::function<uint64_t(uint64_t Old, uint64_t V, uint64_t V2)> F;
  std::function<uint64_t(std::mt19937_64 &, uint32_t Gid)> Value, Value2;
  uint64_t Init;
  bool Red = false; ///< no old value to check
};

std::string fill(std::string T, const std::map<std::string, std::string> &With) {
  for (const auto &[Key, Value] : With)
    for (size_t At = T.find(Key); At != std::string::npos; At = T.find(Key, At + Value.size()))
      T.replace(At, Key.size(), Value);
  return T;
}

/// Whether the old values of the accesses to one location form one serial order from \p Init
/// that ends at \p Final: each access saw the value the one before it left.
std::string serialOrder(const Rmw &Op, uint64_t Init, uint64_t Final,
                        const std::vector<std::array<uint64_t, 3>> &Accesses) {
  const uint64_t M = mask(Op.Bits);
  std::multimap<uint64_t, std::pair<uint64_t, uint64_t>> ByOld;
  for (const auto &[V, V2, Old] : Accesses)
    ByOld.emplace(Old & M, std::pair{V, V2});
  uint64_t Cur = Init & M;
  while (!ByOld.empty()) {
    auto [Lo, Hi] = ByOld.equal_range(Cur);
    if (Lo == Hi)
      return "no access saw " + std::to_string(Cur) + " (" + std::to_string(ByOld.size()) +
             " accesses left, e.g. one saw " + std::to_string(ByOld.begin()->first) + ")";
    // Accesses that leave the value alone go first: the others cannot return to it.
    auto Pick = Lo;
    for (auto I = Lo; I != Hi; ++I)
      if ((Op.F(Cur, I->second.first, I->second.second) & M) == Cur) {
        Pick = I;
        break;
      }
    Cur = Op.F(Cur, Pick->second.first, Pick->second.second) & M;
    ByOld.erase(Pick);
  }
  if (Cur != (Final & M))
    return "the serial order ends at " + std::to_string(Cur) + ", the location holds " +
           std::to_string(Final & M);
  return {};
}

KernelCase atomicCase(const Rmw &Op, Space Sp, uint64_t Seed) {
  const bool Shared = Sp == Space::Shared || Sp == Space::GenericShared;
  const uint32_t Blocks = Shared ? 4 : 8, B = Shared ? 256 : 128, N = Blocks * B;
  const uint32_t Slots = Shared ? 2 : 4, SlotWords = 2 * (Shared ? Blocks * Slots : Slots);
  static const char *SpaceNames[] = {"global", "shared", "generic global", "generic shared"};
  KernelCase C;
  C.Name = Op.Name + " " + SpaceNames[int(Sp)];
  C.Grid = {Blocks};
  C.Block = {B};
  std::mt19937_64 R(Seed);
  Words V(2 * N), V2(2 * N), Slot(SlotWords);
  for (uint32_t I = 0; I < N; ++I) {
    const uint64_t X = Op.Value(R, I), Y = Op.Value2 ? Op.Value2(R, I) : 0;
    V[2 * I] = uint32_t(X), V[2 * I + 1] = uint32_t(X >> 32);
    V2[2 * I] = uint32_t(Y), V2[2 * I + 1] = uint32_t(Y >> 32);
  }
  // A 32-bit access must leave the high half of its 8-byte slot alone.
  for (uint32_t I = 0; I < SlotWords / 2; ++I)
    Slot[2 * I] = uint32_t(Op.Init),
             Slot[2 * I + 1] = Op.Bits == 64 ? uint32_t(Op.Init >> 32) : 0x5a5a5a5a;
  C.Buffers = {V, V2, Slot, Words(2 * N, Sentinel)};
  const bool Wide = Op.Bits == 64;
  const std::string Reg = Wide ? "%rd" : "%r";
  C.Globals = Shared ? ".shared .align 8 .b64 {K}_s[2];\n" : "";
  std::string Body = prologue(4) + "  .reg .b32 %old32;\n  .reg .b64 %old64;\n";
  Body += "  add.s64 %rd0, %b0, %o8;\n  ld.global.u64 %rd11, [%rd0];\n"
          "  add.s64 %rd0, %b1, %o8;\n  ld.global.u64 %rd12, [%rd0];\n"
          "  cvt.u32.u64 %r11, %rd11;\n  cvt.u32.u64 %r12, %rd12;\n";
  std::string Addr;
  if (!Shared) {
    Body += "  rem.u32 %r2, %gid, " + std::to_string(Slots) +
            ";\n  mul.wide.u32 %rd4, %r2, 8;\n  add.s64 %rd5, %b2, %rd4;\n";
    Addr = "%rd5";
    if (Sp == Space::GenericGlobal)
      Body += "  cvta.to.global.u64 %rd5, %rd5;\n  cvta.global.u64 %rd6, %rd5;\n", Addr = "%rd6";
  } else {
    // The block's slots, copied in and out around the contention.
    Body += "  rem.u32 %r2, %tid, " + std::to_string(Slots) +
            ";\n  mov.u32 %r3, {K}_s;\n  shl.b32 %r4, %r2, 3;\n  add.u32 %r5, %r3, %r4;\n"
            "  mad.lo.u32 %r6, %cta, " +
            std::to_string(Slots) +
            ", %r2;\n  mul.wide.u32 %rd4, %r6, 8;\n  add.s64 %rd5, %b2, %rd4;\n"
            "  setp.lt.u32 %p1, %tid, " +
            std::to_string(Slots) +
            ";\n  @%p1 ld.global.u64 %rd7, [%rd5];\n  @%p1 st.shared.u64 [%r5], %rd7;\n"
            "  bar.sync 0;\n";
    Addr = "%r5";
    if (Sp == Space::GenericShared)
      Body += "  cvt.u64.u32 %rd8, %r5;\n  cvta.shared.u64 %rd6, %rd8;\n", Addr = "%rd6";
  }
  const std::string SpaceSuffix = Sp == Space::Global   ? ".global"
                                  : Sp == Space::Shared ? ".shared"
                                                        : "";
  Body += fill(Op.Ptx, {{"{old}", Wide ? "%old64" : "%old32"},
                        {"{a}", Addr},
                        {"{v}", Reg + "11"},
                        {"{v2}", Reg + "12"},
                        {"{sp}", SpaceSuffix}}) +
          "\n";
  if (!Op.Red)
    Body += std::string(Wide ? "" : "  cvt.u64.u32 %old64, %old32;\n") +
            "  add.s64 %rd9, %b3, %o8;\n  st.global.u64 [%rd9], %old64;\n";
  if (Shared)
    Body += "  bar.sync 0;\n  @%p1 ld.shared.u64 %rd7, [%r5];\n  @%p1 st.global.u64 [%rd5], "
            "%rd7;\n";
  C.Body = Body + "  ret;";
  C.Check = [Op, N, B, Slots, Shared](const std::vector<Words> &In,
                                      const std::vector<Words> &Out) -> std::string {
    auto Q = [](const Words &W, size_t I) {
      return uint64_t(W[2 * I]) | uint64_t(W[2 * I + 1]) << 32;
    };
    const uint64_t M = mask(Op.Bits);
    std::map<size_t, std::vector<std::array<uint64_t, 3>>> BySlot;
    for (uint32_t I = 0; I < N; ++I) {
      const size_t S = Shared ? I / B * Slots + I % B % Slots : I % Slots;
      BySlot[S].push_back({Q(In[0], I) & M, Q(In[1], I) & M, Q(Out[3], I)});
    }
    for (auto &[S, Accesses] : BySlot) {
      const uint64_t Init = Q(In[2], S), Final = Q(Out[2], S);
      const std::string Where = "slot " + std::to_string(S) + ": ";
      if ((Final & ~M) != (Init & ~M))
        return Where + "the high half of a 32-bit location changed";
      if (!Op.Red) {
        if (std::string R = serialOrder(Op, Init, Final, Accesses); !R.empty())
          return Where + R;
        continue;
      }
      uint64_t Want = Init & M; // red: the operations commute (or are all the same)
      for (const auto &A : Accesses)
        Want = Op.F(Want, A[0], A[1]) & M;
      if (Want != (Final & M))
        return Where + "expected " + std::to_string(Want) + " got " + std::to_string(Final & M);
    }
    return {};
  };
  return C;
}

std::vector<Rmw> rmws() {
  using R64 = std::mt19937_64;
  auto Small = [](R64 &R, uint32_t) { return 1 + R() % 4; };
  auto Wide = [](R64 &R, uint32_t) { return (R() >> 24) + 1; };
  auto Any = [](R64 &R, uint32_t) { return R() >> (R() % 2 ? 0 : 40); };
  auto Float = [](R64 &R, uint32_t) {
    return uint64_t(std::bit_cast<uint32_t>(float(1 + R() % 4)));
  };
  auto Const = [](uint64_t X) { return [X](R64 &, uint32_t) { return X; }; };
  auto Gid = [](R64 &, uint32_t G) { return uint64_t(G) + 1; };
  auto ClearBit = [](R64 &R, uint32_t) { return ~(1ull << R() % 64); };
  auto SetBit = [](R64 &R, uint32_t) { return 1ull << R() % 64; };
  auto Add = [](uint64_t O, uint64_t V, uint64_t) { return O + V; };
  auto FAdd = [](uint64_t O, uint64_t V, uint64_t) {
    return uint64_t(std::bit_cast<uint32_t>(std::bit_cast<float>(uint32_t(O)) +
                                            std::bit_cast<float>(uint32_t(V))));
  };
  auto Inc = [](uint64_t O, uint64_t V, uint64_t) {
    return uint32_t(O) >= uint32_t(V) ? 0 : O + 1;
  };
  auto Dec = [](uint64_t O, uint64_t V, uint64_t) {
    return O == 0 || uint32_t(O) > uint32_t(V) ? V : O - 1;
  };
  auto MinU = [](uint64_t O, uint64_t V, uint64_t) { return std::min(O, V); };
  auto MaxU = [](uint64_t O, uint64_t V, uint64_t) { return std::max(O, V); };
  auto MinS32 = [](uint64_t O, uint64_t V, uint64_t) { return int32_t(O) < int32_t(V) ? O : V; };
  auto MaxS32 = [](uint64_t O, uint64_t V, uint64_t) { return int32_t(O) > int32_t(V) ? O : V; };
  auto MaxS64 = [](uint64_t O, uint64_t V, uint64_t) { return int64_t(O) > int64_t(V) ? O : V; };
  auto And = [](uint64_t O, uint64_t V, uint64_t) { return O & V; };
  auto Or = [](uint64_t O, uint64_t V, uint64_t) { return O | V; };
  auto Xor = [](uint64_t O, uint64_t V, uint64_t) { return O ^ V; };
  auto Exch = [](uint64_t, uint64_t V, uint64_t) { return V; };
  auto Cas = [](uint64_t O, uint64_t Cmp, uint64_t New) { return O == Cmp ? New : O; };
  const std::string A = "  atom{sp}.", Args = " {old}, [{a}], {v};";
  const std::string Rd = "  red{sp}.", RArgs = " [{a}], {v};";
  std::vector<Rmw> L = {
      {"atom.add.u32", A + "add.u32" + Args, 32, Add, Small, {}, 0},
      {"atom.add.u64", A + "add.u64" + Args, 64, Add, Wide, {}, 0xffffff00},
      {"atom.add.f32", A + "add.f32" + Args, 32, FAdd, Float, {}, 0},
      {"atom.inc.u32", A + "inc.u32" + Args, 32, Inc, Const(37), {}, 0},
      {"atom.dec.u32", A + "dec.u32" + Args, 32, Dec, Const(37), {}, 5},
      {"atom.min.u32", A + "min.u32" + Args, 32, MinU, Any, {}, 0x80000000},
      {"atom.max.u32", A + "max.u32" + Args, 32, MaxU, Any, {}, 0x7fffffff},
      {"atom.min.s32", A + "min.s32" + Args, 32, MinS32, Any, {}, 0},
      {"atom.max.s32", A + "max.s32" + Args, 32, MaxS32, Any, {}, 0x80000000},
      {"atom.min.u64", A + "min.u64" + Args, 64, MinU, Any, {}, ~0ull},
      {"atom.max.s64", A + "max.s64" + Args, 64, MaxS64, Any, {}, 1ull << 63},
      {"atom.and.b32", A + "and.b32" + Args, 32, And, ClearBit, {}, ~0ull},
      {"atom.or.b32", A + "or.b32" + Args, 32, Or, SetBit, {}, 0},
      {"atom.xor.b32", A + "xor.b32" + Args, 32, Xor, Any, {}, 0x12345678},
      {"atom.and.b64", A + "and.b64" + Args, 64, And, ClearBit, {}, ~0ull},
      {"atom.or.b64", A + "or.b64" + Args, 64, Or, SetBit, {}, 0},
      {"atom.xor.b64", A + "xor.b64" + Args, 64, Xor, Any, {}, 1},
      {"atom.exch.b32", A + "exch.b32" + Args, 32, Exch, Gid, {}, 0},
      {"atom.exch.b64",
       A + "exch.b64" + Args,
       64,
       Exch,
       [](R64 &, uint32_t G) { return (uint64_t(G) + 1) << 32 | G; },
       {},
       0},
      {"atom.cas.b32 (one winner)", A + "cas.b32 {old}, [{a}], {v}, {v2};", 32, Cas, Const(0x1234),
       Gid, 0x1234},
      {"atom.cas.b64 (one winner)", A + "cas.b64 {old}, [{a}], {v}, {v2};", 64, Cas,
       Const(1ull << 40), Gid, 1ull << 40},
      // A compare-and-swap loop adding v: the successful swaps' old values form the order.
      {"atom.cas.b32 add loop",
       A +
           "cas.b32 {old}, [{a}], 0, 0;\n$RETRY:\n"
           "  add.u32 %r13, {old}, {v};\n  mov.u32 %r14, {old};\n" +
           A +
           "cas.b32 {old}, [{a}], %r14, %r13;\n"
           "  setp.ne.u32 %p2, {old}, %r14;\n  @%p2 bra $RETRY;",
       32,
       Add,
       Small,
       {},
       7},
      {"red.add.u32", Rd + "add.u32" + RArgs, 32, Add, Small, {}, 0, true},
      {"red.add.u64", Rd + "add.u64" + RArgs, 64, Add, Wide, {}, 0xffffff00, true},
      {"red.add.f32", Rd + "add.f32" + RArgs, 32, FAdd, Float, {}, 0, true},
      {"red.inc.u32", Rd + "inc.u32" + RArgs, 32, Inc, Const(37), {}, 0, true},
      {"red.dec.u32", Rd + "dec.u32" + RArgs, 32, Dec, Const(37), {}, 5, true},
      {"red.min.s32", Rd + "min.s32" + RArgs, 32, MinS32, Any, {}, 0, true},
      {"red.max.u64", Rd + "max.u64" + RArgs, 64, MaxU, Any, {}, 0, true},
      {"red.and.b32", Rd + "and.b32" + RArgs, 32, And, ClearBit, {}, ~0ull, true},
      {"red.or.b64", Rd + "or.b64" + RArgs, 64, Or, SetBit, {}, 0, true},
      {"red.xor.b32", Rd + "xor.b32" + RArgs, 32, Xor, Any, {}, 0, true},
  };
  return L;
}

KernelFamily atomics() {
  KernelFamily F{"memory-atomics", {}};
  uint64_t Seed = 0xa70;
  for (const Rmw &Op : rmws())
    for (Space S : {Space::Global, Space::Shared})
      F.Cases.push_back(atomicCase(Op, S, Seed++));
  for (const Rmw &Op : rmws())
    if (Op.Name == "atom.add.u32" || Op.Name == "atom.exch.b64" || Op.Name == "atom.add.f32")
      for (Space S : {Space::GenericGlobal, Space::GenericShared})
        F.Cases.push_back(atomicCase(Op, S, Seed++));
  return F;
}

// --- barriers ---------------------------------------------------------------------------------

/// Rounds of exchanges through shared memory, each between barriers of other forms and ids.
KernelCase barrierRounds(uint32_t B, bool Counted) {
  const uint32_t Blocks = 4, N = Blocks * B;
  KernelCase C;
  const std::string Bs = std::to_string(B);
  C.Name = Counted ? "bar.sync/barrier.sync with count = block (.reqntid " + Bs + ")"
                   : "bar.sync/barrier.sync ids 0-4, register id, block " + Bs;
  C.Grid = {Blocks};
  C.Block = {B};
  if (Counted)
    C.Directives = ".reqntid " + Bs + ", 1, 1";
  C.Globals = ".shared .align 4 .b32 {K}_s[" + Bs + "];\n";
  C.Buffers = {randomWords(N, 17 + B), Words(N, Sentinel)};
  // Each round: read the neighbour K away, barrier, write f(x), barrier.
  const char *Barriers[] = {"bar.sync 1", "barrier.sync 2", "bar.sync %r9",
                            "barrier.sync.aligned 4", "bar.sync 0"};
  const char *CountedBarriers[] = {"bar.sync 1, ", "barrier.sync 2, ", "bar.sync 3, ",
                                   "barrier.sync.aligned 4, ", "bar.sync 0, "};
  std::string Body = prologue(2) + "  add.s64 %rd0, %b0, %o4;\n  ld.global.u32 %r0, [%rd0];\n"
                                   "  mov.u32 %r1, {K}_s;\n  shl.b32 %r2, %tid, 2;\n"
                                   "  add.u32 %r3, %r1, %r2;\n  mov.u32 %r9, 3;\n"
                                   "  st.shared.u32 [%r3], %r0;\n  bar.sync 0;\n";
  for (unsigned K = 0; K < 5; ++K) {
    const std::string Step = std::to_string(2 * K + 1);
    Body += "  add.u32 %r4, %tid, " + Step +
            ";\n  rem.u32 %r4, %r4, %ntid;\n"
            "  shl.b32 %r4, %r4, 2;\n  add.u32 %r4, %r1, %r4;\n  ld.shared.u32 %r5, [%r4];\n  " +
            (Counted ? CountedBarriers[K] + Bs : std::string(Barriers[K])) +
            ";\n  mad.lo.u32 %r0, %r5, 3, " + Step + ";\n  st.shared.u32 [%r3], %r0;\n  " +
            (Counted ? CountedBarriers[(K + 1) % 5] + Bs : std::string(Barriers[(K + 1) % 5])) +
            ";\n";
  }
  C.Body = Body + "  add.s64 %rd1, %b1, %o4;\n  st.global.u32 [%rd1], %r0;\n  ret;";
  C.Check = [N, B](const std::vector<Words> &In, const std::vector<Words> &Out) {
    Words W(In[0]);
    for (uint32_t Blk = 0; Blk < N / B; ++Blk)
      for (unsigned K = 0; K < 5; ++K) {
        Words Next(B);
        for (uint32_t T = 0; T < B; ++T)
          Next[T] = W[Blk * B + (T + 2 * K + 1) % B] * 3 + 2 * K + 1;
        std::copy(Next.begin(), Next.end(), W.begin() + Blk * B);
      }
    return compareAll({all(W)}, Out, 1);
  };
  return C;
}

/// bar.red.popc/and/or over the block, twice in a row with other predicates (the reduction
/// must start afresh), optionally with the block's thread count.
KernelCase barrierReductions(uint32_t B, bool Counted) {
  const uint32_t Blocks = 6, N = Blocks * B;
  KernelCase C;
  const std::string Bs = std::to_string(B);
  C.Name = std::string("bar.red.popc/and/or") + (Counted ? " with count" : "") + ", block " + Bs;
  C.Grid = {Blocks};
  C.Block = {B};
  if (Counted)
    C.Directives = ".reqntid " + Bs + ", 1, 1";
  std::mt19937_64 R(0xba7 + B);
  Words P(N);
  for (uint32_t I = 0; I < N; ++I) {
    const uint32_t Blk = I / B, T = I % B;
    P[I] = Blk == 0   ? 0
           : Blk == 1 ? 1
           : Blk == 3 ? T == 7
           : Blk == 4 ? T != B - 1
                      : uint32_t(R() % 2);
  }
  C.Buffers = {P, Words(8 * N, Sentinel)};
  const std::string Cnt = Counted ? Bs + ", " : "";
  C.Body = prologue(2) +
           "  add.s64 %rd0, %b0, %o4;\n  ld.global.u32 %r0, [%rd0];\n"
           "  setp.ne.u32 %p0, %r0, 0;\n  and.b32 %r1, %tid, 1;\n"
           "  setp.ne.u32 %p1, %r1, 0;\n  xor.pred %p1, %p1, %p0;\n"
           "  bar.red.popc.u32 %r2, 0, " +
           Cnt +
           "%p0;\n"
           "  bar.red.and.pred %p2, 1, " +
           Cnt +
           "%p0;\n"
           "  bar.red.or.pred %p3, 2, " +
           Cnt +
           "%p0;\n"
           "  bar.red.popc.u32 %r3, 3, " +
           Cnt +
           "!%p1;\n"
           "  bar.red.and.pred %p4, 0, " +
           Cnt +
           "!%p0;\n"
           "  bar.red.or.pred %p5, 1, " +
           Cnt +
           "%p1;\n"
           "  selp.u32 %r4, 1, 0, %p2;\n  selp.u32 %r5, 1, 0, %p3;\n"
           "  selp.u32 %r6, 1, 0, %p4;\n  selp.u32 %r7, 1, 0, %p5;\n"
           "  mul.wide.u32 %rd1, %gid, 32;\n  add.s64 %rd1, %b1, %rd1;\n"
           "  st.global.v2.u32 [%rd1], {%r2, %r3};\n"
           "  st.global.v4.u32 [%rd1+16], {%r4, %r5, %r6, %r7};\n  ret;";
  C.Check = [N, B](const std::vector<Words> &In, const std::vector<Words> &Out) {
    Words W(8 * N, Sentinel);
    for (uint32_t Blk = 0; Blk < N / B; ++Blk) {
      uint32_t Pop = 0, Pop2 = 0;
      bool All = true, Any = false, AllNot = true, Any2 = false;
      for (uint32_t T = 0; T < B; ++T) {
        const bool P = In[0][Blk * B + T] != 0, P1 = (T & 1) != P;
        Pop += P, Pop2 += !P1, All &= P, Any |= P, AllNot &= !P, Any2 |= P1;
      }
      for (uint32_t T = 0; T < B; ++T) {
        uint32_t *Row = &W[8 * (Blk * B + T)];
        Row[0] = Pop, Row[1] = Pop2, Row[4] = All, Row[5] = Any, Row[6] = AllNot, Row[7] = Any2;
      }
    }
    return compareAll({all(W)}, Out, 1, 8);
  };
  return C;
}

KernelFamily barriers() {
  KernelFamily F{"memory-barriers", {}};
  F.Cases = {barrierRounds(256, false),    barrierRounds(96, false),
             barrierRounds(128, true),     barrierReductions(256, false),
             barrierReductions(96, false), barrierReductions(128, true)};
  return F;
}

} // namespace

std::vector<KernelFamily> memoryFamilies() { return {memorySpaces(), atomics(), barriers()}; }

} // namespace conformance
