//===- Payload.cpp - entry payloads: zstd, LZ4, PTX text ------------------===//
#include "ptx2amd/fatbin/Fatbin.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

#include <lz4.h>
#include <zstd.h>

#include <climits>
#include <cstring>
#include <new>

using namespace llvm;

namespace ptx2amd::fatbin {

static Error payloadError(StringRef Context, const Twine &What) {
  return createStringError(inconvertibleErrorCode(), Twine(Context) + ": " + What);
}

static std::string hex(uint64_t V) { return "0x" + utohexstr(V, /*LowerCase=*/true); }

Expected<Payload> decompress(Compression C, ArrayRef<uint8_t> Src, uint64_t Size,
                             StringRef Context) {
  if (C == Compression::None)
    return Payload::view(Src);
  const StringRef Alg = toString(C);
  if (Src.empty())
    return payloadError(Context, Twine(Alg) + "-compressed payload is empty (payload_size 0)");
  if (Size == 0)
    return payloadError(Context, Twine(Alg) + "-compressed payload has uncompressed_size 0");
  const uint64_t Bound = Src.size() * MaxExpansionRatio + MaxExpansionSlack;
  if (Size > Bound)
    return payloadError(Context, "uncompressed_size " + hex(Size) + " is implausible for " +
                                     hex(Src.size()) + " stored bytes (limit " + hex(Bound) + ")");
  if (C == Compression::Zstd) {
    // Check what the (first) frame header claims before allocating.
    unsigned long long Claimed = ZSTD_getFrameContentSize(Src.data(), Src.size());
    if (Claimed == ZSTD_CONTENTSIZE_ERROR)
      return payloadError(Context, "corrupt zstd payload (bad frame header)");
    size_t FrameSize = ZSTD_findFrameCompressedSize(Src.data(), Src.size());
    if (ZSTD_isError(FrameSize))
      return payloadError(Context, Twine("corrupt zstd payload: ") + ZSTD_getErrorName(FrameSize));
    if (Claimed != ZSTD_CONTENTSIZE_UNKNOWN &&
        (FrameSize == Src.size() ? Claimed != Size : Claimed > Size))
      return payloadError(Context, "zstd frame holds " + hex(Claimed) +
                                       " bytes but the entry records uncompressed_size " +
                                       hex(Size));
  } else if (Src.size() > INT_MAX || Size > INT_MAX) {
    return payloadError(Context, "LZ4 payload too large (" + hex(Src.size()) + " -> " + hex(Size) +
                                     " bytes)");
  }
  std::unique_ptr<uint8_t[]> Buf(new (std::nothrow) uint8_t[Size]);
  if (!Buf)
    return payloadError(Context, "cannot allocate " + hex(Size) + " bytes for the payload");
  if (C == Compression::Zstd) {
    size_t R = ZSTD_decompress(Buf.get(), Size, Src.data(), Src.size());
    if (ZSTD_isError(R))
      return payloadError(Context, Twine("corrupt zstd payload: ") + ZSTD_getErrorName(R) +
                                       " (expected " + hex(Size) + " bytes)");
    if (R != Size)
      return payloadError(Context, "zstd payload decompressed to " + hex(R) +
                                       " bytes but the entry records uncompressed_size " +
                                       hex(Size));
  } else {
    int R = LZ4_decompress_safe(reinterpret_cast<const char *>(Src.data()),
                                reinterpret_cast<char *>(Buf.get()), int(Src.size()), int(Size));
    if (R < 0)
      return payloadError(Context, "corrupt LZ4 payload, or it decompresses to more than the "
                                   "recorded uncompressed_size " +
                                       hex(Size) + " (LZ4 error at input byte " +
                                       Twine(-int64_t(R) - 1) + ")");
    if (uint64_t(R) != Size)
      return payloadError(Context, "LZ4 payload decompressed to " + hex(R) +
                                       " bytes but the entry records uncompressed_size " +
                                       hex(Size));
  }
  return Payload::owned(std::move(Buf), Size);
}

Expected<Payload> Fatbin::payload(const Entry &E) const {
  if (E.isOpaque())
    return payloadError(describe(E),
                        E.Kind == EntryKind::LTOIR
                            ? "LTO-IR (kind 8) entries are opaque: their payload cannot be read"
                            : "the entry is opaque (flags " + hex(E.Flags) +
                                  " include 0x10000): its payload cannot be read");
  if (E.compression() != Compression::None && E.PayloadSize == 0)
    return payloadError(describe(E), "flags " + hex(E.Flags) +
                                         " say the payload is compressed but payload_size is 0");
  return decompress(E.compression(), E.Stored, E.UncompressedSize, describe(E));
}

Expected<Payload> Fatbin::ptx(const Entry &E) const {
  if (E.Kind != EntryKind::PTX)
    return payloadError(describe(E), "not a PTX entry (kind " + Twine(E.RawKind) + ", " +
                                         toString(E.Kind) + ")");
  Expected<Payload> P = payload(E);
  if (!P)
    return P.takeError();
  const void *Nul = std::memchr(P->bytes().data(), 0, P->size());
  if (Nul)
    P->truncate(static_cast<const uint8_t *>(Nul) - P->bytes().data());
  return P;
}

} // namespace ptx2amd::fatbin
