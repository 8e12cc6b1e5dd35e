// Memory families: every state space (global, shared with 32- and 64-bit addresses, dynamic
// shared, local, const, param), generic pointers (cvta, cvta.to, isspacep), vector accesses,
// atomics under contention from many work-items and workgroups, and barriers. References follow
// the PTX ISA; an atomic's returned old values are checked exactly too: the accesses to one
// location must form one serial order (each old value is the location's value at that point).
//
// The kernels' prologue and buffer comparison are in MemorySupport.h; atomics and barriers are in
// MemorySyncFamilies.cpp.
#include "MemorySupport.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <map>
#include <random>
#include <sstream>

namespace conformance {

namespace memory_families {

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

} // namespace memory_families

using namespace memory_families;

std::vector<KernelFamily> memoryFamilies() { return {memorySpaces(), atomics(), barriers()}; }

} // namespace conformance
