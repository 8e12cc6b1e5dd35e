// The project's device library: functions that translated kernels call, compiled by clang-22 for
// amdgcn at build time (once per wave size) and linked into a module only where it calls them.
// Record layout: include/ptx2amd/amdgpu-backend/DeviceOutput.h.

typedef unsigned char u8;
typedef unsigned int u32;
typedef unsigned long u64;

#define GLOBAL __attribute__((address_space(1)))

struct OutputBuffer {
  u32 Capacity;
  u32 Used;
  u32 Dropped;
  u32 Reserved;
  u8 Data[];
};

// Set by the loader; null (no buffer) drops the output.
GLOBAL struct OutputBuffer *__attribute__((visibility("protected"))) __ptx2amd_output_buffer;

static u32 length(const char *S) {
  u32 N = 0;
  while (S[N])
    ++N;
  return N;
}

static u32 align8(u32 N) { return (N + 7u) & ~7u; }

/// Reserves \p Size bytes (a multiple of 8) for one record, or returns null when they do not fit.
static GLOBAL u8 *reserve(u32 Size) {
  GLOBAL struct OutputBuffer *Buf = __ptx2amd_output_buffer;
  if (!Buf)
    return 0;
  u32 At = __scoped_atomic_fetch_add(&Buf->Used, Size, __ATOMIC_RELAXED, __MEMORY_SCOPE_SYSTEM);
  if (At > Buf->Capacity || Buf->Capacity - At < Size) {
    __scoped_atomic_fetch_add(&Buf->Dropped, 1u, __ATOMIC_RELAXED, __MEMORY_SCOPE_SYSTEM);
    return 0;
  }
  return Buf->Data + At;
}

static void put32(GLOBAL u8 *P, u32 V) { *(GLOBAL u32 *)P = V; }

static void copy(GLOBAL u8 *To, const char *From, u32 N) {
  for (u32 K = 0; K < N; ++K)
    To[K] = (u8)From[K];
}

/// Walks a printf format: for each conversion, its argument's size (4 or 8) and whether it is a
/// string. Returns the number of conversions written to the arrays (at most \p Max).
static u32 conversions(const char *Fmt, u8 *Size, u8 *IsString, u32 Max) {
  u32 N = 0;
  for (const char *P = Fmt; *P && N < Max; ++P) {
    if (*P != '%')
      continue;
    ++P;
    if (*P == '%')
      continue;
    u32 Longs = 0;
    for (; *P; ++P) {
      char C = *P;
      if (C == 'l' || C == 'L' || C == 'j' || C == 'z' || C == 't' || C == 'q') {
        ++Longs;
        continue;
      }
      if (C == 'h' || C == '-' || C == '+' || C == ' ' || C == '#' || C == '.' ||
          (C >= '0' && C <= '9'))
        continue;
      if (C == '*') { // a width or precision argument: an int
        Size[N] = 4;
        IsString[N++] = 0;
        if (N == Max)
          return N;
        continue;
      }
      break;
    }
    char C = *P;
    if (!C)
      break;
    int Float = C == 'f' || C == 'F' || C == 'e' || C == 'E' || C == 'g' || C == 'G' ||
                C == 'a' || C == 'A';
    Size[N] = (Float || C == 'p' || C == 's' || Longs) ? 8 : 4;
    IsString[N++] = C == 's';
  }
  return N;
}

#define MAX_ARGS 64

// Not inlined: a printf is rare and its code is large.
__attribute__((noinline)) int __ptx2amd_vprintf(u64 FormatAddress, u64 ArgsAddress) {
  const char *Fmt = (const char *)FormatAddress;
  const u8 *Args = (const u8 *)ArgsAddress;
  if (!Fmt)
    return -1;
  u8 Size[MAX_ARGS], IsString[MAX_ARGS];
  u32 N = conversions(Fmt, Size, IsString, MAX_ARGS);
  u32 FmtBytes = length(Fmt) + 1;
  u32 ArgBytes = 0, StringBytes = 0;
  for (u32 K = 0; K < N; ++K) {
    ArgBytes = (ArgBytes + Size[K] - 1) & ~(u32)(Size[K] - 1);
    if (IsString[K]) {
      const char *S = *(const char *const *)(Args + ArgBytes);
      StringBytes += align8((S ? length(S) : 6) + 1);
    }
    ArgBytes += Size[K];
  }
  u32 Total = 16 + align8(FmtBytes) + align8(ArgBytes) + StringBytes;
  GLOBAL u8 *R = reserve(Total);
  if (!R)
    return -1;
  put32(R, Total);
  put32(R + 4, 1);
  put32(R + 8, FmtBytes);
  put32(R + 12, ArgBytes);
  copy(R + 16, Fmt, FmtBytes);
  GLOBAL u8 *A = R + 16 + align8(FmtBytes);
  copy(A, (const char *)Args, ArgBytes);
  u32 At = 0, Strings = 16 + align8(FmtBytes) + align8(ArgBytes);
  for (u32 K = 0; K < N; ++K) {
    At = (At + Size[K] - 1) & ~(u32)(Size[K] - 1);
    if (IsString[K]) {
      const char *S = *(const char *const *)(Args + At);
      if (!S)
        S = "(null)";
      u32 Len = length(S) + 1;
      copy(R + Strings, S, Len);
      *(GLOBAL u64 *)(A + At) = Strings;
      Strings += align8(Len);
    }
    At += Size[K];
  }
  return (int)N;
}

// cudaGraphSetConditional: a conditional handle is the device address of the 32-bit value that
// the runtime reads when the conditional node runs, after the kernel is done.
__attribute__((noinline)) void __ptx2amd_graph_set_conditional(u64 Handle, u32 Value) {
  __scoped_atomic_store_n((GLOBAL u32 *)Handle, Value, __ATOMIC_RELAXED, __MEMORY_SCOPE_SYSTEM);
}

// CharSize is always 1 for CUDA's char strings.
__attribute__((noinline)) void __ptx2amd_assertfail(u64 Message, u64 File, u32 Line, u64 Function, u64 CharSize) {
  (void)CharSize;
  const char *M = Message ? (const char *)Message : "";
  const char *F = File ? (const char *)File : "";
  const char *Fn = Function ? (const char *)Function : "";
  u32 ML = length(M) + 1, FL = length(F) + 1, FnL = length(Fn) + 1;
  u32 Total = align8(16 + ML + FL + FnL);
  GLOBAL u8 *R = reserve(Total);
  if (R) {
    put32(R, Total);
    put32(R + 4, 2);
    put32(R + 8, Line);
    put32(R + 12, 0);
    copy(R + 16, M, ML);
    copy(R + 16 + ML, F, FL);
    copy(R + 16 + ML + FL, Fn, FnL);
  }
  __scoped_atomic_thread_fence(__ATOMIC_RELEASE, __MEMORY_SCOPE_SYSTEM);
  __builtin_trap();
}

// The device heap of malloc/free (and what new/delete compile to): one per device, set up by
// the loader (layout: include/ptx2amd/amdgpu-backend/DeviceHeap.h). Blocks come in power-of-two
// size classes, each with a lock-free free list; a block never freed comes from a bump pointer.
// A block is a 16-byte header (its class, then the free-list link) and its payload.
#define HEAP_CLASSES 40
#define HEAP_DATA_OFFSET 384
#define HEAP_NODE_MASK 0xffffffffffull // a free list's head: node (offset / 16 + 1), then a tag
#define HEAP_TAG_ONE (HEAP_NODE_MASK + 1)
#define HEAP_FORWARD (1ull << 63) // an aligned block's header: the distance back to its block

struct Heap {
  u64 Capacity; // bytes after HEAP_DATA_OFFSET
  u64 Top;      // bytes handed out from the bump pointer
  u64 Free[HEAP_CLASSES];
};

GLOBAL struct Heap *__attribute__((visibility("protected"))) __ptx2amd_heap;

static u32 heapClass(u64 Size) {
  u32 K = 0;
  for (u64 C = 16; C < Size; C <<= 1)
    ++K;
  return K;
}

__attribute__((noinline)) u64 __ptx2amd_malloc(u64 Size) {
  GLOBAL struct Heap *H = __ptx2amd_heap;
  if (!H || Size > H->Capacity)
    return 0;
  u32 K = heapClass(Size ? Size : 1);
  if (K >= HEAP_CLASSES)
    return 0;
  GLOBAL u8 *Data = (GLOBAL u8 *)H + HEAP_DATA_OFFSET;
  GLOBAL u64 *Head = &H->Free[K];
  u64 Old = __scoped_atomic_load_n(Head, __ATOMIC_ACQUIRE, __MEMORY_SCOPE_SYSTEM);
  while (Old & HEAP_NODE_MASK) {
    GLOBAL u64 *Block = (GLOBAL u64 *)(Data + ((Old & HEAP_NODE_MASK) - 1) * 16);
    // A block another thread took meanwhile may hold anything here: the tag fails the swap.
    u64 Next = __scoped_atomic_load_n(&Block[1], __ATOMIC_RELAXED, __MEMORY_SCOPE_SYSTEM);
    u64 New = (Next & HEAP_NODE_MASK) | ((Old + HEAP_TAG_ONE) & ~HEAP_NODE_MASK);
    if (__scoped_atomic_compare_exchange_n(Head, &Old, New, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE,
                                           __MEMORY_SCOPE_SYSTEM))
      return (u64)(Block + 2);
  }
  const u64 Bytes = 16 + (16ull << K);
  u64 Top = __scoped_atomic_load_n(&H->Top, __ATOMIC_RELAXED, __MEMORY_SCOPE_SYSTEM);
  do {
    if (Top > H->Capacity || H->Capacity - Top < Bytes)
      return 0;
  } while (!__scoped_atomic_compare_exchange_n(&H->Top, &Top, Top + Bytes, 0, __ATOMIC_RELAXED,
                                               __ATOMIC_RELAXED, __MEMORY_SCOPE_SYSTEM));
  GLOBAL u64 *Block = (GLOBAL u64 *)(Data + Top);
  Block[0] = K;
  return (u64)(Block + 2);
}

__attribute__((noinline)) void __ptx2amd_free(u64 Ptr) {
  GLOBAL struct Heap *H = __ptx2amd_heap;
  if (!Ptr || !H)
    return;
  GLOBAL u64 *Block = (GLOBAL u64 *)Ptr - 2;
  if (Block[0] & HEAP_FORWARD)
    Block = (GLOBAL u64 *)(Ptr - (Block[0] & ~HEAP_FORWARD)) - 2;
  GLOBAL u8 *Data = (GLOBAL u8 *)H + HEAP_DATA_OFFSET;
  u64 Node = (u64)((GLOBAL u8 *)Block - Data) / 16 + 1;
  GLOBAL u64 *Head = &H->Free[Block[0]];
  u64 Old = __scoped_atomic_load_n(Head, __ATOMIC_RELAXED, __MEMORY_SCOPE_SYSTEM);
  do
    __scoped_atomic_store_n(&Block[1], Old & HEAP_NODE_MASK, __ATOMIC_RELAXED,
                            __MEMORY_SCOPE_SYSTEM);
  while (!__scoped_atomic_compare_exchange_n(Head, &Old,
                                             Node | ((Old + HEAP_TAG_ONE) & ~HEAP_NODE_MASK), 0,
                                             __ATOMIC_RELEASE, __ATOMIC_RELAXED,
                                             __MEMORY_SCOPE_SYSTEM));
}

// __nv_aligned_device_malloc: an alignment that is not a power of two gives NULL.
__attribute__((noinline)) u64 __ptx2amd_aligned_malloc(u64 Size, u64 Align) {
  if (!Align || (Align & (Align - 1)))
    return 0;
  if (Align <= 16)
    return __ptx2amd_malloc(Size);
  if (Size > ~0ull - Align - 16)
    return 0;
  u64 Raw = __ptx2amd_malloc(Size + Align + 16);
  if (!Raw)
    return 0;
  u64 Aligned = (Raw + 16 + Align - 1) & ~(Align - 1);
  ((GLOBAL u64 *)Aligned)[-2] = HEAP_FORWARD | (Aligned - Raw);
  return Aligned;
}
