// Textures and surfaces: tex, tld4, txq, istypep, suld, sust, sured, suq.
//
// A texture or surface handle (a cudaTextureObject_t / cudaSurfaceObject_t, or a .texref /
// .surfref kernel parameter holding one) is the global address of an ImageObject
// (amdgpu-backend/ImageDescriptors.h): the kernel loads its T# (or V#) and S# and calls
// llvm.amdgcn.image.* with them. What the hardware cannot do from the descriptors alone is done
// here in code:
//   - tex without .level/.grad samples level 0 (a compute kernel has no derivatives);
//   - unnormalized coordinates where FORCE_UNNORMALIZED does not apply (the object's
//     ImageNormalizeInCode flag): the coordinates are divided by the extents first;
//   - cube maps: the direction becomes face coordinates with v_cube{id,sc,tc,ma} (the image
//     unit expects face coordinates in [1, 2] and the face, + 8 x layer for cube arrays);
//   - integer coordinates read texels (image_load), or elements of linear memory through the
//     V# (a formatted buffer load) when the object is a buffer;
//   - surfaces address x in bytes: divided by the texel size; their T# reads raw unsigned
//     channels, which the .b forms repack into the instruction's elements; .trap and .clamp
//     compare with the object's extents (.zero is what the hardware does out of range).
// What the image unit cannot do at all goes to the device library's software path
// (device-lib/ptx2amd-texture.c: memory reads and filtering in code from the object's plain
// fields): every access on targets without image instructions (gfx942, gfx950), tex.level,
// tex.grad and tld4 where the image unit samples at the implicit level only (gfx90a), and, by a
// branch on the object's ImageSoftware flag, objects the image unit cannot take.
#include "FunctionLowerer.h"

#include "ptx2amd/amdgpu-backend/ImageDescriptors.h"

#include <fmt/format.h>
#include <llvm/IR/MDBuilder.h>

namespace ptx2amd::lowering {

using namespace llvm;
using ir::Mod;
using ir::Opcode;
namespace img = amdgpu;

namespace {

/// PTX geometries, and how the LLVM image intrinsics name them.
enum class Geometry { D1, D2, D3, A1D, A2D, Cube, ACube };

struct GeometryInfo {
  Geometry G;
  Mod M;
  const char *Dim;    ///< LLVM's dimension name
  unsigned Spatial;   ///< coordinates that address within a layer (cube: the direction)
  unsigned PtxCoords; ///< elements of the PTX coordinate vector
  bool Layered;
};

constexpr GeometryInfo Geometries[] = {
    {Geometry::D1, Mod::D1, "1d", 1, 1, false},
    {Geometry::D2, Mod::D2, "2d", 2, 2, false},
    {Geometry::D3, Mod::D3, "3d", 3, 4, false},
    {Geometry::A1D, Mod::A1d, "1darray", 1, 2, true},
    {Geometry::A2D, Mod::A2d, "2darray", 2, 4, true},
    {Geometry::Cube, Mod::Cube, "cube", 3, 4, false},
    {Geometry::ACube, Mod::Acube, "cube", 3, 4, true},
};

} // namespace

/// The geometry modifier of a texture or surface instruction.
static const GeometryInfo *geometryOf(const ir::Instruction &I) {
  for (const GeometryInfo &G : Geometries)
    if (I.has(G.M))
      return &G;
  return nullptr;
}

/// Loads of one ImageObject, all invariant: objects do not change while a kernel runs.
struct ImageObjectLoads {
  FunctionLowerer &L;
  Value *Object; ///< ptr addrspace(1)
  Value *field(unsigned Offset, llvm::Type *T, unsigned Align = 4) {
    IRBuilder<> &B = L.B;
    Value *P = B.CreateConstInBoundsGEP1_32(B.getInt8Ty(), Object, Offset);
    LoadInst *Ld = B.CreateAlignedLoad(T, P, llvm::Align(Align));
    Ld->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(L.S.Ctx, {}));
    return Ld;
  }
  Value *u32(unsigned Offset) { return field(Offset, L.B.getInt32Ty()); }
  Value *resource() {
    return field(img::ImageObjectResource, FixedVectorType::get(L.B.getInt32Ty(), 8), 32);
  }
  Value *bufferResource() {
    return field(img::ImageObjectResource, FixedVectorType::get(L.B.getInt32Ty(), 4), 16);
  }
  Value *sampler() {
    return field(img::ImageObjectSampler, FixedVectorType::get(L.B.getInt32Ty(), 4), 16);
  }
  Value *flag(uint32_t Bit) {
    return L.B.CreateICmpNE(L.B.CreateAnd(u32(img::ImageObjectFlagsOffset), Bit), L.B.getInt32(0));
  }
};

/// What the target's image unit can do (Target.h); a target outside the table is taken to
/// have a full image unit.
struct ImageUnit {
  bool Instructions = true, ExplicitLod = true;
  explicit ImageUnit(const FunctionLowerer &L) {
    if (const img::Target *T = img::findTarget(L.S.Target.Name))
      Instructions = T->hasImageInstructions(), ExplicitLod = T->hasExplicitLodSampling();
  }
};

/// A call of the device library's software texture path (ptx2amd-texture.c).
static Value *softwareCall(FunctionLowerer &L, StringRef Name, llvm::Type *Result,
                           ArrayRef<Value *> Args) {
  SmallVector<llvm::Type *, 12> Params;
  for (Value *A : Args)
    Params.push_back(A->getType());
  FunctionCallee F = L.S.M.getOrInsertFunction(Name, FunctionType::get(Result, Params, false));
  return L.B.CreateCall(F, Args);
}

/// \p IfSet where the object's \p Flag is set and \p IfClear where not, in blocks \p Names
/// (set, clear, join); the value they return joined by a phi, or null when they return null.
/// Every operand they use is computed before the branch.
static Value *branchOnFlag(FunctionLowerer &L, ImageObjectLoads &O, uint32_t Flag,
                           std::array<StringRef, 3> Names, function_ref<Value *()> IfSet,
                           function_ref<Value *()> IfClear) {
  IRBuilder<> &B = L.B;
  BasicBlock *Set = BasicBlock::Create(L.S.Ctx, Names[0], &L.LF);
  BasicBlock *Clear = BasicBlock::Create(L.S.Ctx, Names[1], &L.LF);
  BasicBlock *Join = BasicBlock::Create(L.S.Ctx, Names[2], &L.LF);
  B.CreateCondBr(O.flag(Flag), Set, Clear);
  B.SetInsertPoint(Set);
  Value *FromSet = IfSet();
  BasicBlock *SetEnd = B.GetInsertBlock();
  B.CreateBr(Join);
  B.SetInsertPoint(Clear);
  Value *FromClear = IfClear();
  BasicBlock *ClearEnd = B.GetInsertBlock();
  B.CreateBr(Join);
  B.SetInsertPoint(Join);
  if (!FromSet)
    return nullptr;
  PHINode *P = B.CreatePHI(FromSet->getType(), 2);
  P->addIncoming(FromSet, SetEnd);
  P->addIncoming(FromClear, ClearEnd);
  return P;
}

/// The image instruction (\p Hardware) or the software path (\p Software): the software path
/// alone where the target's image unit cannot do the access (\p HardwareCan false), otherwise
/// chosen at run time by the object's ImageSoftware flag.
static Value *imagePaths(FunctionLowerer &L, ImageObjectLoads &O, bool HardwareCan,
                         function_ref<Value *()> Software, function_ref<Value *()> Hardware) {
  if (!HardwareCan)
    return Software();
  return branchOnFlag(L, O, img::ImageSoftware, {"image.software", "image.hardware", "image.join"},
                      Software, Hardware);
}

static_assert(unsigned(Geometry::ACube) == img::SoftwareGeometryCubeArray &&
                  unsigned(Geometry::A2D) == img::SoftwareGeometryArray2D &&
                  unsigned(Geometry::D3) == img::SoftwareGeometry3D,
              "the software path numbers geometries as Geometry does");

Value *FunctionLowerer::imageObject(const Operand &A) {
  if (A.K != Operand::Address)
    fail("a texture or surface operand is an address: [handle, ...]");
  Value *Handle = nullptr;
  if (A.hasValueBase()) {
    Handle = convert(value(A.V), B.getInt64Ty());
  } else if (A.hasSymbolBase() && A.Sym.K == ir::SymbolRef::Param) {
    // A .texref/.surfref kernel parameter holds the object's address.
    Handle = B.CreateAlignedLoad(B.getInt64Ty(), symbolPointer(A.Sym), Align(8));
  } else if (A.hasSymbolBase() && A.Sym.K == ir::SymbolRef::Global) {
    fail("module-scope texture and surface references (removed in CUDA 12) are not supported; "
         "texture and surface objects are");
  } else {
    fail("unsupported texture or surface handle");
  }
  if (A.Offset)
    Handle = B.CreateAdd(Handle, B.getInt64(A.Offset));
  return B.CreateIntToPtr(Handle, PointerType::get(S.Ctx, ASGlobal));
}

/// The coordinate vector of an address operand [handle, coords] (or [tex, sampler, coords]).
static const Operand &coordinates(FunctionLowerer &L, const Operand &A) {
  if (A.Elements.empty())
    L.fail("missing coordinates");
  if (A.Elements.size() > 1)
    L.fail("separate sampler operands (independent texture mode) are not supported");
  return A.Elements.back();
}

static std::vector<const Operand *> elementsOf(FunctionLowerer &L, const Operand &V, unsigned N) {
  std::vector<const Operand *> Out;
  if (V.K == Operand::Vector) {
    for (const Operand &E : V.Elements)
      Out.push_back(&E);
  } else {
    Out.push_back(&V);
  }
  if (Out.size() < N)
    L.fail(fmt::format("expected {} coordinates, found {}", N, Out.size()));
  return Out;
}

static Function *imageIntrinsic(FunctionLowerer &L, Intrinsic::ID ID,
                                ArrayRef<llvm::Type *> Overloads) {
  return Intrinsic::getOrInsertDeclaration(&L.S.M, ID, Overloads);
}

/// The LLVM intrinsic of an image operation in a dimension, e.g. ("sample.l", "2d").
static Intrinsic::ID imageIntrinsicId(FunctionLowerer &L, StringRef Op, StringRef Dim) {
  std::string Name = ("llvm.amdgcn.image." + Op + "." + Dim).str();
  Intrinsic::ID ID = Intrinsic::lookupIntrinsicID(Name);
  if (ID == Intrinsic::not_intrinsic)
    L.fail("no intrinsic " + Name);
  return ID;
}

/// The four results of a texture fetch into the destination vector, as the instruction's type:
/// f32 or integer bits, or f16 (.v4.f16: one half a register; .v2.f16x2: two a register, the
/// lower channel in the low half), rounded to nearest even.
static void defineTexels(FunctionLowerer &L, const Operand &D, Value *V4, ir::Type T) {
  IRBuilder<> &B = L.B;
  std::vector<const Operand *> Dst = elementsOf(L, D, 1);
  llvm::Type *I32 = B.getInt32Ty();
  if (T == ir::Type::F16x2) {
    for (unsigned K = 0; K < Dst.size() && K < 2; ++K) {
      Value *Pair = PoisonValue::get(FixedVectorType::get(B.getHalfTy(), 2));
      for (unsigned H = 0; H < 2; ++H)
        Pair = B.CreateInsertElement(
            Pair, B.CreateFPTrunc(B.CreateExtractElement(V4, 2 * K + H), B.getHalfTy()), H);
      L.def(*Dst[K], B.CreateBitCast(Pair, I32));
    }
    return;
  }
  for (unsigned K = 0; K < Dst.size() && K < 4; ++K) {
    Value *E = B.CreateExtractElement(V4, K);
    if (T == ir::Type::F16)
      E = B.CreateFPTrunc(E, B.getHalfTy());
    else if (!isFloat(T))
      E = B.CreateBitCast(E, I32);
    L.def(*Dst[K], E);
  }
}

void FunctionLowerer::texture(const ir::Instruction &I) {
  const GeometryInfo *G = geometryOf(I);
  if (!G) // multisample textures (2dms, a2dms)
    unsupported();
  if (I.Types.size() != 2)
    fail("tex/tld4 take a result and a coordinate type");
  ir::Type ResultT = I.Types[0], CoordT = I.Types[1];
  if (ResultT != ir::Type::F32 && ResultT != ir::Type::S32 && ResultT != ir::Type::U32 &&
      ResultT != ir::Type::F16 && ResultT != ir::Type::F16x2)
    fail("texture results are .f32, .s32, .u32, .f16 or .f16x2");
  if (I.Operands.size() < 2)
    fail("missing operands");
  bool Gather = I.Op == Opcode::Tld4;
  bool Level = I.has(Mod::Level), Grad = I.has(Mod::Grad);
  if (Gather && (Grad || Level))
    fail("tld4 with .level or .grad does not exist");
  size_t Extra = 2 + (Level ? 1 : 0) + (Grad ? 2 : 0);
  if (I.Operands.size() > Extra + 1)
    fail("texture depth comparison is not supported (CUDA makes no depth textures)");
  bool IsCube = G->G == Geometry::Cube || G->G == Geometry::ACube;
  // Texel offsets (the operand after the coordinates, level and gradients), one per spatial
  // coordinate; the software path adds them to every tap index.
  SmallVector<Value *, 3> Offsets;
  if (I.Operands.size() > Extra) {
    if (IsCube)
      fail("cube textures take no texel offsets");
    std::vector<const Operand *> E = elementsOf(*this, I.Operands[Extra], G->Spatial);
    for (unsigned K = 0; K < G->Spatial; ++K)
      Offsets.push_back(get(*E[K], ir::Type::S32));
  }
  auto OffsetOr0 = [&](unsigned K) { return K < Offsets.size() ? Offsets[K] : B.getInt32(0); };
  if (CoordT == ir::Type::S32 && (Gather || Grad || IsCube))
    fail("integer coordinates with this texture form are not supported");
  if (CoordT != ir::Type::S32 && CoordT != ir::Type::F32)
    fail("texture coordinates other than .f32/.s32 are not supported");
  unsigned GatherComponent = 0;
  if (Gather) {
    static constexpr Mod Components[] = {Mod::R, Mod::G, Mod::B, Mod::A};
    unsigned Found = 0;
    for (unsigned K = 0; K < 4; ++K)
      if (I.has(Components[K]))
        GatherComponent = K, ++Found;
    if (!Found)
      fail("tld4 needs a component (.r, .g, .b or .a)");
  }
  ImageObjectLoads O{*this, imageObject(I.Operands[1])};
  std::vector<const Operand *> C =
      elementsOf(*this, coordinates(*this, I.Operands[1]), G->PtxCoords);
  // PTX puts the layer first: {layer, x, y, z}.
  unsigned First = G->Layered ? 1 : 0;
  llvm::Type *F32 = B.getFloatTy(), *I32 = B.getInt32Ty();
  auto *V4F = FixedVectorType::get(F32, 4), *V4I = FixedVectorType::get(I32, 4);
  auto *Rsrc = FixedVectorType::get(I32, 8), *Samp = FixedVectorType::get(I32, 4);
  Value *Layer = G->Layered ? get(*C[0], ir::Type::S32) : nullptr;
  Value *Geom = B.getInt32(unsigned(G->G));
  // The image unit has everything but explicit-level sampling and gathers on CDNA; offsets on
  // float coordinates take the software path.
  ImageUnit Unit(*this);
  bool HardwareCan = Unit.Instructions && (Unit.ExplicitLod || (!Level && !Grad && !Gather)) &&
                     (Offsets.empty() || CoordT == ir::Type::S32);
  auto Texels = [&](Value *FromSoftware) { return B.CreateBitCast(FromSoftware, V4F); };

  if (CoordT == ir::Type::S32) {
    SmallVector<Value *, 4> Coords;
    for (unsigned K = 0; K < G->Spatial; ++K) // offsets move integer coordinates alike
      Coords.push_back(K < Offsets.size()
                           ? B.CreateAdd(get(*C[First + K], ir::Type::S32), Offsets[K])
                           : get(*C[First + K], ir::Type::S32));
    Value *Mip = Level ? B.CreateFPToSI(get(I.Operands[2], ir::Type::F32), I32) : nullptr;
    auto Software = [&]() -> Value * {
      Value *Z = B.getInt32(0);
      return Texels(
          softwareCall(*this, "__ptx2amd_tex_fetch", V4I,
                       {O.Object, Geom, Coords[0], G->Spatial > 1 ? Coords[1] : Z,
                        G->Spatial > 2 ? Coords[2] : Z, Layer ? Layer : Z, Mip ? Mip : Z}));
    };
    auto Hardware = [&]() -> Value * {
      SmallVector<Value *, 4> HwCoords(Coords);
      if (Layer)
        HwCoords.push_back(Layer);
      auto ImageLoad = [&]() {
        Intrinsic::ID ID = imageIntrinsicId(*this, Mip ? "load.mip" : "load", G->Dim);
        SmallVector<Value *, 8> Args{B.getInt32(15)};
        Args.append(HwCoords.begin(), HwCoords.end());
        if (Mip)
          Args.push_back(Mip);
        Args.append({O.resource(), B.getInt32(0), B.getInt32(0)});
        return B.CreateCall(imageIntrinsic(*this, ID, {V4F, I32, Rsrc}), Args);
      };
      if (G->G != Geometry::D1)
        return ImageLoad();
      // tex1Dfetch on linear memory: a formatted load of element x through the V#.
      auto BufferLoad = [&]() -> Value * {
        return B.CreateCall(
            imageIntrinsic(*this, Intrinsic::amdgcn_struct_buffer_load_format, {V4F}),
            {O.bufferResource(), Coords[0], B.getInt32(0), B.getInt32(0), B.getInt32(0)});
      };
      return branchOnFlag(*this, O, img::ImageIsBuffer, {"tex.buffer", "tex.image", "tex.join"},
                          BufferLoad, ImageLoad);
    };
    defineTexels(*this, I.Operands[0], imagePaths(*this, O, HardwareCan, Software, Hardware),
                 ResultT);
    return;
  }

  SmallVector<Value *, 4> Coords;
  for (unsigned K = 0; K < G->Spatial; ++K)
    Coords.push_back(get(*C[First + K], ir::Type::F32));
  Value *Lod = Level ? get(I.Operands[2], ir::Type::F32) : nullptr;
  SmallVector<Value *, 6> Derivs; // d/dx components, then d/dy
  if (Grad) {
    std::vector<const Operand *> Dx = elementsOf(*this, I.Operands[2 + Level], 1);
    std::vector<const Operand *> Dy = elementsOf(*this, I.Operands[3 + Level], 1);
    unsigned N = IsCube ? 2 : G->Spatial;
    if (Dx.size() < N || Dy.size() < N)
      fail("missing gradient components");
    for (unsigned K = 0; K < N; ++K)
      Derivs.push_back(get(*Dx[K], ir::Type::F32));
    for (unsigned K = 0; K < N; ++K)
      Derivs.push_back(get(*Dy[K], ir::Type::F32));
  }

  auto Software = [&]() -> Value * {
    Value *Zf = ConstantFP::get(F32, 0.0);
    SmallVector<Value *, 12> Args{O.Object, Geom};
    for (unsigned K = 0; K < 3; ++K)
      Args.push_back(K < Coords.size() ? Coords[K] : Zf);
    Args.push_back(Layer ? Layer : B.getInt32(0));
    if (Gather) {
      Args.append({B.getInt32(GatherComponent), OffsetOr0(0), OffsetOr0(1)});
      return Texels(softwareCall(*this, "__ptx2amd_tex_gather", V4I, Args));
    }
    if (Grad) {
      unsigned N = Derivs.size() / 2;
      for (unsigned D = 0; D < 2; ++D)
        for (unsigned K = 0; K < 3; ++K)
          Args.push_back(K < N ? Derivs[D * N + K] : Zf);
    } else {
      Args.push_back(Lod ? Lod : Zf); // tex without .level samples level 0
    }
    Args.append({OffsetOr0(0), OffsetOr0(1), OffsetOr0(2)});
    return Texels(
        softwareCall(*this, Grad ? "__ptx2amd_tex_grad" : "__ptx2amd_tex_level", V4I, Args));
  };

  auto Hardware = [&]() -> Value * {
    SmallVector<Value *, 4> HwCoords(Coords);
    SmallVector<Value *, 6> HwDerivs(Derivs);
    if (IsCube) {
      // Direction -> face coordinates in [1, 2] and the face (+ 8 x layer), as AMD's image
      // unit expects.
      Value *X = Coords[0], *Y = Coords[1], *Z = Coords[2];
      Value *Id = intrinsic(Intrinsic::amdgcn_cubeid, {}, {X, Y, Z});
      Value *Sc = intrinsic(Intrinsic::amdgcn_cubesc, {}, {X, Y, Z});
      Value *Tc = intrinsic(Intrinsic::amdgcn_cubetc, {}, {X, Y, Z});
      Value *Ma = intrinsic(Intrinsic::amdgcn_cubema, {}, {X, Y, Z});
      Value *Inv =
          B.CreateFDiv(ConstantFP::get(F32, 1.0), B.CreateUnaryIntrinsic(Intrinsic::fabs, Ma));
      Value *Half3 = ConstantFP::get(F32, 1.5);
      HwCoords = {B.CreateFAdd(B.CreateFMul(Sc, Inv), Half3),
                  B.CreateFAdd(B.CreateFMul(Tc, Inv), Half3), Id};
      if (Layer)
        HwCoords[2] =
            B.CreateFAdd(B.CreateFMul(B.CreateSIToFP(Layer, F32), ConstantFP::get(F32, 8)), Id);
    } else {
      // Unnormalized coordinates the sampler cannot take: normalize them here.
      Value *InCode = O.flag(img::ImageNormalizeInCode);
      static constexpr unsigned Extents[] = {img::ImageObjectWidth, img::ImageObjectHeight,
                                             img::ImageObjectDepth};
      for (unsigned K = 0; K < G->Spatial; ++K) {
        Value *Ext = B.CreateUIToFP(O.u32(Extents[K]), F32);
        HwCoords[K] = B.CreateSelect(InCode, B.CreateFDiv(HwCoords[K], Ext), HwCoords[K]);
        if (Grad) {
          unsigned N = HwDerivs.size() / 2;
          for (unsigned D : {K, N + K})
            HwDerivs[D] = B.CreateSelect(InCode, B.CreateFDiv(HwDerivs[D], Ext), HwDerivs[D]);
        }
      }
      if (Layer)
        HwCoords.push_back(B.CreateSIToFP(Layer, F32));
    }
    // CDNA's image unit samples at the implicit level only: there a plain tex is image_sample,
    // the same as level 0 on single-level images.
    bool Implicit = !Unit.ExplicitLod;
    StringRef Op = Grad ? "sample.d" : Implicit ? "sample" : "sample.l";
    unsigned DMask = 15;
    if (Gather) {
      DMask = 1u << GatherComponent;
      Op = "gather4.l";
    }
    SmallVector<Value *, 12> Args{B.getInt32(DMask)};
    Args.append(HwDerivs.begin(), HwDerivs.end());
    Args.append(HwCoords.begin(), HwCoords.end());
    if (!Grad && !Implicit) // tex without .level samples level 0
      Args.push_back(Lod ? Lod : ConstantFP::get(F32, 0.0));
    Args.append({O.resource(), O.sampler(), B.getFalse(), B.getInt32(0), B.getInt32(0)});
    Intrinsic::ID ID = imageIntrinsicId(*this, Op, G->Dim);
    SmallVector<llvm::Type *, 3> Overloads{V4F};
    if (Grad)
      Overloads.push_back(F32);          // derivative type
    Overloads.append({F32, Rsrc, Samp}); // coordinate, resource and sampler types
    return B.CreateCall(imageIntrinsic(*this, ID, Overloads), Args);
  };
  defineTexels(*this, I.Operands[0], imagePaths(*this, O, HardwareCan, Software, Hardware),
               ResultT);
}

/// A txq/suq attribute of the object, computed from its plain fields.
static Value *imageQuery(FunctionLowerer &L, const ir::Instruction &I, Value *Object) {
  IRBuilder<> &B = L.B;
  ImageObjectLoads O{L, Object};
  Value *Info = nullptr;
  auto Bit = [&](unsigned Shift, unsigned Mask) {
    Info = O.u32(img::ImageObjectSamplerInfo);
    return B.CreateAnd(B.CreateLShr(Info, Shift), Mask);
  };
  if (I.has(Mod::Width))
    return O.u32(img::ImageObjectWidth);
  if (I.has(Mod::Height))
    return O.u32(img::ImageObjectHeight);
  if (I.has(Mod::Depth))
    return O.u32(img::ImageObjectDepth);
  if (I.has(Mod::ArraySize)) {
    // Layers of a layered cube map count cubes, as CUDA's extent does.
    Value *Layers = O.u32(img::ImageObjectLayers);
    return Layers;
  }
  if (I.has(Mod::NumMipmapLevels))
    return O.u32(img::ImageObjectLevels);
  if (I.has(Mod::NumSamples))
    return B.getInt32(1);
  if (I.has(Mod::NormalizedCoords))
    return Bit(1, 1);
  if (I.has(Mod::FilterMode))
    return Bit(0, 1);
  static constexpr Mod Modes[] = {Mod::AddrMode0, Mod::AddrMode1, Mod::AddrMode2};
  for (unsigned K = 0; K < 3; ++K)
    if (I.has(Modes[K]))
      return Bit(img::SamplerInfoAddressShift + 2 * K, 3);
  L.fail("this texture/surface query (channel_data_type, channel_order) is not supported yet");
}

void FunctionLowerer::textureQuery(const ir::Instruction &I) {
  if (I.Operands.size() < 2)
    fail("missing operands");
  Value *R = imageQuery(*this, I, imageObject(I.Operands[1]));
  if (I.Op == Opcode::Txq && I.has(Mod::Level)) {
    // The extent of a mip level: max(1, extent >> level).
    if (I.Operands.size() < 3)
      fail("txq.level needs a level");
    Value *Lod = get(I.Operands[2], ir::Type::U32);
    if (I.has(Mod::Width) || I.has(Mod::Height) || I.has(Mod::Depth))
      R = B.CreateBinaryIntrinsic(Intrinsic::umax, B.CreateLShr(R, Lod), B.getInt32(1));
  }
  def(I.Operands[0], R);
}

void FunctionLowerer::istypep(const ir::Instruction &I) {
  if (I.Operands.size() < 2)
    fail("missing operands");
  Value *H = get(I.Operands[1], ir::Type::U64);
  ImageObjectLoads O{*this, B.CreateIntToPtr(H, PointerType::get(S.Ctx, ASGlobal))};
  Value *Surface = O.flag(img::ImageIsSurface);
  // The kind is a type suffix (istypep.texref) or, as some writers print it, a modifier.
  auto Is = [&](ir::Type T, Mod M) { return I.has(M) || (!I.Types.empty() && I.Types[0] == T); };
  if (Is(ir::Type::SurfRef, Mod::Surfref))
    return def(I.Operands[0], Surface);
  if (Is(ir::Type::TexRef, Mod::Texref) || Is(ir::Type::SamplerRef, Mod::Samplerref))
    return def(I.Operands[0], B.CreateNot(Surface));
  fail("istypep needs .texref, .samplerref or .surfref");
}

/// Surface coordinates in texels (x arrives in bytes for the .b forms), checked or clamped per
/// the boundary mode; returns the LLVM intrinsic's coordinate list.
static SmallVector<Value *, 4> surfaceCoordinates(FunctionLowerer &L, const ir::Instruction &I,
                                                  const GeometryInfo &G, Value *Object) {
  IRBuilder<> &B = L.B;
  if (G.G == Geometry::Cube || G.G == Geometry::ACube)
    L.fail("cube surfaces are not supported");
  if (I.has(Mod::P))
    L.fail("formatted surface access (.p) is not supported yet");
  const Operand &A = I.Operands[I.Op == Opcode::Suld ? 1 : 0];
  std::vector<const Operand *> C = elementsOf(L, coordinates(L, A), G.PtxCoords);
  ImageObjectLoads O{L, Object};
  unsigned First = G.Layered ? 1 : 0;
  Value *TexelBytes = O.u32(img::ImageObjectTexelBytes);
  SmallVector<Value *, 4> Coords, Extents;
  static constexpr unsigned ExtentOf[] = {img::ImageObjectWidth, img::ImageObjectHeight,
                                          img::ImageObjectDepth};
  for (unsigned K = 0; K < G.Spatial; ++K) {
    Value *V = L.get(*C[First + K], ir::Type::S32);
    if (K == 0) // bytes to texels; texel sizes are powers of two
      V = B.CreateAShr(V, B.CreateBinaryIntrinsic(Intrinsic::cttz, TexelBytes, B.getTrue()));
    Coords.push_back(V);
    Extents.push_back(O.u32(ExtentOf[K]));
  }
  if (G.Layered) {
    Coords.push_back(L.get(*C[0], ir::Type::S32));
    Extents.push_back(O.u32(img::ImageObjectLayers));
  }
  if (I.has(Mod::Clamp)) {
    for (size_t K = 0; K < Coords.size(); ++K) {
      Value *Max = B.CreateSub(Extents[K], B.getInt32(1));
      Coords[K] = B.CreateBinaryIntrinsic(
          Intrinsic::smin, B.CreateBinaryIntrinsic(Intrinsic::smax, Coords[K], B.getInt32(0)), Max);
    }
  } else if (I.has(Mod::Trap)) {
    Value *Out = B.getFalse();
    for (size_t K = 0; K < Coords.size(); ++K) // negative coordinates compare above too
      Out = B.CreateOr(Out, B.CreateICmpUGE(Coords[K], Extents[K]));
    // One trap block per function: LLVM 22 expands only one trap block of a gfx11 kernel and
    // leaves the others as SIMULATED_TRAP, which does not encode.
    BasicBlock *Trap = nullptr;
    for (BasicBlock &BB : L.LF)
      if (BB.getName() == "surface.trap")
        Trap = &BB;
    if (!Trap) {
      Trap = BasicBlock::Create(L.S.Ctx, "surface.trap", &L.LF);
      IRBuilder<> TB(Trap);
      TB.CreateCall(Intrinsic::getOrInsertDeclaration(&L.S.M, Intrinsic::trap));
      TB.CreateUnreachable();
    }
    BasicBlock *Cont = BasicBlock::Create(L.S.Ctx, "surface.in", &L.LF);
    B.CreateCondBr(Out, Trap, Cont);
    B.SetInsertPoint(Cont);
  }
  return Coords;
}

/// The instruction's elements (type, count) against the texel's raw channels: each channel's
/// low Bits bits, channel 0 lowest, make one bit string of the texel.
struct TexelBits {
  Value *Channels, *Bits, *Mask;
};

static TexelBits texelBits(FunctionLowerer &L, Value *Object) {
  ImageObjectLoads O{L, Object};
  IRBuilder<> &B = L.B;
  Value *Format = O.u32(img::ImageObjectFormat);
  Value *Channels = B.CreateAnd(Format, 0xff);
  Value *Bits = B.CreateAnd(B.CreateLShr(Format, 8), 0xff);
  Value *Mask =
      B.CreateSub(B.CreateShl(B.getInt64(1), B.CreateZExt(Bits, B.getInt64Ty())), B.getInt64(1));
  return {Channels, Bits, Mask};
}

static unsigned surfaceVectorWidth(const ir::Instruction &I) {
  return I.has(Mod::V4) ? 4 : I.has(Mod::V2) ? 2 : 1;
}

void FunctionLowerer::surface(const ir::Instruction &I) {
  const GeometryInfo *G = geometryOf(I);
  if (!G)
    fail("surface instruction without a geometry");
  if (I.Types.empty())
    fail("surface instruction without a type");
  if (!I.has(Mod::B) && !I.has(Mod::P))
    fail("surface access needs .b or .p");
  bool Load = I.Op == Opcode::Suld;
  if (I.Operands.size() < 2)
    fail("missing operands");
  Value *Object = imageObject(I.Operands[Load ? 1 : 0]);
  SmallVector<Value *, 4> Coords = surfaceCoordinates(*this, I, *G, Object);
  ImageObjectLoads O{*this, Object};
  ir::Type T = I.Types[0];
  unsigned EB = ir::typeBits(T);
  unsigned N = surfaceVectorWidth(I);
  llvm::Type *I32 = B.getInt32Ty(), *I128 = B.getIntNTy(128);
  auto *V4I = FixedVectorType::get(I32, 4), *Rsrc = FixedVectorType::get(I32, 8);
  bool HardwareCan = ImageUnit(*this).Instructions;
  // The software path's coordinates: x, y, z, layer.
  SmallVector<Value *, 8> SoftArgs{Object, B.getInt32(unsigned(G->G))};
  for (unsigned K = 0; K < 3; ++K)
    SoftArgs.push_back(K < G->Spatial ? Coords[K] : B.getInt32(0));
  SoftArgs.push_back(G->Layered ? Coords[G->Spatial] : B.getInt32(0));
  TexelBits TB = texelBits(*this, Object);
  Value *Bits128 = B.CreateZExt(TB.Bits, I128);
  Value *Mask128 = B.CreateZExt(TB.Mask, I128);
  if (Load) {
    auto Software = [&]() -> Value * {
      return softwareCall(*this, "__ptx2amd_surface_load", V4I, SoftArgs);
    };
    auto Hardware = [&]() -> Value * {
      Intrinsic::ID ID = imageIntrinsicId(*this, "load", G->Dim);
      SmallVector<Value *, 8> Args{B.getInt32(15)};
      Args.append(Coords.begin(), Coords.end());
      Args.append({O.resource(), B.getInt32(0), B.getInt32(0)});
      Value *Texel = B.CreateCall(imageIntrinsic(*this, ID, {V4I, I32, Rsrc}), Args);
      // The channels' low bits, channel 0 lowest: the texel's bytes.
      Value *Raw = ConstantInt::get(I128, 0);
      for (unsigned K = 0; K < 4; ++K) {
        Value *Ch = B.CreateAnd(B.CreateZExt(B.CreateExtractElement(Texel, K), I128), Mask128);
        Value *Shifted = B.CreateShl(Ch, B.CreateMul(Bits128, ConstantInt::get(I128, K)));
        Value *Present = B.CreateICmpULT(B.getInt32(K), TB.Channels);
        Raw = B.CreateOr(Raw, B.CreateSelect(Present, Shifted, ConstantInt::get(I128, 0)));
      }
      return B.CreateBitCast(Raw, V4I);
    };
    Value *Raw = B.CreateBitCast(imagePaths(*this, O, HardwareCan, Software, Hardware), I128);
    std::vector<const Operand *> Dst = elementsOf(*this, I.Operands[0], N);
    for (unsigned K = 0; K < N; ++K) {
      Value *E = B.CreateTrunc(B.CreateLShr(Raw, uint64_t(K) * EB), B.getIntNTy(EB));
      def(*Dst[K], E);
    }
    return;
  }
  if (I.Op == Opcode::Sust) {
    std::vector<const Operand *> Src = elementsOf(*this, I.Operands[1], N);
    Value *Raw = ConstantInt::get(I128, 0);
    for (unsigned K = 0; K < N; ++K) {
      Value *E = B.CreateZExt(get(*Src[K], T), I128);
      Raw = B.CreateOr(Raw, B.CreateShl(E, uint64_t(K) * EB));
    }
    auto Software = [&]() -> Value * {
      SmallVector<Value *, 8> Args(SoftArgs);
      Args.push_back(B.CreateBitCast(Raw, V4I));
      softwareCall(*this, "__ptx2amd_surface_store", B.getVoidTy(), Args);
      return nullptr;
    };
    auto Hardware = [&]() -> Value * {
      Value *Texel = PoisonValue::get(V4I);
      for (unsigned K = 0; K < 4; ++K) {
        Value *Ch = B.CreateAnd(B.CreateLShr(Raw, B.CreateMul(Bits128, ConstantInt::get(I128, K))),
                                Mask128);
        Texel = B.CreateInsertElement(Texel, B.CreateTrunc(Ch, I32), K);
      }
      Intrinsic::ID ID = imageIntrinsicId(*this, "store", G->Dim);
      // Stores take float data; the bits go through unchanged.
      SmallVector<Value *, 8> Args{B.CreateBitCast(Texel, FixedVectorType::get(B.getFloatTy(), 4)),
                                   B.getInt32(15)};
      Args.append(Coords.begin(), Coords.end());
      Args.append({O.resource(), B.getInt32(0), B.getInt32(0)});
      B.CreateCall(imageIntrinsic(*this, ID, {FixedVectorType::get(B.getFloatTy(), 4), I32, Rsrc}),
                   Args);
      return nullptr;
    };
    imagePaths(*this, O, HardwareCan, Software, Hardware);
    return;
  }
  // sured: one 32-bit atomic on the texel (64-bit ones in the software path).
  if (EB != 32 && EB != 64)
    fail("surface reductions are 32- or 64-bit");
  const char *Op = nullptr;
  img::SoftwareSurfaceAtomic SoftOp;
  bool Signed = T == ir::Type::S32 || T == ir::Type::S64;
  if (I.has(Mod::Add))
    Op = "atomic.add", SoftOp = img::SurfaceAtomicAdd;
  else if (I.has(Mod::Min))
    Op = Signed ? "atomic.smin" : "atomic.umin",
    SoftOp = Signed ? img::SurfaceAtomicMinS : img::SurfaceAtomicMinU;
  else if (I.has(Mod::Max))
    Op = Signed ? "atomic.smax" : "atomic.umax",
    SoftOp = Signed ? img::SurfaceAtomicMaxS : img::SurfaceAtomicMaxU;
  else if (I.has(Mod::And))
    Op = "atomic.and", SoftOp = img::SurfaceAtomicAnd;
  else if (I.has(Mod::Or))
    Op = "atomic.or", SoftOp = img::SurfaceAtomicOr;
  else
    fail("unsupported surface reduction");
  Value *Operand = get(I.Operands[1], T);
  auto Software = [&]() -> Value * {
    SmallVector<Value *, 8> Args(SoftArgs);
    Args.append({B.getInt32(SoftOp), Operand});
    softwareCall(*this, EB == 64 ? "__ptx2amd_surface_atomic64" : "__ptx2amd_surface_atomic",
                 B.getVoidTy(), Args);
    return nullptr;
  };
  auto Hardware = [&]() -> Value * {
    Intrinsic::ID ID = imageIntrinsicId(*this, Op, G->Dim);
    SmallVector<Value *, 8> Args{Operand};
    Args.append(Coords.begin(), Coords.end());
    Args.append({O.resource(), B.getInt32(0), B.getInt32(0)});
    B.CreateCall(imageIntrinsic(*this, ID, {I32, I32, Rsrc}), Args);
    return nullptr;
  };
  imagePaths(*this, O, HardwareCan && EB == 32, Software, Hardware);
}

void FunctionLowerer::surfaceQuery(const ir::Instruction &I) {
  if (I.Operands.size() < 2)
    fail("missing operands");
  def(I.Operands[0], imageQuery(*this, I, imageObject(I.Operands[1])));
}

} // namespace ptx2amd::lowering
