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
    int Float = C == 'f' || C == 'F' || C == 'e' || C == 'E' || C == 'g' || C == 'G' || C == 'a' ||
                C == 'A';
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
__attribute__((noinline)) void __ptx2amd_assertfail(u64 Message, u64 File, u32 Line, u64 Function,
                                                    u64 CharSize) {
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
  while (!__scoped_atomic_compare_exchange_n(
      Head, &Old, Node | ((Old + HEAP_TAG_ONE) & ~HEAP_NODE_MASK), 0, __ATOMIC_RELEASE,
      __ATOMIC_RELAXED, __MEMORY_SCOPE_SYSTEM));
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

// ---- CUDA dynamic parallelism: CUDA's device runtime (__cudaCDP2*, lowering maps the names) ----
// A grid's launches, cudaMemcpyAsync and cudaMemsetAsync become records in its module's launch
// queue, which the loader runs when the grid is done (layout:
// include/ptx2amd/amdgpu-backend/DeviceLaunches.h). The loader runs a grid's records one after
// another in launch order (tail launches last), which satisfies every order that streams and
// events can ask for: device streams and events are handles only.
#define CDP_ATTRIBUTES 160
#define CDP_ERROR_SLOTS 256
#define CDP_ARENA_OFFSET 16384
#define CDP_RECORD_BYTES 64
#define CDP_TAIL_LAUNCH 3

enum CudaError {
  Success = 0,
  ErrorInvalidValue = 1,
  ErrorMemoryAllocation = 2,
  ErrorInvalidConfiguration = 9,
  ErrorLaunchMaxDepthExceeded = 65,
  ErrorLaunchPendingCountExceeded = 69,
  ErrorInvalidDeviceFunction = 98,
  ErrorInvalidDevice = 101,
  ErrorNoKernelImageForDevice = 209,
  ErrorUnsupportedLimit = 215,
  ErrorInvalidResourceHandle = 400,
};

enum LaunchKind { KindPending = 0, KindKernel = 1, KindCopy = 2, KindSet = 3 };

struct KernelHandle {
  u32 Number, ParamBytes, StaticLdsBytes, MaxThreads;
};

struct LastError {
  u32 Generation, BlockX, BlockYZ, Thread, Error, Reserved[3];
};

struct LaunchQueue {
  u32 Capacity, Records, Tickets, Depth;
  u64 ArenaBytes, ArenaUsed;
  u32 MaxDepth, LdsBytes, Handles, ErrorsUsed;
  u32 Generation, Reserved[3];
  u64 Limits[8];
  int Attributes[CDP_ATTRIBUTES];
  struct LastError Errors[CDP_ERROR_SLOTS];
};

struct LaunchRecord {
  u32 Size, Kind, Ticket, Kernel;
  u32 Grid[3], Block[3];
  u32 SharedBytes, ParamBytes;
  u64 Stream, Reserved;
};

// A dim3 as lowering passes `.param .align 4 .b8 [12]`: clang passes this as [12 x i8] too.
struct Dim3Bytes {
  u8 B[12];
};

GLOBAL struct LaunchQueue *__attribute__((visibility("protected"))) __ptx2amd_launch_queue;

static u32 dim(struct Dim3Bytes D, u32 K) {
  return (u32)D.B[4 * K] | (u32)D.B[4 * K + 1] << 8 | (u32)D.B[4 * K + 2] << 16 |
         (u32)D.B[4 * K + 3] << 24;
}

static u32 load32(GLOBAL u32 *P) {
  return __scoped_atomic_load_n(P, __ATOMIC_ACQUIRE, __MEMORY_SCOPE_DEVICE);
}

static u32 add32(GLOBAL u32 *P, u32 V) {
  return __scoped_atomic_fetch_add(P, V, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
}

static int sameThread(GLOBAL struct LastError *E, u32 Generation, u32 BX, u32 BYZ, u32 T) {
  return load32(&E->Generation) == Generation && E->BlockX == BX && E->BlockYZ == BYZ &&
         E->Thread == T;
}

/// The calling thread's last-error entry; with \p Make, made when it has none (null when the
/// table is full).
static GLOBAL struct LastError *lastError(GLOBAL struct LaunchQueue *Q, int Make) {
  if (!Q)
    return 0;
  const u32 BX = __builtin_amdgcn_workgroup_id_x();
  const u32 BYZ = __builtin_amdgcn_workgroup_id_y() | __builtin_amdgcn_workgroup_id_z() << 16;
  const u32 T = __builtin_amdgcn_workitem_id_x() | __builtin_amdgcn_workitem_id_y() << 10 |
                __builtin_amdgcn_workitem_id_z() << 20;
  const u32 Generation = Q->Generation;
  u32 Used = load32(&Q->ErrorsUsed);
  if (Used > CDP_ERROR_SLOTS)
    Used = CDP_ERROR_SLOTS;
  for (u32 K = 0; K < Used; ++K)
    if (sameThread(&Q->Errors[K], Generation, BX, BYZ, T))
      return &Q->Errors[K];
  if (!Make)
    return 0;
  u32 At = add32(&Q->ErrorsUsed, 1);
  if (At >= CDP_ERROR_SLOTS)
    return 0;
  GLOBAL struct LastError *E = &Q->Errors[At];
  E->BlockX = BX;
  E->BlockYZ = BYZ;
  E->Thread = T;
  E->Error = 0;
  // Readers check the generation first: the ids are in place before it says this grid.
  __scoped_atomic_store_n(&E->Generation, Generation, __ATOMIC_RELEASE, __MEMORY_SCOPE_DEVICE);
  return E;
}

/// Makes \p Error the calling thread's last error (as CUDA's device runtime does on failure) and
/// returns it.
static u32 failWith(u32 Error) {
  GLOBAL struct LastError *E = lastError(__ptx2amd_launch_queue, 1);
  if (E)
    E->Error = Error;
  return Error;
}

__attribute__((noinline)) u32 __ptx2amd_cdp_get_last_error(void) {
  GLOBAL struct LastError *E = lastError(__ptx2amd_launch_queue, 0);
  if (!E)
    return Success;
  u32 Error = E->Error;
  E->Error = Success;
  return Error;
}

__attribute__((noinline)) u32 __ptx2amd_cdp_peek_at_last_error(void) {
  GLOBAL struct LastError *E = lastError(__ptx2amd_launch_queue, 0);
  return E ? E->Error : Success;
}

struct ErrorText {
  u32 Code;
  const char *Name, *Text;
};

// The errors device code can meet, in this library's own words.
static const struct ErrorText ErrorTexts[] = {
    {Success, "cudaSuccess", "no error"},
    {ErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {ErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {ErrorInvalidConfiguration, "cudaErrorInvalidConfiguration", "invalid launch configuration"},
    {ErrorLaunchMaxDepthExceeded, "cudaErrorLaunchMaxDepthExceeded",
     "launch past the maximum nesting depth of device launches"},
    {ErrorLaunchPendingCountExceeded, "cudaErrorLaunchPendingCountExceeded",
     "launch past cudaLimitDevRuntimePendingLaunchCount"},
    {ErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {ErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {ErrorNoKernelImageForDevice, "cudaErrorNoKernelImageForDevice",
     "the kernel could not be translated for this device"},
    {ErrorUnsupportedLimit, "cudaErrorUnsupportedLimit", "unsupported limit"},
    {ErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
};

static const struct ErrorText *errorText(u32 Code) {
  for (u32 K = 0; K < sizeof ErrorTexts / sizeof ErrorTexts[0]; ++K)
    if (ErrorTexts[K].Code == Code)
      return &ErrorTexts[K];
  return 0;
}

__attribute__((noinline)) u64 __ptx2amd_cdp_get_error_string(u32 Code) {
  const struct ErrorText *T = errorText(Code);
  return (u64)(T ? T->Text : "unrecognized error code");
}

__attribute__((noinline)) u64 __ptx2amd_cdp_get_error_name(u32 Code) {
  const struct ErrorText *T = errorText(Code);
  return (u64)(T ? T->Name : "cudaErrorUnknown");
}

// The device is the one the runtime has: ordinal 0.
__attribute__((noinline)) u32 __ptx2amd_cdp_get_device_count(u64 Count) {
  if (!Count)
    return failWith(ErrorInvalidValue);
  *(int *)Count = 1;
  return Success;
}

__attribute__((noinline)) u32 __ptx2amd_cdp_get_device(u64 Device) {
  if (!Device)
    return failWith(ErrorInvalidValue);
  *(int *)Device = 0;
  return Success;
}

__attribute__((noinline)) u32 __ptx2amd_cdp_device_get_attribute(u64 Value, u32 Attribute,
                                                                 u32 Device) {
  GLOBAL struct LaunchQueue *Q = __ptx2amd_launch_queue;
  if (Device != 0)
    return failWith(ErrorInvalidDevice);
  if (!Value || !Q || Attribute >= CDP_ATTRIBUTES)
    return failWith(ErrorInvalidValue);
  *(int *)Value = Q->Attributes[Attribute];
  return Success;
}

__attribute__((noinline)) u32 __ptx2amd_cdp_device_get_limit(u64 Value, u32 Limit) {
  GLOBAL struct LaunchQueue *Q = __ptx2amd_launch_queue;
  if (!Value || !Q)
    return failWith(ErrorInvalidValue);
  if (Limit >= 7)
    return failWith(ErrorUnsupportedLimit);
  *(u64 *)Value = Q->Limits[Limit];
  return Success;
}

// cudaFuncCachePreferNone and cudaSharedMemBankSizeFourByte, as the host runtime answers.
__attribute__((noinline)) u32 __ptx2amd_cdp_device_get_cache_config(u64 Config) {
  if (!Config)
    return failWith(ErrorInvalidValue);
  *(int *)Config = 0;
  return Success;
}

__attribute__((noinline)) u32 __ptx2amd_cdp_device_get_shared_mem_config(u64 Config) {
  if (!Config)
    return failWith(ErrorInvalidValue);
  *(int *)Config = 1;
  return Success;
}

__attribute__((noinline)) u32 __ptx2amd_cdp_runtime_get_version(u64 Version) {
  if (!Version)
    return failWith(ErrorInvalidValue);
  *(int *)Version = 13000;
  return Success;
}

/// A new stream or event handle: nonzero, and never one of the special streams (1 to 4).
static u32 makeHandle(u64 Out) {
  GLOBAL struct LaunchQueue *Q = __ptx2amd_launch_queue;
  if (!Out || !Q)
    return failWith(ErrorInvalidValue);
  *(u64 *)Out = ((u64)add32(&Q->Handles, 1) + 1) << 8;
  return Success;
}

// CDP2's device streams must be non-blocking; its events cannot time.
__attribute__((noinline)) u32 __ptx2amd_cdp_stream_create(u64 Stream, u32 Flags) {
  if (Flags != 1)
    return failWith(ErrorInvalidValue);
  return makeHandle(Stream);
}

__attribute__((noinline)) u32 __ptx2amd_cdp_event_create(u64 Event, u32 Flags) {
  if (!(Flags & 2))
    return failWith(ErrorInvalidValue);
  return makeHandle(Event);
}

__attribute__((noinline)) u32 __ptx2amd_cdp_stream_destroy(u64 Stream) {
  return Stream ? Success : failWith(ErrorInvalidResourceHandle);
}

__attribute__((noinline)) u32 __ptx2amd_cdp_event_destroy(u64 Event) {
  return Event ? Success : failWith(ErrorInvalidResourceHandle);
}

__attribute__((noinline)) u32 __ptx2amd_cdp_event_record(u64 Event, u64 Stream) {
  (void)Stream;
  return Event ? Success : failWith(ErrorInvalidResourceHandle);
}

__attribute__((noinline)) u32 __ptx2amd_cdp_stream_wait_event(u64 Stream, u64 Event, u32 Flags) {
  (void)Stream;
  if (Flags)
    return failWith(ErrorInvalidValue);
  return Event ? Success : failWith(ErrorInvalidResourceHandle);
}

// The device heap's, as cudaMalloc and cudaFree in device code are.
__attribute__((noinline)) u32 __ptx2amd_cdp_malloc(u64 Pointer, u64 Size) {
  if (!Pointer)
    return failWith(ErrorInvalidValue);
  u64 P = __ptx2amd_malloc(Size);
  *(u64 *)Pointer = P;
  return P ? Success : failWith(ErrorMemoryAllocation);
}

__attribute__((noinline)) u32 __ptx2amd_cdp_free(u64 Pointer) {
  __ptx2amd_free(Pointer);
  return Success;
}

/// Reserves a record with \p ParamBytes of parameters after it; null (and the thread's last error
/// set) when the pending-launch limit is reached.
static GLOBAL struct LaunchRecord *reserveRecord(u32 ParamBytes) {
  GLOBAL struct LaunchQueue *Q = __ptx2amd_launch_queue;
  if (!Q) {
    failWith(ErrorLaunchPendingCountExceeded);
    return 0;
  }
  if (add32(&Q->Records, 1) >= Q->Capacity) {
    failWith(ErrorLaunchPendingCountExceeded);
    return 0;
  }
  const u64 Size = (CDP_RECORD_BYTES + (u64)ParamBytes + 63) & ~63ull;
  u64 At = __scoped_atomic_fetch_add(&Q->ArenaUsed, Size, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
  if (At > Q->ArenaBytes || Q->ArenaBytes - At < Size) {
    failWith(ErrorLaunchPendingCountExceeded);
    return 0;
  }
  GLOBAL struct LaunchRecord *R =
      (GLOBAL struct LaunchRecord *)((GLOBAL u8 *)Q + CDP_ARENA_OFFSET + At);
  R->Size = (u32)Size;
  R->Kind = KindPending;
  R->Ticket = 0;
  R->Kernel = 0;
  R->ParamBytes = ParamBytes;
  R->Stream = 0;
  return R;
}

/// The kernel \p Func names and whether \p Grid, \p Block and \p Shared suit it: 0 (with the
/// thread's last error set) when not.
static GLOBAL struct KernelHandle *checkLaunch(u64 Func, struct Dim3Bytes Grid,
                                               struct Dim3Bytes Block, u32 Shared) {
  GLOBAL struct LaunchQueue *Q = __ptx2amd_launch_queue;
  GLOBAL struct KernelHandle *H = (GLOBAL struct KernelHandle *)Func;
  if (!H || !Q) {
    failWith(ErrorInvalidDeviceFunction);
    return 0;
  }
  if (!H->Number) {
    failWith(ErrorNoKernelImageForDevice);
    return 0;
  }
  const u32 GX = dim(Grid, 0), GY = dim(Grid, 1), GZ = dim(Grid, 2);
  const u32 BX = dim(Block, 0), BY = dim(Block, 1), BZ = dim(Block, 2);
  const u64 Threads = (u64)BX * BY * BZ;
  if (!GX || !GY || !GZ || GY > 65535 || GZ > 65535 || !Threads || Threads > H->MaxThreads ||
      BX > 1024 || BY > 1024 || BZ > 64 || (u64)Shared + H->StaticLdsBytes > Q->LdsBytes) {
    failWith(ErrorInvalidConfiguration);
    return 0;
  }
  return H;
}

static void describe(GLOBAL struct LaunchRecord *R, GLOBAL struct KernelHandle *H,
                     struct Dim3Bytes Grid, struct Dim3Bytes Block, u32 Shared) {
  R->Kernel = H->Number;
  for (u32 K = 0; K < 3; ++K) {
    R->Grid[K] = dim(Grid, K);
    R->Block[K] = dim(Block, K);
  }
  R->SharedBytes = Shared;
}

/// Launches the reserved record \p R into \p Stream: the loader runs it once the grid is done.
static u32 commit(GLOBAL struct LaunchRecord *R, u32 Kind, u64 Stream) {
  GLOBAL struct LaunchQueue *Q = __ptx2amd_launch_queue;
  // A tail launch continues its parent's work at the parent's depth.
  if (Kind == KindKernel && Stream != CDP_TAIL_LAUNCH && Q->Depth + 1 > Q->MaxDepth)
    return failWith(ErrorLaunchMaxDepthExceeded);
  R->Stream = Stream;
  R->Ticket = add32(&Q->Tickets, 1);
  __scoped_atomic_store_n(&R->Kind, Kind, __ATOMIC_RELEASE, __MEMORY_SCOPE_DEVICE);
  return Success;
}

__attribute__((noinline)) u64 __ptx2amd_cdp_parameter_buffer_v2(u64 Func, struct Dim3Bytes Grid,
                                                                struct Dim3Bytes Block,
                                                                u32 Shared) {
  GLOBAL struct KernelHandle *H = checkLaunch(Func, Grid, Block, Shared);
  if (!H)
    return 0;
  GLOBAL struct LaunchRecord *R = reserveRecord(H->ParamBytes);
  if (!R)
    return 0;
  describe(R, H, Grid, Block, Shared);
  return (u64)(R + 1);
}

__attribute__((noinline)) u32 __ptx2amd_cdp_launch_device_v2(u64 Buffer, u64 Stream) {
  if (!Buffer || !__ptx2amd_launch_queue)
    return failWith(ErrorInvalidValue);
  return commit((GLOBAL struct LaunchRecord *)Buffer - 1, KindKernel, Stream);
}

// The older pair: a buffer of a size the caller chooses, then the launch that says what for.
__attribute__((noinline)) u64 __ptx2amd_cdp_parameter_buffer(u64 Alignment, u64 Size) {
  if (Alignment > CDP_RECORD_BYTES || Size > 0xffffffffull) {
    failWith(ErrorInvalidValue);
    return 0;
  }
  GLOBAL struct LaunchRecord *R = reserveRecord((u32)Size);
  return R ? (u64)(R + 1) : 0;
}

__attribute__((noinline)) u32 __ptx2amd_cdp_launch_device(u64 Func, u64 Buffer,
                                                          struct Dim3Bytes Grid,
                                                          struct Dim3Bytes Block, u32 Shared,
                                                          u64 Stream) {
  if (!Buffer || !__ptx2amd_launch_queue)
    return failWith(ErrorInvalidValue);
  GLOBAL struct KernelHandle *H = checkLaunch(Func, Grid, Block, Shared);
  if (!H)
    return ErrorInvalidConfiguration;
  GLOBAL struct LaunchRecord *R = (GLOBAL struct LaunchRecord *)Buffer - 1;
  if (R->ParamBytes < H->ParamBytes)
    return failWith(ErrorInvalidValue);
  describe(R, H, Grid, Block, Shared);
  return commit(R, KindKernel, Stream);
}

/// cudaMemcpyAsync and cudaMemsetAsync: records the loader carries out in stream order.
static u32 memoryRecord(u32 Kind, u64 Dst, u64 Src, u64 Bytes, u64 Stream) {
  GLOBAL struct LaunchRecord *R = reserveRecord(24);
  if (!R)
    return ErrorLaunchPendingCountExceeded;
  GLOBAL u64 *P = (GLOBAL u64 *)(R + 1);
  P[0] = Dst;
  P[1] = Src;
  P[2] = Bytes;
  return commit(R, Kind, Stream);
}

__attribute__((noinline)) u32 __ptx2amd_cdp_memcpy_async(u64 Dst, u64 Src, u64 Bytes, u32 Kind,
                                                         u64 Stream) {
  // Device code copies device memory only: cudaMemcpyDeviceToDevice or cudaMemcpyDefault.
  if (Kind != 3 && Kind != 4)
    return failWith(ErrorInvalidValue);
  return memoryRecord(KindCopy, Dst, Src, Bytes, Stream);
}

__attribute__((noinline)) u32 __ptx2amd_cdp_memset_async(u64 Dst, u32 Value, u64 Bytes,
                                                         u64 Stream) {
  return memoryRecord(KindSet, Dst, Value & 0xff, Bytes, Stream);
}
