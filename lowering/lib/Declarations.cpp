// Passes 1 and 2: module globals and function signatures.
#include "LoweringContext.h"

#include <fmt/format.h>

#include <optional>

using namespace llvm;

namespace ptx2amd::lowering {

llvm::Type *storageType(LLVMContext &C, ir::Type T) {
  if (T == ir::Type::Pred)
    return Type::getInt1Ty(C);
  return Type::getIntNTy(C, std::max(8u, ir::typeBits(T)));
}

llvm::Type *valueType(LLVMContext &C, ir::Type T) {
  switch (T) {
  case ir::Type::F16:
    return Type::getHalfTy(C);
  case ir::Type::BF16:
    return Type::getBFloatTy(C);
  case ir::Type::F32:
    return Type::getFloatTy(C);
  case ir::Type::F64:
    return Type::getDoubleTy(C);
  case ir::Type::F16x2:
    return FixedVectorType::get(Type::getHalfTy(C), 2);
  case ir::Type::BF16x2:
    return FixedVectorType::get(Type::getBFloatTy(C), 2);
  default:
    return storageType(C, T);
  }
}

uint64_t variableSize(const ir::Variable &V) { return V.sizeInBytes(); }

unsigned variableAlign(const ir::Variable &V) {
  unsigned Natural = std::max(1u, ir::typeBits(V.Ty) / 8) * std::max<unsigned>(1, V.VecWidth);
  return V.Align ? V.Align : Natural;
}

namespace {

/// Bytes of an initializer, element by element; an error for forms that need relocations.
std::optional<std::string> initializerBytes(const ir::Initializer &I, unsigned ElemBytes,
                                            std::vector<uint8_t> &Out) {
  auto Put = [&](uint64_t V) {
    for (unsigned K = 0; K < ElemBytes; ++K)
      Out.push_back(static_cast<uint8_t>(K < 8 ? V >> (8 * K) : 0));
  };
  switch (I.K) {
  case ir::Initializer::None:
    return std::nullopt;
  case ir::Initializer::Data:
    Out.insert(Out.end(), I.Bytes.begin(), I.Bytes.end());
    return std::nullopt;
  case ir::Initializer::Int:
    Put(static_cast<uint64_t>(I.Value));
    return std::nullopt;
  case ir::Initializer::Float:
    if (I.ElemBytes != ElemBytes)
      return "a float initializer of another width than the variable";
    Put(static_cast<uint64_t>(I.Value));
    return std::nullopt;
  case ir::Initializer::List:
    for (const ir::Initializer &E : I.Elements)
      if (auto P = initializerBytes(E, ElemBytes, Out))
        return P;
    return std::nullopt;
  case ir::Initializer::Symbol:
  case ir::Initializer::Named:
    return "address and sampler initializers are not supported yet";
  }
  return std::nullopt;
}

GlobalValue::LinkageTypes linkageOf(ir::Linkage L) {
  switch (L) {
  case ir::Linkage::Internal:
    return GlobalValue::InternalLinkage;
  case ir::Linkage::Visible:
    return GlobalValue::ExternalLinkage;
  case ir::Linkage::Extern:
    return GlobalValue::ExternalLinkage;
  case ir::Linkage::Weak:
    return GlobalValue::WeakAnyLinkage;
  case ir::Linkage::Common:
    return GlobalValue::CommonLinkage;
  }
  return GlobalValue::InternalLinkage;
}

} // namespace

namespace {

/// One element of an initializer that holds addresses: a number, or a symbol (+ offset).
struct InitElement {
  bool IsSymbol = false;
  uint64_t Value = 0;
  const ir::Initializer *Symbol = nullptr;
};

std::optional<std::string> flatten(const ir::Initializer &I, unsigned ElemBytes,
                                   std::vector<InitElement> &Out) {
  switch (I.K) {
  case ir::Initializer::None:
    return std::nullopt;
  case ir::Initializer::Data:
    for (size_t K = 0; K + ElemBytes <= I.Bytes.size(); K += ElemBytes) {
      uint64_t V = 0;
      for (unsigned J = 0; J < ElemBytes && J < 8; ++J)
        V |= uint64_t(I.Bytes[K + J]) << (8 * J);
      Out.push_back({false, V, nullptr});
    }
    return std::nullopt;
  case ir::Initializer::Int:
  case ir::Initializer::Float:
    Out.push_back({false, static_cast<uint64_t>(I.Value), nullptr});
    return std::nullopt;
  case ir::Initializer::List:
    for (const ir::Initializer &E : I.Elements)
      if (auto P = flatten(E, ElemBytes, Out))
        return P;
    return std::nullopt;
  case ir::Initializer::Symbol:
    if (I.Mask || ElemBytes != 8)
      return "byte-mask and 32-bit address initializers are not supported yet";
    Out.push_back({true, 0, &I});
    return std::nullopt;
  case ir::Initializer::Named:
    return "sampler initializers are not supported yet";
  }
  return std::nullopt;
}

bool hasSymbols(const ir::Initializer &I) {
  if (I.K == ir::Initializer::Symbol)
    return true;
  for (const ir::Initializer &E : I.Elements)
    if (hasSymbols(E))
      return true;
  return false;
}

} // namespace

void declareGlobals(ModuleState &S) {
  // Initializers that hold addresses (function tables, vtables) are filled in once every global
  // exists, since they may name each other.
  std::vector<std::pair<size_t, std::vector<InitElement>>> WithAddresses;
  for (const ir::Variable &V : S.PTX.Globals) {
    S.Globals.push_back(nullptr);
    S.GlobalProblem.emplace_back();
    unsigned AS;
    switch (V.Sp) {
    case ir::Space::Global:
      AS = ASGlobal;
      break;
    case ir::Space::Const:
      AS = ASConst;
      break;
    case ir::Space::Shared:
      AS = ASLDS;
      break;
    default:
      S.GlobalProblem.back() =
          fmt::format("'.{}' variables are not supported yet", ir::spaceName(V.Sp));
      continue;
    }
    uint64_t Size = variableSize(V);
    bool Dynamic = V.Sp == ir::Space::Shared && !V.Dims.empty() && V.Dims[0] == 0;
    auto *Ty = ArrayType::get(Type::getInt8Ty(S.Ctx), Dynamic ? 0 : Size);
    bool Declaration = V.Link == ir::Linkage::Extern || Dynamic;
    Constant *Init = nullptr;
    if (!Declaration) {
      if (V.Sp == ir::Space::Shared) {
        Init = UndefValue::get(Ty); // LDS cannot be initialised
      } else if (hasSymbols(V.Init)) {
        std::vector<InitElement> Elems;
        unsigned EB = std::max(1u, ir::typeBits(V.Ty) / 8);
        if (auto Problem = flatten(V.Init, EB, Elems)) {
          S.GlobalProblem.back() = *Problem;
          continue;
        }
        if (Elems.size() * EB > Size) {
          S.GlobalProblem.back() = "the initializer is larger than the variable";
          continue;
        }
        SmallVector<llvm::Type *, 16> Fields(Elems.size(), Type::getIntNTy(S.Ctx, EB * 8));
        if (Size > Elems.size() * EB)
          Fields.push_back(ArrayType::get(Type::getInt8Ty(S.Ctx), Size - Elems.size() * EB));
        auto *ST = StructType::get(S.Ctx, Fields, /*isPacked=*/true);
        auto *G = new GlobalVariable(S.M, ST, V.Sp == ir::Space::Const, linkageOf(V.Link), nullptr,
                                     V.Name, nullptr, GlobalValue::NotThreadLocal, AS);
        G->setAlignment(Align(variableAlign(V)));
        if (V.Link == ir::Linkage::Visible)
          G->setVisibility(GlobalValue::ProtectedVisibility);
        S.Globals.back() = G;
        WithAddresses.push_back({S.Globals.size() - 1, std::move(Elems)});
        continue;
      } else {
        std::vector<uint8_t> Bytes;
        if (auto Problem = initializerBytes(V.Init, std::max(1u, ir::typeBits(V.Ty) / 8), Bytes)) {
          S.GlobalProblem.back() = *Problem;
          continue;
        }
        Bytes.resize(Size, 0);
        Init = Bytes.empty() ? ConstantAggregateZero::get(Ty)
                             : ConstantDataArray::get(S.Ctx, ArrayRef<uint8_t>(Bytes));
      }
    }
    auto Link = Dynamic ? GlobalValue::ExternalLinkage : linkageOf(V.Link);
    // LDS variables of a code object are never visible outside it.
    if (V.Sp == ir::Space::Shared && !Dynamic)
      Link = GlobalValue::InternalLinkage;
    auto *G = new GlobalVariable(S.M, Ty, V.Sp == ir::Space::Const, Link, Init, V.Name, nullptr,
                                 GlobalValue::NotThreadLocal, AS);
    G->setAlignment(Align(variableAlign(V)));
    // Visible globals are looked up by name through the HSA runtime (cuModuleGetGlobal).
    if (V.Link == ir::Linkage::Visible)
      G->setVisibility(GlobalValue::ProtectedVisibility);
    S.Globals.back() = G;
  }
  for (auto &[Index, Elems] : WithAddresses) {
    GlobalVariable *G = S.Globals[Index];
    auto *ST = cast<StructType>(G->getValueType());
    SmallVector<Constant *, 16> Values;
    std::string Problem;
    for (size_t K = 0; K < Elems.size(); ++K) {
      auto *IT = cast<IntegerType>(ST->getElementType(K));
      if (!Elems[K].IsSymbol) {
        Values.push_back(ConstantInt::get(IT, Elems[K].Value));
        continue;
      }
      const ir::Initializer &Sym = *Elems[K].Symbol;
      auto It = S.PTX.Symbols.find(Sym.Name);
      Constant *Target = nullptr;
      if (It != S.PTX.Symbols.end() && It->second.K == ir::SymbolRef::Global)
        Target = S.Globals[It->second.Index];
      else if (It != S.PTX.Symbols.end() && It->second.K == ir::SymbolRef::Function)
        Target = S.PTX.Functions[It->second.Index]->IsKernel
                     ? static_cast<Constant *>(kernelHandle(S, It->second.Index))
                     : S.Functions[It->second.Index];
      if (!Target) {
        Problem = fmt::format("the initializer names '{}', which cannot be used", Sym.Name);
        break;
      }
      // Addresses in initializers are generic (flat) addresses.
      Constant *P = ConstantExpr::getGetElementPtr(
          Type::getInt8Ty(S.Ctx), Target, ConstantInt::get(Type::getInt64Ty(S.Ctx), Sym.Value));
      if (P->getType()->getPointerAddressSpace() != ASFlat)
        P = ConstantExpr::getAddrSpaceCast(P, PointerType::get(S.Ctx, ASFlat));
      Values.push_back(ConstantExpr::getPtrToInt(P, IT));
    }
    if (!Problem.empty()) {
      // Kept (another initializer may name it) but unusable by functions.
      S.GlobalProblem[Index] = Problem;
      S.Globals[Index] = nullptr;
      G->setInitializer(ConstantAggregateZero::get(ST));
      continue;
    }
    if (ST->getNumElements() > Elems.size())
      Values.push_back(ConstantAggregateZero::get(ST->getElementType(Elems.size())));
    G->setInitializer(ConstantStruct::get(ST, Values));
  }
}

llvm::Type *paramType(LLVMContext &C, const ir::Variable &P) {
  if (!P.Dims.empty() || P.VecWidth)
    return ArrayType::get(Type::getInt8Ty(C), variableSize(P));
  return storageType(C, P.Ty);
}

llvm::FunctionType *deviceFunctionType(LLVMContext &C, const std::vector<ir::Variable> &Returns,
                                       const std::vector<ir::Variable> &Params) {
  SmallVector<llvm::Type *, 8> PTs;
  for (const ir::Variable &P : Params)
    PTs.push_back(paramType(C, P));
  llvm::Type *Ret = Type::getVoidTy(C);
  if (Returns.size() == 1) {
    Ret = paramType(C, Returns[0]);
  } else if (Returns.size() > 1) {
    SmallVector<llvm::Type *, 4> Fields;
    for (const ir::Variable &R : Returns)
      Fields.push_back(paramType(C, R));
    Ret = StructType::get(C, Fields);
  }
  return FunctionType::get(Ret, PTs, false);
}

namespace {
/// CUDA's device runtime (what libcudadevrt gives CUDA dynamic parallelism), served by the device
/// library: each function as nvcc 13 calls it (`__cudaCDP2<Name>`) and as CDP1 code does
/// (`cuda<Name>`). The signature is the return type, '=', the parameters: 'i' i32, 'l' i64,
/// 'd' a dim3 (`.param .align 4 .b8 [12]`). Device-side cudaDeviceSynchronize is not here: CUDA 12
/// removed it, and a kernel that calls it does not load.
struct DeviceRuntimeFunction {
  const char *Name, *Ours, *Signature;
};
constexpr DeviceRuntimeFunction DeviceRuntime[] = {
    {"GetLastError", "get_last_error", "i="},
    {"PeekAtLastError", "peek_at_last_error", "i="},
    {"GetErrorString", "get_error_string", "l=i"},
    {"GetErrorName", "get_error_name", "l=i"},
    {"GetDeviceCount", "get_device_count", "i=l"},
    {"GetDevice", "get_device", "i=l"},
    {"DeviceGetAttribute", "device_get_attribute", "i=lii"},
    {"DeviceGetLimit", "device_get_limit", "i=li"},
    {"DeviceGetCacheConfig", "device_get_cache_config", "i=l"},
    {"DeviceGetSharedMemConfig", "device_get_shared_mem_config", "i=l"},
    {"RuntimeGetVersion", "runtime_get_version", "i=l"},
    {"StreamCreateWithFlags", "stream_create", "i=li"},
    {"StreamDestroy", "stream_destroy", "i=l"},
    {"StreamWaitEvent", "stream_wait_event", "i=lli"},
    {"StreamWaitEvent_ptsz", "stream_wait_event", "i=lli"},
    {"EventCreateWithFlags", "event_create", "i=li"},
    {"EventRecord", "event_record", "i=ll"},
    {"EventRecord_ptsz", "event_record", "i=ll"},
    {"EventDestroy", "event_destroy", "i=l"},
    {"Malloc", "malloc", "i=ll"},
    {"Free", "free", "i=l"},
    {"GetParameterBuffer", "parameter_buffer", "l=ll"},
    {"GetParameterBufferV2", "parameter_buffer_v2", "l=lddi"},
    {"LaunchDevice", "launch_device", "i=llddil"},
    {"LaunchDevice_ptsz", "launch_device", "i=llddil"},
    {"LaunchDeviceV2", "launch_device_v2", "i=ll"},
    {"LaunchDeviceV2_ptsz", "launch_device_v2", "i=ll"},
    {"MemcpyAsync", "memcpy_async", "i=lllil"},
    {"MemcpyAsync_ptsz", "memcpy_async", "i=lllil"},
    {"MemsetAsync", "memset_async", "i=lill"},
    {"MemsetAsync_ptsz", "memset_async", "i=lill"},
};

FunctionType *signatureType(LLVMContext &C, StringRef Signature) {
  auto TypeOf = [&](char Code) -> llvm::Type * {
    switch (Code) {
    case 'i':
      return Type::getInt32Ty(C);
    case 'l':
      return Type::getInt64Ty(C);
    default:
      return ArrayType::get(Type::getInt8Ty(C), 12);
    }
  };
  SmallVector<llvm::Type *, 8> Params;
  for (char Code : Signature.drop_front(2))
    Params.push_back(TypeOf(Code));
  return FunctionType::get(TypeOf(Signature[0]), Params, false);
}

/// The device library's function for \p Name of type \p FT when it is CUDA's device runtime.
std::optional<std::string> deviceRuntimeName(StringRef Name, FunctionType *FT) {
  StringRef Base;
  if (!Name.consume_front("__cudaCDP2") && !Name.consume_front("cuda"))
    return std::nullopt;
  Base = Name;
  for (const DeviceRuntimeFunction &R : DeviceRuntime)
    if (Base == R.Name && FT == signatureType(FT->getContext(), R.Signature))
      return std::string("__ptx2amd_cdp_") + R.Ours;
  return std::nullopt;
}
} // namespace

GlobalVariable *kernelHandle(ModuleState &S, size_t FunctionIndex) {
  std::string Name = KernelHandlePrefix + S.PTX.Functions[FunctionIndex]->Name;
  if (GlobalVariable *G = S.M.getNamedGlobal(Name))
    return G;
  auto *Ty = ArrayType::get(Type::getInt8Ty(S.Ctx), KernelHandleBytes);
  auto *G = new GlobalVariable(S.M, Ty, /*isConstant=*/false, GlobalValue::ExternalLinkage,
                               ConstantAggregateZero::get(Ty), Name, nullptr,
                               GlobalValue::NotThreadLocal, ASGlobal);
  G->setAlignment(Align(8));
  // Found by name by the loader, which fills it.
  G->setVisibility(GlobalValue::ProtectedVisibility);
  return G;
}

/// CUDA's device-side library functions that nvcc declares `.extern` (device printf, the assert
/// handler, the device heap's malloc and free, graphs' cudaGraphSetConditional) are provided by the
/// project's device library under its own names; any other function keeps its name.
static std::string deviceLibraryName(const ir::Function &F, FunctionType *FT) {
  if (F.isDefinition())
    return F.Name;
  LLVMContext &C = FT->getContext();
  auto *I32 = Type::getInt32Ty(C), *I64 = Type::getInt64Ty(C);
  if (F.Name == "vprintf" && FT == FunctionType::get(I32, {I64, I64}, false))
    return "__ptx2amd_vprintf";
  if (F.Name == "__assertfail" &&
      FT == FunctionType::get(Type::getVoidTy(C), {I64, I64, I32, I64, I64}, false))
    return "__ptx2amd_assertfail";
  if (F.Name == "malloc" && FT == FunctionType::get(I64, {I64}, false))
    return "__ptx2amd_malloc";
  if (F.Name == "free" && FT == FunctionType::get(Type::getVoidTy(C), {I64}, false))
    return "__ptx2amd_free";
  if (F.Name == "__cuda_syscall_aligned_malloc" && FT == FunctionType::get(I64, {I64, I64}, false))
    return "__ptx2amd_aligned_malloc";
  if (F.Name == "cudaGraphSetConditional" &&
      FT == FunctionType::get(Type::getVoidTy(C), {I64, I32}, false))
    return "__ptx2amd_graph_set_conditional";
  if (std::optional<std::string> Ours = deviceRuntimeName(F.Name, FT))
    return *Ours;
  return F.Name;
}

void declareFunctions(ModuleState &S) {
  for (auto &FP : S.PTX.Functions) {
    ir::Function &F = *FP;
    FunctionStatus St;
    St.Name = F.Name;
    St.IsKernel = F.IsKernel;
    S.Status.push_back(St);
    S.Functions.push_back(nullptr);
    FunctionType *FT;
    if (F.IsKernel) {
      // Kernel parameters are kernarg memory at CUDA's offsets: each one a byref argument with
      // the parameter's alignment, so LLVM lays out the kernarg segment as CUDA's param buffer.
      SmallVector<llvm::Type *, 8> Params(F.Params.size(), PointerType::get(S.Ctx, ASConst));
      FT = FunctionType::get(Type::getVoidTy(S.Ctx), Params, false);
    } else {
      FT = deviceFunctionType(S.Ctx, F.Returns, F.Params);
    }
    auto Link = F.IsKernel || F.Link != ir::Linkage::Internal ? GlobalValue::ExternalLinkage
                                                              : GlobalValue::InternalLinkage;
    std::string Name = deviceLibraryName(F, FT);
    // Several CUDA names may be one function of the device library (the _ptsz forms).
    llvm::Function *Existing = F.isDefinition() ? nullptr : S.M.getFunction(Name);
    if (Existing && Existing->isDeclaration() && Existing->getFunctionType() == FT) {
      S.Functions.back() = Existing;
      continue;
    }
    auto *LF = llvm::Function::Create(FT, Link, Name, S.M);
    if (F.IsKernel) {
      LF->setCallingConv(CallingConv::AMDGPU_KERNEL);
      for (size_t K = 0; K < F.Params.size(); ++K) {
        const ir::Variable &P = F.Params[K];
        llvm::Type *T = paramType(S.Ctx, P);
        LF->addParamAttr(K, Attribute::getWithByRefType(S.Ctx, T));
        LF->addParamAttr(K, Attribute::getWithAlignment(S.Ctx, Align(variableAlign(P))));
        LF->getArg(K)->setName(P.Name);
      }
      unsigned MaxThreads = 1024;
      auto Product = [](const SmallVector<uint32_t, 3> &D) {
        unsigned N = 1;
        for (uint32_t X : D)
          N *= std::max(1u, X);
        return N;
      };
      if (!F.ReqNTid.empty())
        MaxThreads = Product(F.ReqNTid);
      else if (!F.MaxNTid.empty())
        MaxThreads = Product(F.MaxNTid);
      LF->addFnAttr("amdgpu-flat-work-group-size", fmt::format("1,{}", MaxThreads));
    } else {
      for (size_t K = 0; K < F.Params.size(); ++K)
        LF->getArg(K)->setName(F.Params[K].Name);
    }
    S.Functions.back() = LF;
  }
}

} // namespace ptx2amd::lowering
