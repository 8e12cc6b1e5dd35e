//===- DeviceOutput.cpp - read device printf and assertion records --------===//
//
// The host side of device-lib/ptx2amd-device.c: formats each vprintf record with
// the C library's printf, one conversion at a time, taking each argument from
// the copied argument buffer at its natural alignment as CUDA's vprintf lays it
// out (%s arguments point at string copies inside the record).
//
//===----------------------------------------------------------------------===//

#include "ptx2amd/amdgpu-backend/DeviceOutput.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Alignment.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MathExtras.h"

#include <cstdio>
#include <cstring>

using namespace llvm;

namespace ptx2amd::amdgpu {
namespace {

Error malformed(const Twine &What) {
  return createStringError(inconvertibleErrorCode(), "malformed device output buffer: " + What);
}

uint32_t read32(ArrayRef<uint8_t> B, size_t At) { return support::endian::read32le(B.data() + At); }

/// A NUL-terminated string starting at \p At inside \p Record, or an error.
Expected<StringRef> stringAt(ArrayRef<uint8_t> Record, size_t At) {
  if (At >= Record.size())
    return malformed("a string outside its record");
  const char *S = reinterpret_cast<const char *>(Record.data() + At);
  size_t N = strnlen(S, Record.size() - At);
  if (N == Record.size() - At)
    return malformed("an unterminated string");
  return StringRef(S, N);
}

Expected<std::string> formatPrintf(ArrayRef<uint8_t> Record) {
  if (Record.size() < 16)
    return malformed("a short printf record");
  uint32_t FmtBytes = read32(Record, 8), ArgBytes = read32(Record, 12);
  size_t ArgsAt = 16 + alignTo(FmtBytes, 8);
  if (FmtBytes == 0 || ArgsAt + ArgBytes > Record.size())
    return malformed("printf sizes past the record");
  auto Fmt = stringAt(Record, 16);
  if (!Fmt)
    return Fmt.takeError();
  ArrayRef<uint8_t> Args = Record.slice(ArgsAt, ArgBytes);
  std::string Out;
  size_t ArgAt = 0;
  auto TakeArg = [&](size_t Size) -> Expected<uint64_t> {
    ArgAt = alignTo(ArgAt, Size);
    if (ArgAt + Size > Args.size())
      return malformed("fewer printf arguments than conversions");
    uint64_t V = Size == 8 ? support::endian::read64le(Args.data() + ArgAt) : read32(Args, ArgAt);
    ArgAt += Size;
    return V;
  };
  StringRef F = *Fmt;
  while (!F.empty()) {
    size_t P = F.find('%');
    Out += F.substr(0, P).str();
    if (P == StringRef::npos)
      break;
    F = F.substr(P);
    if (F.starts_with("%%")) {
      Out += '%';
      F = F.drop_front(2);
      continue;
    }
    // One conversion: flags, width, precision, length, conversion character.
    size_t End = 1;
    unsigned Longs = 0;
    std::vector<int> Stars;
    while (End < F.size()) {
      char C = F[End];
      if (C == 'l' || C == 'L' || C == 'j' || C == 'z' || C == 't' || C == 'q')
        ++Longs;
      else if (C == '*') {
        auto V = TakeArg(4);
        if (!V)
          return V.takeError();
        Stars.push_back(static_cast<int>(*V));
      } else if (!(C == 'h' || C == '-' || C == '+' || C == ' ' || C == '#' || C == '.' ||
                   (C >= '0' && C <= '9')))
        break;
      ++End;
    }
    if (End == F.size()) { // a lone '%' at the end prints as it is
      Out += F.str();
      break;
    }
    char Conv = F[End];
    // Rebuild the specification without length modifiers; the value is passed at full width.
    std::string Spec;
    for (char C : F.substr(0, End))
      if (!(C == 'l' || C == 'L' || C == 'j' || C == 'z' || C == 't' || C == 'q' || C == 'h'))
        Spec += C;
    bool Float = StringRef("fFeEgGaA").contains(Conv);
    bool Wide = Float || Conv == 'p' || Conv == 's' || Longs;
    char Buf[512];
    int N = 0;
    auto Print = [&](auto Value) {
      if (Stars.size() == 2)
        N = snprintf(Buf, sizeof Buf, Spec.c_str(), Stars[0], Stars[1], Value);
      else if (Stars.size() == 1)
        N = snprintf(Buf, sizeof Buf, Spec.c_str(), Stars[0], Value);
      else
        N = snprintf(Buf, sizeof Buf, Spec.c_str(), Value);
    };
    if (StringRef("diouxXcfFeEgGaAps").contains(Conv)) {
      auto V = TakeArg(Wide ? 8 : 4);
      if (!V)
        return V.takeError();
      if (Conv == 's') {
        auto S = stringAt(Record, *V);
        if (!S)
          return S.takeError();
        Spec += 's';
        Print(S->str().c_str());
      } else if (Float) {
        double D;
        std::memcpy(&D, &*V, 8);
        Spec += Conv;
        Print(D);
      } else if (Conv == 'p') {
        Spec += 'p';
        Print(reinterpret_cast<void *>(static_cast<uintptr_t>(*V)));
      } else if (Conv == 'c') {
        Spec += 'c';
        Print(static_cast<int>(*V));
      } else {
        Spec += "ll";
        Spec += Conv;
        bool Signed = Conv == 'd' || Conv == 'i';
        if (Signed)
          Print(Wide ? static_cast<long long>(*V)
                     : static_cast<long long>(static_cast<int32_t>(*V)));
        else
          Print(static_cast<unsigned long long>(*V));
      }
      if (N > 0)
        Out.append(Buf, std::min<size_t>(N, sizeof Buf - 1));
    } else {
      Out += F.substr(0, End + 1).str(); // an unknown conversion prints as it is
    }
    F = F.drop_front(End + 1);
  }
  return Out;
}

} // namespace

Expected<DeviceOutput> readDeviceOutput(ArrayRef<uint8_t> Buffer) {
  if (Buffer.size() < OutputHeaderSize)
    return malformed("shorter than its header");
  uint32_t Capacity = read32(Buffer, 0), Used = read32(Buffer, 4);
  DeviceOutput Out;
  Out.Dropped = read32(Buffer, 8);
  if (Capacity > Buffer.size() - OutputHeaderSize)
    return malformed("a capacity past the buffer");
  // Reservations past the capacity were dropped; the records lie below min(used, capacity).
  ArrayRef<uint8_t> Records = Buffer.slice(OutputHeaderSize, std::min(Used, Capacity));
  size_t At = 0;
  while (At + 8 <= Records.size()) {
    uint32_t Size = read32(Records, At), Kind = read32(Records, At + 4);
    if (Size < 8 || Size % 8 || At + Size > Records.size())
      return malformed("a record size of " + Twine(Size) + " at offset " + Twine(At));
    ArrayRef<uint8_t> Record = Records.slice(At, Size);
    if (Kind == uint32_t(OutputKind::Printf)) {
      auto Text = formatPrintf(Record);
      if (!Text)
        return Text.takeError();
      Out.Text += *Text;
    } else if (Kind == uint32_t(OutputKind::Assert)) {
      if (Size < 16)
        return malformed("a short assertion record");
      auto Msg = stringAt(Record, 16);
      if (!Msg)
        return Msg.takeError();
      auto File = stringAt(Record, 16 + Msg->size() + 1);
      if (!File)
        return File.takeError();
      auto Func = stringAt(Record, 16 + Msg->size() + 1 + File->size() + 1);
      if (!Func)
        return Func.takeError();
      Out.Assertions.push_back((*File + ":" + Twine(read32(Record, 8)) + ": " + *Func +
                                ": Assertion `" + *Msg + "' failed.")
                                   .str());
    } else {
      return malformed("an unknown record kind " + Twine(Kind));
    }
    At += Size;
  }
  return Out;
}

} // namespace ptx2amd::amdgpu
