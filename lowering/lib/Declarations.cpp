// Passes 1 and 2: module globals and function signatures.
#include "LoweringContext.h"

#include <fmt/format.h>

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

void declareGlobals(ModuleState &S) {
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
}

namespace {

llvm::Type *paramType(LLVMContext &C, const ir::Variable &P) {
  if (!P.Dims.empty() || P.VecWidth)
    return ArrayType::get(Type::getInt8Ty(C), variableSize(P));
  return storageType(C, P.Ty);
}

} // namespace

void declareFunctions(ModuleState &S) {
  for (auto &FP : S.PTX.Functions) {
    ir::Function &F = *FP;
    FunctionStatus St;
    St.Name = F.Name;
    St.IsKernel = F.IsKernel;
    S.Status.push_back(St);
    S.Functions.push_back(nullptr);
    SmallVector<llvm::Type *, 8> Params;
    if (F.IsKernel) {
      // Kernel parameters are kernarg memory at CUDA's offsets: each one a byref argument with
      // the parameter's alignment, so LLVM lays out the kernarg segment as CUDA's param buffer.
      for (size_t K = 0; K < F.Params.size(); ++K)
        Params.push_back(PointerType::get(S.Ctx, ASConst));
    } else {
      for (const ir::Variable &P : F.Params)
        Params.push_back(paramType(S.Ctx, P));
    }
    llvm::Type *Ret = Type::getVoidTy(S.Ctx);
    if (F.Returns.size() == 1) {
      Ret = paramType(S.Ctx, F.Returns[0]);
    } else if (F.Returns.size() > 1) {
      SmallVector<llvm::Type *, 4> Fields;
      for (const ir::Variable &R : F.Returns)
        Fields.push_back(paramType(S.Ctx, R));
      Ret = StructType::get(S.Ctx, Fields);
    }
    auto *FT = FunctionType::get(Ret, Params, false);
    auto Link = F.IsKernel || F.Link != ir::Linkage::Internal ? GlobalValue::ExternalLinkage
                                                              : GlobalValue::InternalLinkage;
    auto *LF = llvm::Function::Create(FT, Link, F.Name, S.M);
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
