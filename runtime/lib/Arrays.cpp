//===- Arrays.cpp - CUDA arrays and the copies to and from them, for both APIs ===//
//
// An array is device memory laid out by layoutImage for the device's target (linear rows, the
// target's pitch), so a level is pitched memory to every copy: copies to and from arrays are
// the pitched copies of Memory.cpp (stream capture included) at the level's address and
// pitches. The allocation is registered as device memory, so cudaMemcpyDefault finds its side.

#include "Textures.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <unordered_map>

using namespace llvm;

namespace ptx2amd::runtime {

namespace {

struct MipmappedRecord {
  std::unique_ptr<ImageStorage> Storage;
  std::vector<ArrayRecord *> Levels;
};

struct ArrayState {
  std::mutex Mutex;                                                      ///< guards what follows
  std::unordered_map<const void *, std::unique_ptr<ArrayRecord>> Arrays; ///< levels too
  std::unordered_map<const void *, std::unique_ptr<MipmappedRecord>> Mipmapped;
};
ArrayState &arrayState() {
  static auto *S = new ArrayState; // never destroyed, as the rest of the runtime's state
  return *S;
}

/// The normalized kinds 5 to 16 (UnsignedNormalized8X1 ... SignedNormalized16X4): unsigned
/// then signed, 8 then 16 bits, 1, 2 and 4 channels.
bool normalizedKind(int Kind, bool &Signed, unsigned &Bits, unsigned &Channels) {
  const int I = Kind - cudaChannelFormatKindUnsignedNormalized8X1;
  if (I < 0 || Kind > cudaChannelFormatKindSignedNormalized16X4)
    return false;
  Signed = I >= 6;
  Bits = I % 6 < 3 ? 8 : 16;
  Channels = 1u << (I % 3);
  return true;
}

cudaError_t badDesc(const cudaChannelFormatDesc &D, const char *Why) {
  return fail(cudaErrorInvalidChannelDescriptor,
              formatv("channel description ({0}, {1}, {2}, {3}) of kind {4}: {5}", D.x, D.y, D.z,
                      D.w, int(D.f), Why)
                  .str());
}

/// The shape an extent and flags make, with its layers (cudaMalloc3DArray's rules).
cudaError_t shapeOf(cudaExtent E, unsigned Flags, amdgpu::ImageResource &Out) {
  auto Bad = [&](const char *Why) {
    return fail(cudaErrorInvalidValue, formatv("an array of {0} x {1} x {2} with flags {3:x}: {4}",
                                               E.width, E.height, E.depth, Flags, Why)
                                           .str());
  };
  if (!E.width)
    return Bad("no width");
  Out.Width = uint32_t(std::min<size_t>(E.width, UINT32_MAX));
  Out.Height = uint32_t(std::min<size_t>(std::max<size_t>(E.height, 1), UINT32_MAX));
  const uint32_t Depth = uint32_t(std::min<size_t>(E.depth, UINT32_MAX));
  if (Flags & ArrayCubemap) {
    if (E.width != E.height || !E.depth || E.depth % 6 || (!(Flags & ArrayLayered) && E.depth != 6))
      return Bad("a cube map has square faces, 6 of them per layer");
    Out.Shape = Flags & ArrayLayered ? amdgpu::ImageShape::CubeArray : amdgpu::ImageShape::Cube;
    Out.Layers = Depth;
  } else if (Flags & ArrayLayered) {
    if (!E.depth)
      return Bad("a layered array has its layers as its depth");
    Out.Shape = E.height ? amdgpu::ImageShape::Array2D : amdgpu::ImageShape::Array1D;
    Out.Layers = Depth;
  } else if (E.depth) {
    if (!E.height)
      return Bad("a 3D array has a height");
    Out.Shape = amdgpu::ImageShape::D3;
    Out.Depth = Depth;
  } else {
    Out.Shape = E.height ? amdgpu::ImageShape::D2 : amdgpu::ImageShape::D1;
  }
  if ((Flags & ArrayTextureGather) && Out.Shape != amdgpu::ImageShape::D2)
    return Bad("texture gather is for 2D arrays");
  return cudaSuccess;
}

constexpr unsigned KnownArrayFlags = 0x1ff; // up to CUDA_ARRAY3D_VIDEO_ENCODE_DECODE

/// Allocates \p S's memory as layoutImage lays out its image for the device's target.
cudaError_t makeStorage(const cudaChannelFormatDesc *Desc, cudaExtent E, unsigned Flags,
                        unsigned Levels, ImageStorage &S) {
  if (!Desc)
    return fail(cudaErrorInvalidValue, "an array without a channel description");
  if (Flags & ~KnownArrayFlags)
    return fail(cudaErrorInvalidValue, formatv("array flags {0:x}", Flags).str());
  if (Flags & (ArraySparse | ArrayDeferredMapping))
    return fail(cudaErrorNotSupported, "sparse arrays and arrays of deferred mapping");
  Context *C = nullptr;
  if (cudaError_t Err = context(C))
    return Err;
  const amdgpu::Target *T = C->Dev.properties().Target;
  if (!T)
    return fail(cudaErrorNotSupported, "the device has no AMDGPU target to lay arrays out for");
  S.Desc = *Desc;
  S.Extent = E;
  S.Flags = Flags;
  if (cudaError_t Err = texelFormat(*Desc, S.Image.Format))
    return Err;
  if (cudaError_t Err = shapeOf(E, Flags, S.Image))
    return Err;
  // CUDA's clamp: down to 1x1(x1), the layers aside.
  const uint32_t Largest = std::max({S.Image.Width, S.Image.Height, S.Image.Depth});
  S.Image.MipLevels = std::clamp(Levels, 1u, 1u + Log2_32(Largest));
  auto Layout = amdgpu::layoutImage(*T, S.Image);
  if (!Layout)
    return fail(cudaErrorInvalidValue, Layout.takeError());
  if (Layout->Levels.size() != S.Image.MipLevels)
    return fail(cudaErrorUnknown, "the array's layout lacks levels");
  S.Layout = std::move(*Layout);
  const uint64_t Align = std::max<uint64_t>(S.Layout.Alignment, 1);
  if (cudaError_t Err =
          allocate(&S.Allocation, S.Layout.TotalBytes + Align - 1, loader::MemoryKind::Device))
    return Err;
  S.Image.Address = alignTo(uintptr_t(S.Allocation), Align);
  return cudaSuccess;
}

void putArray(std::unique_ptr<ArrayRecord> A) {
  ArrayState &St = arrayState();
  std::lock_guard<std::mutex> Lock(St.Mutex);
  const void *Key = A.get();
  St.Arrays[Key] = std::move(A);
}

bool sliced(amdgpu::ImageShape S) {
  return S == amdgpu::ImageShape::Array1D || S == amdgpu::ImageShape::Array2D ||
         S == amdgpu::ImageShape::Cube || S == amdgpu::ImageShape::CubeArray;
}

bool oneRow(amdgpu::ImageShape S) {
  return S == amdgpu::ImageShape::D1 || S == amdgpu::ImageShape::Array1D;
}

} // namespace

cudaError_t texelFormat(const cudaChannelFormatDesc &D, amdgpu::TexelFormat &Out) {
  const int Bits[4] = {D.x, D.y, D.z, D.w};
  unsigned Channels = 0;
  while (Channels < 4 && Bits[Channels] > 0)
    ++Channels;
  for (unsigned I = Channels; I < 4; ++I)
    if (Bits[I])
      return badDesc(D, "channels follow each other from x");
  bool Signed = false;
  unsigned NormBits = 0, NormChannels = 0;
  if (normalizedKind(D.f, Signed, NormBits, NormChannels)) {
    if (Channels != NormChannels || unsigned(D.x) != NormBits)
      return badDesc(D, "the kind fixes the channels and their bits");
    Out.Type = Signed ? amdgpu::ChannelType::Signed : amdgpu::ChannelType::Unsigned;
    Out.Normalized = true;
  } else {
    switch (D.f) {
    case cudaChannelFormatKindSigned:
      Out.Type = amdgpu::ChannelType::Signed;
      break;
    case cudaChannelFormatKindUnsigned:
      Out.Type = amdgpu::ChannelType::Unsigned;
      break;
    case cudaChannelFormatKindFloat:
      Out.Type = amdgpu::ChannelType::Float;
      if (D.x != 16 && D.x != 32)
        return badDesc(D, "float channels have 16 or 32 bits");
      break;
    case cudaChannelFormatKindNV12:
      return fail(cudaErrorNotSupported, "NV12 arrays");
    default:
      if (D.f >= cudaChannelFormatKindUnsignedBlockCompressed1 &&
          D.f <= cudaChannelFormatKindUnsignedNormalized1010102)
        return fail(cudaErrorNotSupported,
                    formatv("block-compressed and packed channel kinds ({0})", int(D.f)).str());
      return badDesc(D, "an unknown kind");
    }
    Out.Normalized = false;
  }
  if (Channels == 0 || Channels == 3)
    return badDesc(D, "1, 2 or 4 channels");
  for (unsigned I = 1; I < Channels; ++I)
    if (Bits[I] != D.x)
      return badDesc(D, "every channel has the same bits");
  if (D.x != 8 && D.x != 16 && D.x != 32)
    return badDesc(D, "channels of 8, 16 or 32 bits");
  Out.Channels = uint8_t(Channels);
  Out.Bits = uint8_t(D.x);
  Out.Srgb = false;
  return cudaSuccess;
}

cudaError_t createArray(cudaArray_t *Out, const cudaChannelFormatDesc *Desc, cudaExtent Extent,
                        unsigned Flags) {
  if (!Out)
    return fail(cudaErrorInvalidValue);
  *Out = nullptr;
  auto A = std::make_unique<ArrayRecord>();
  A->Owned = std::make_unique<ImageStorage>();
  A->Storage = A->Owned.get();
  if (cudaError_t E = makeStorage(Desc, Extent, Flags, 1, *A->Storage))
    return E;
  *Out = reinterpret_cast<cudaArray_t>(A.get());
  putArray(std::move(A));
  return cudaSuccess;
}

cudaError_t createMipmappedArray(cudaMipmappedArray_t *Out, const cudaChannelFormatDesc *Desc,
                                 cudaExtent Extent, unsigned Levels, unsigned Flags) {
  if (!Out)
    return fail(cudaErrorInvalidValue);
  *Out = nullptr;
  auto M = std::make_unique<MipmappedRecord>();
  M->Storage = std::make_unique<ImageStorage>();
  if (cudaError_t E = makeStorage(Desc, Extent, Flags, Levels, *M->Storage))
    return E;
  ArrayState &St = arrayState();
  std::lock_guard<std::mutex> Lock(St.Mutex);
  for (unsigned L = 0; L < M->Storage->Image.MipLevels; ++L) {
    auto A = std::make_unique<ArrayRecord>();
    A->Storage = M->Storage.get();
    A->Level = L;
    M->Levels.push_back(A.get());
    St.Arrays[A.get()] = std::move(A);
  }
  *Out = reinterpret_cast<cudaMipmappedArray_t>(M.get());
  St.Mipmapped[M.get()] = std::move(M);
  return cudaSuccess;
}

cudaError_t findArray(cudaArray_t A, ArrayRecord *&Out) {
  ArrayState &St = arrayState();
  std::lock_guard<std::mutex> Lock(St.Mutex);
  auto It = St.Arrays.find(A);
  if (It == St.Arrays.end())
    return fail(cudaErrorInvalidResourceHandle, formatv("{0} is not a CUDA array", A).str());
  Out = It->second.get();
  return cudaSuccess;
}

cudaError_t findMipmappedArray(cudaMipmappedArray_t M, ImageStorage *&Out) {
  ArrayState &St = arrayState();
  std::lock_guard<std::mutex> Lock(St.Mutex);
  auto It = St.Mipmapped.find(M);
  if (It == St.Mipmapped.end())
    return fail(cudaErrorInvalidResourceHandle,
                formatv("{0} is not a mipmapped CUDA array", M).str());
  Out = It->second->Storage.get();
  return cudaSuccess;
}

cudaError_t mipmappedArrayLevel(cudaArray_t *Out, cudaMipmappedArray_t M, unsigned Level) {
  if (!Out)
    return fail(cudaErrorInvalidValue);
  ArrayState &St = arrayState();
  std::lock_guard<std::mutex> Lock(St.Mutex);
  auto It = St.Mipmapped.find(M);
  if (It == St.Mipmapped.end())
    return fail(cudaErrorInvalidResourceHandle,
                formatv("{0} is not a mipmapped CUDA array", M).str());
  if (Level >= It->second->Levels.size())
    return fail(
        cudaErrorInvalidValue,
        formatv("level {0} of a mipmapped array of {1}", Level, It->second->Levels.size()).str());
  *Out = reinterpret_cast<cudaArray_t>(It->second->Levels[Level]);
  return cudaSuccess;
}

cudaError_t destroyArray(cudaArray_t A) {
  if (!A)
    return cudaSuccess;
  std::unique_ptr<ArrayRecord> Gone;
  {
    ArrayState &St = arrayState();
    std::lock_guard<std::mutex> Lock(St.Mutex);
    auto It = St.Arrays.find(A);
    if (It == St.Arrays.end() || !It->second->Owned)
      return fail(cudaErrorInvalidResourceHandle,
                  formatv("{0} is not a CUDA array of its own", A).str());
    Gone = std::move(It->second);
    St.Arrays.erase(It);
  }
  return release(Gone->Storage->Allocation, false);
}

cudaError_t destroyMipmappedArray(cudaMipmappedArray_t M) {
  if (!M)
    return cudaSuccess;
  std::unique_ptr<MipmappedRecord> Gone;
  {
    ArrayState &St = arrayState();
    std::lock_guard<std::mutex> Lock(St.Mutex);
    auto It = St.Mipmapped.find(M);
    if (It == St.Mipmapped.end())
      return fail(cudaErrorInvalidResourceHandle,
                  formatv("{0} is not a mipmapped CUDA array", M).str());
    Gone = std::move(It->second);
    St.Mipmapped.erase(It);
    for (ArrayRecord *L : Gone->Levels)
      St.Arrays.erase(L);
  }
  return release(Gone->Storage->Allocation, false);
}

cudaError_t arrayLevel(cudaArray_t Handle, ArrayLevel &Out) {
  ArrayRecord *A = nullptr;
  if (cudaError_t E = findArray(Handle, A))
    return E;
  const ImageStorage &S = *A->Storage;
  const amdgpu::ImageLevel &L = S.Layout.Levels[A->Level];
  Out.Base = reinterpret_cast<char *>(uintptr_t(S.Image.Address + L.Offset));
  Out.RowPitch = L.RowPitch;
  Out.SlicePitch = L.SlicePitch;
  Out.RowBytes = size_t(L.Width) * S.Image.Format.bytes();
  Out.Rows = oneRow(S.Image.Shape) ? 1 : L.Height;
  Out.Slices = sliced(S.Image.Shape)                     ? S.Image.Layers
               : S.Image.Shape == amdgpu::ImageShape::D3 ? L.Depth
                                                         : 1;
  return cudaSuccess;
}

cudaError_t arrayInfo(cudaArray_t Handle, cudaChannelFormatDesc *Desc, cudaExtent *Extent,
                      unsigned *Flags) {
  ArrayRecord *A = nullptr;
  if (cudaError_t E = findArray(Handle, A))
    return E;
  const ImageStorage &S = *A->Storage;
  const amdgpu::ImageLevel &L = S.Layout.Levels[A->Level];
  if (Desc)
    *Desc = S.Desc;
  if (Extent)
    *Extent = {L.Width, S.Extent.height ? L.Height : 0,
               !S.Extent.depth                           ? 0
               : S.Image.Shape == amdgpu::ImageShape::D3 ? L.Depth
                                                         : S.Extent.depth};
  if (Flags)
    *Flags = S.Flags;
  return cudaSuccess;
}

cudaError_t arrayRequirements(cudaArray_t A, cudaMipmappedArray_t M, size_t &Size,
                              size_t &Alignment) {
  ImageStorage *S = nullptr;
  if (A) {
    ArrayRecord *R = nullptr;
    if (cudaError_t E = findArray(A, R))
      return E;
    S = R->Storage;
  } else if (cudaError_t E = findMipmappedArray(M, S)) {
    return E;
  }
  Size = S->Layout.TotalBytes;
  Alignment = S->Layout.Alignment;
  return cudaSuccess;
}

cudaError_t arrayElementBytes(cudaArray_t Handle, size_t &Out) {
  ArrayRecord *A = nullptr;
  if (cudaError_t E = findArray(Handle, A))
    return E;
  Out = A->Storage->Image.Format.bytes();
  return cudaSuccess;
}

cudaError_t arrayRegion(cudaArray_t A, size_t XBytes, size_t Y, size_t Z, size_t WidthBytes,
                        size_t Height, size_t Depth, const char *What, char *&Out, ArrayLevel &L) {
  if (cudaError_t E = arrayLevel(A, L))
    return E;
  if (XBytes > L.RowBytes || WidthBytes > L.RowBytes - XBytes || Y > L.Rows ||
      Height > L.Rows - Y || Z > L.Slices || Depth > L.Slices - Z)
    return fail(cudaErrorInvalidValue,
                formatv("{0} {1} x {2} x {3} bytes, rows and slices at ({4}, {5}, {6}) of an "
                        "array of {7} x {8} x {9}",
                        What, WidthBytes, Height, Depth, XBytes, Y, Z, L.RowBytes, L.Rows, L.Slices)
                    .str());
  Out = L.Base + Z * L.SlicePitch + Y * L.RowPitch + XBytes;
  return cudaSuccess;
}

cudaError_t copyArrayBytes(LinearSide Dst, LinearSide Src, size_t Bytes, cudaMemcpyKind Kind,
                           cudaStream_t S, bool Wait) {
  ArrayLevel DstLevel, SrcLevel;
  for (auto [Side, Level, What] :
       {std::tuple{&Dst, &DstLevel, "a copy to"}, std::tuple{&Src, &SrcLevel, "a copy from"}}) {
    if (!Side->Array)
      continue;
    if (cudaError_t E = arrayLevel(Side->Array, *Level))
      return E;
    const size_t Size = Level->RowBytes * Level->Rows * Level->Slices;
    if (Side->Offset > Size || Bytes > Size - Side->Offset)
      return fail(cudaErrorInvalidValue, formatv("{0} an array: {1} bytes at offset {2} of {3}",
                                                 What, Bytes, Side->Offset, Size)
                                             .str());
  }
  if (!Bytes)
    return Wait ? synchronizeStream(S) : cudaSuccess;
  // Runs that are contiguous on both sides: a row of an array at most.
  while (Bytes) {
    size_t Run = Bytes;
    auto Address = [&Run](LinearSide &Side, const ArrayLevel &L) {
      if (!Side.Array)
        return Side.Ptr;
      const size_t Row = Side.Offset / L.RowBytes, X = Side.Offset % L.RowBytes;
      Run = std::min(Run, L.RowBytes - X);
      return L.Base + Row / L.Rows * L.SlicePitch + Row % L.Rows * L.RowPitch + X;
    };
    char *To = Address(Dst, DstLevel);
    const char *From = Address(Src, SrcLevel);
    if (cudaError_t E = copy(To, From, Run, Kind, S, Wait && Run == Bytes))
      return E;
    for (LinearSide *Side : {&Dst, &Src})
      Side->Array ? void(Side->Offset += Run) : void(Side->Ptr += Run);
    Bytes -= Run;
  }
  return cudaSuccess;
}

cudaError_t texture1DLinearMaxWidth(size_t *Out, const cudaChannelFormatDesc *Desc, int Device) {
  if (!Out || !Desc)
    return fail(cudaErrorInvalidValue);
  if (cudaError_t E = checkDevice(Device))
    return E;
  amdgpu::TexelFormat F;
  if (cudaError_t E = texelFormat(*Desc, F))
    return E;
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  // A buffer resource counts elements whatever their size: the attribute's answer.
  int Width = 0;
  deviceAttribute(*C, cudaDevAttrMaxTexture1DLinearWidth, Width);
  *Out = size_t(Width);
  return cudaSuccess;
}

} // namespace ptx2amd::runtime
