//===- KernelMetadata.cpp - read kernel metadata from a code object -------===//

#include "ptx2amd/amdgpu-backend/KernelMetadata.h"
#include "ptx2amd/support/Error.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackReader.h"
#include "llvm/Object/ELF.h"

#include <algorithm>

using namespace llvm;

namespace ptx2amd::amdgpu {

namespace {

/// Errors of this file, prefixed with what failed.
Error fail(ErrorKind K, const Twine &Msg) { return makeError(K, "AMDGPU code object: " + Msg); }

/// A msgpack value. The metadata note is untrusted input: it is parsed with the
/// streaming msgpack::Reader (which checks every length against the input) into
/// this small tree rather than into msgpack::Document, whose maps compare keys of
/// any kind and hit llvm_unreachable on corrupt input (e.g. two array keys).
struct Node {
  msgpack::Type Kind = msgpack::Type::Nil;
  uint64_t UInt = 0;
  int64_t Int = 0;
  bool Bool = false;
  StringRef Str;
  std::vector<Node> Elems;                    // Array
  std::vector<std::pair<Node, Node>> Entries; // Map, in input order

  bool isString() const { return Kind == msgpack::Type::String; }
  /// The value of a string key in a map, or nullptr (the first one wins).
  const Node *lookup(StringRef Key) const {
    for (const auto &[K, V] : Entries)
      if (K.isString() && K.Str == Key)
        return &V;
    return nullptr;
  }
};

constexpr unsigned MaxDepth = 32;

Error parseNode(msgpack::Reader &R, Node &N, unsigned Depth) {
  if (Depth > MaxDepth)
    return fail(ErrorKind::BadInput, "metadata nested too deeply");
  msgpack::Object O;
  Expected<bool> Got = R.read(O);
  if (!Got)
    return fail(ErrorKind::BadInput,
                "invalid msgpack in the metadata note: " + toString(Got.takeError()));
  if (!*Got)
    return fail(ErrorKind::BadInput, "the metadata note ends early");
  N.Kind = O.Kind;
  switch (O.Kind) {
  case msgpack::Type::UInt:
    N.UInt = O.UInt;
    break;
  case msgpack::Type::Int:
    N.Int = O.Int;
    break;
  case msgpack::Type::Boolean:
    N.Bool = O.Bool;
    break;
  case msgpack::Type::String:
  case msgpack::Type::Binary:
    N.Str = O.Raw;
    break;
  case msgpack::Type::Array:
    // Lengths come from the input: grow as elements are actually read.
    for (size_t I = 0; I < O.Length; ++I) {
      N.Elems.emplace_back();
      if (Error E = parseNode(R, N.Elems.back(), Depth + 1))
        return E;
    }
    break;
  case msgpack::Type::Map:
    for (size_t I = 0; I < O.Length; ++I) {
      N.Entries.emplace_back();
      if (Error E = parseNode(R, N.Entries.back().first, Depth + 1))
        return E;
      if (Error E = parseNode(R, N.Entries.back().second, Depth + 1))
        return E;
    }
    break;
  default: // Nil, Float, Extension: kept as their kind only
    break;
  }
  return Error::success();
}

/// Field readers: a missing key leaves the default; a key of the wrong type is an error.
class MapReader {
public:
  MapReader(const Node &Map, std::string Where) : Map(Map), Where(std::move(Where)) {}

  Error uint(StringRef Key, uint64_t &Out) {
    const Node *N = Map.lookup(Key);
    if (!N)
      return Error::success();
    if (N->Kind == msgpack::Type::UInt) {
      Out = N->UInt;
      return Error::success();
    }
    if (N->Kind == msgpack::Type::Int && N->Int >= 0) {
      Out = uint64_t(N->Int);
      return Error::success();
    }
    return fail(ErrorKind::BadInput, Where + ": '" + Key + "' is not an unsigned integer");
  }
  Error string(StringRef Key, std::string &Out) {
    const Node *N = Map.lookup(Key);
    if (!N)
      return Error::success();
    if (!N->isString())
      return fail(ErrorKind::BadInput, Where + ": '" + Key + "' is not a string");
    Out = N->Str.str();
    return Error::success();
  }
  Error boolean(StringRef Key, bool &Out) {
    const Node *N = Map.lookup(Key);
    if (!N)
      return Error::success();
    if (N->Kind != msgpack::Type::Boolean)
      return fail(ErrorKind::BadInput, Where + ": '" + Key + "' is not a boolean");
    Out = N->Bool;
    return Error::success();
  }
  /// The array under Key, or nullptr when absent.
  Expected<const Node *> array(StringRef Key) {
    const Node *N = Map.lookup(Key);
    if (N && N->Kind != msgpack::Type::Array)
      return fail(ErrorKind::BadInput, Where + ": '" + Key + "' is not an array");
    return N;
  }

private:
  const Node &Map;
  std::string Where;
};

Error readArg(const Node &N, const Twine &Where, KernelArgMetadata &A) {
  if (N.Kind != msgpack::Type::Map)
    return fail(ErrorKind::BadInput, Where + " is not a map");
  MapReader R(N, Where.str());
  if (Error E = R.string(".name", A.Name))
    return E;
  if (Error E = R.string(".type_name", A.TypeName))
    return E;
  if (Error E = R.uint(".offset", A.Offset))
    return E;
  if (Error E = R.uint(".size", A.Size))
    return E;
  if (Error E = R.string(".value_kind", A.ValueKind))
    return E;
  return R.string(".address_space", A.AddressSpace);
}

Error readKernel(const Node &N, unsigned Index, KernelMetadata &K) {
  std::string Where = "amdhsa.kernels[" + std::to_string(Index) + "]";
  if (N.Kind != msgpack::Type::Map)
    return fail(ErrorKind::BadInput, Where + " is not a map");
  MapReader R(N, Where);
  for (auto [Key, Out] :
       {std::pair<StringRef, std::string *>{".name", &K.Name}, {".symbol", &K.Symbol}})
    if (Error E = R.string(Key, *Out))
      return E;
  for (auto [Key, Out] :
       {std::pair<StringRef, uint64_t *>{".kernarg_segment_size", &K.KernargSegmentSize},
        {".kernarg_segment_align", &K.KernargSegmentAlign},
        {".group_segment_fixed_size", &K.GroupSegmentFixedSize},
        {".private_segment_fixed_size", &K.PrivateSegmentFixedSize},
        {".vgpr_count", &K.VgprCount},
        {".sgpr_count", &K.SgprCount},
        {".agpr_count", &K.AgprCount},
        {".vgpr_spill_count", &K.VgprSpillCount},
        {".sgpr_spill_count", &K.SgprSpillCount},
        {".wavefront_size", &K.WavefrontSize},
        {".max_flat_workgroup_size", &K.MaxFlatWorkgroupSize}})
    if (Error E = R.uint(Key, *Out))
      return E;
  if (Error E = R.boolean(".uses_dynamic_stack", K.UsesDynamicStack))
    return E;
  if (K.Name.empty())
    return fail(ErrorKind::BadInput, Where + " has no .name");
  auto Args = R.array(".args");
  if (!Args)
    return Args.takeError();
  if (*Args) {
    unsigned I = 0;
    for (const Node &AN : (*Args)->Elems) {
      KernelArgMetadata A;
      if (Error E = readArg(AN, Where + " (" + K.Name + ") .args[" + Twine(I++) + "]", A))
        return E;
      K.Args.push_back(std::move(A));
    }
  }
  return Error::success();
}

Error readMetadataNote(StringRef Blob, CodeObjectMetadata &MD) {
  msgpack::Reader Reader(Blob);
  Node Root;
  if (Error E = parseNode(Reader, Root, 0))
    return E;
  if (Root.Kind != msgpack::Type::Map)
    return fail(ErrorKind::BadInput, "the metadata root is not a map");
  MapReader R(Root, "metadata");
  if (Error E = R.string("amdhsa.target", MD.TargetId))
    return E;
  auto Version = R.array("amdhsa.version");
  if (!Version)
    return Version.takeError();
  if (*Version)
    for (const Node &V : (*Version)->Elems) {
      if (V.Kind == msgpack::Type::UInt)
        MD.Version.push_back(V.UInt);
      else if (V.Kind == msgpack::Type::Int && V.Int >= 0)
        MD.Version.push_back(uint64_t(V.Int));
      else
        return fail(ErrorKind::BadInput, "amdhsa.version holds a non-integer");
    }
  auto Kernels = R.array("amdhsa.kernels");
  if (!Kernels)
    return Kernels.takeError();
  if (!*Kernels)
    return fail(ErrorKind::BadInput, "the metadata has no amdhsa.kernels");
  unsigned I = 0;
  for (const Node &KN : (*Kernels)->Elems) {
    KernelMetadata K;
    if (Error E = readKernel(KN, I++, K))
      return E;
    MD.Kernels.push_back(std::move(K));
  }
  return Error::success();
}

} // namespace

uint64_t KernelMetadata::explicitKernargSize() const {
  uint64_t End = 0;
  for (const KernelArgMetadata &A : Args)
    if (!A.isHidden())
      End = std::max(End, A.Offset + A.Size);
  return End;
}

unsigned CodeObjectMetadata::codeObjectVersion() const {
  switch (AbiVersion) {
  case ELF::ELFABIVERSION_AMDGPU_HSA_V4:
    return 4;
  case ELF::ELFABIVERSION_AMDGPU_HSA_V5:
    return 5;
  case ELF::ELFABIVERSION_AMDGPU_HSA_V6:
    return 6;
  default:
    return 0;
  }
}

const KernelMetadata *CodeObjectMetadata::findKernel(StringRef Name) const {
  for (const KernelMetadata &K : Kernels)
    if (K.Name == Name)
      return &K;
  return nullptr;
}

Expected<CodeObjectMetadata> readCodeObjectMetadata(ArrayRef<uint8_t> Bytes) {
  using ELFT = object::ELF64LE;
  // The ELF structures are read in place: keep them 8-byte aligned.
  std::vector<uint64_t> Aligned;
  StringRef Data(reinterpret_cast<const char *>(Bytes.data()), Bytes.size());
  if (reinterpret_cast<uintptr_t>(Bytes.data()) % alignof(uint64_t) != 0) {
    Aligned.resize(Bytes.size() / 8 + 1);
    std::copy(Bytes.begin(), Bytes.end(), reinterpret_cast<uint8_t *>(Aligned.data()));
    Data = StringRef(reinterpret_cast<const char *>(Aligned.data()), Bytes.size());
  }
  if (Data.size() < ELF::EI_NIDENT || !Data.starts_with(ELF::ElfMagic))
    return fail(ErrorKind::BadInput, "not an ELF file");
  if (uint8_t(Data[ELF::EI_CLASS]) != ELF::ELFCLASS64 ||
      uint8_t(Data[ELF::EI_DATA]) != ELF::ELFDATA2LSB)
    return fail(ErrorKind::BadInput, "not a 64-bit little-endian ELF file");
  auto FileOrErr = object::ELFFile<ELFT>::create(Data);
  if (!FileOrErr)
    return fail(ErrorKind::BadInput, toString(FileOrErr.takeError()));
  const object::ELFFile<ELFT> &File = *FileOrErr;
  const ELFT::Ehdr &H = File.getHeader();

  CodeObjectMetadata MD;
  MD.Machine = H.e_machine;
  MD.Flags = H.e_flags;
  MD.OsAbi = H.e_ident[ELF::EI_OSABI];
  MD.AbiVersion = H.e_ident[ELF::EI_ABIVERSION];
  if (MD.Machine != ELF::EM_AMDGPU)
    return fail(ErrorKind::BadInput, "e_machine is " + Twine(MD.Machine) + ", not EM_AMDGPU");

  bool Found = false;
  auto Visit = [&](const ELFT::Note &N, uint64_t Align) -> Error {
    if (Found || N.getName() != "AMDGPU" || N.getType() != ELF::NT_AMDGPU_METADATA)
      return Error::success();
    Found = true;
    return readMetadataNote(N.getDescAsStringRef(Align), MD);
  };
  // A linked code object has a PT_NOTE segment; a relocatable object only sections.
  auto Phdrs = File.program_headers();
  if (!Phdrs)
    return fail(ErrorKind::BadInput, toString(Phdrs.takeError()));
  for (const ELFT::Phdr &P : *Phdrs) {
    if (P.p_type != ELF::PT_NOTE)
      continue;
    Error Err = Error::success();
    for (const ELFT::Note &N : File.notes(P, Err))
      if (Error E = Visit(N, P.p_align)) {
        consumeError(std::move(Err));
        return E;
      }
    if (Err)
      return fail(ErrorKind::BadInput, toString(std::move(Err)));
  }
  if (!Found) {
    auto Shdrs = File.sections();
    if (!Shdrs)
      return fail(ErrorKind::BadInput, toString(Shdrs.takeError()));
    for (const ELFT::Shdr &S : *Shdrs) {
      if (S.sh_type != ELF::SHT_NOTE)
        continue;
      Error Err = Error::success();
      for (const ELFT::Note &N : File.notes(S, Err))
        if (Error E = Visit(N, S.sh_addralign)) {
          consumeError(std::move(Err));
          return E;
        }
      if (Err)
        return fail(ErrorKind::BadInput, toString(std::move(Err)));
    }
  }
  if (!Found)
    return fail(ErrorKind::BadInput, "no NT_AMDGPU_METADATA note");
  return MD;
}

Expected<std::vector<KernelMetadata>> readKernelMetadata(ArrayRef<uint8_t> Bytes) {
  auto MD = readCodeObjectMetadata(Bytes);
  if (!MD)
    return MD.takeError();
  return std::move(MD->Kernels);
}

} // namespace ptx2amd::amdgpu
