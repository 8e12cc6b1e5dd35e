// Texture and surface descriptors: build -> decode round trips of T#, V# and S# on every target,
// the linear layout of CUDA arrays, known field values per generation, and errors for what a
// target cannot hold.
#include "ptx2amd/amdgpu-backend/ImageDescriptors.h"

#include <catch2/catch.hpp>

#include <string>

using namespace ptx2amd::amdgpu;

namespace {

std::string errorText(llvm::Error E) { return llvm::toString(std::move(E)); }

void checkSameResource(const ImageResource &A, const ImageResource &B) {
  CHECK(A.Address == B.Address);
  CHECK(int(A.Shape) == int(B.Shape));
  CHECK(A.Format.Channels == B.Format.Channels);
  CHECK(A.Format.Bits == B.Format.Bits);
  CHECK(int(A.Format.Type) == int(B.Format.Type));
  CHECK(A.Format.Normalized == B.Format.Normalized);
  CHECK(A.Width == B.Width);
  if (A.Shape != ImageShape::Buffer) {
    CHECK(A.Height == B.Height);
    CHECK(A.Depth == B.Depth);
    CHECK(A.Layers == B.Layers);
    CHECK(A.MipLevels == B.MipLevels);
    CHECK(A.RowPitch == B.RowPitch);
    CHECK(A.BaseLevel == B.BaseLevel);
    CHECK(A.LastLevel == B.LastLevel);
    CHECK(A.FirstLayer == B.FirstLayer);
  }
}

ImageResource image(ImageShape S, uint32_t W, uint32_t H, uint32_t D, uint32_t L,
                    TexelFormat F = {}) {
  ImageResource I;
  I.Address = 0x7f1234567800; // 256-byte aligned, above 4 GiB: both base dwords matter
  I.Shape = S;
  I.Format = F;
  I.Width = W;
  I.Height = H;
  I.Depth = D;
  I.Layers = L;
  return I;
}

const TexelFormat Formats[] = {
    {1, 8, ChannelType::Unsigned, false}, {1, 8, ChannelType::Unsigned, true},
    {1, 8, ChannelType::Signed, true},    {2, 8, ChannelType::Signed, false},
    {4, 8, ChannelType::Unsigned, true},  {4, 8, ChannelType::Unsigned, false},
    {1, 16, ChannelType::Float, false},   {2, 16, ChannelType::Unsigned, true},
    {4, 16, ChannelType::Signed, true},   {4, 16, ChannelType::Float, false},
    {1, 32, ChannelType::Float, false},   {1, 32, ChannelType::Signed, false},
    {2, 32, ChannelType::Float, false},   {2, 32, ChannelType::Unsigned, false},
    {4, 32, ChannelType::Float, false},   {4, 32, ChannelType::Signed, false},
};

} // namespace

TEST_CASE("image resources round-trip through T# and V# on every target", "[amdgpu][image]") {
  for (const Target &T : allTargets()) {
    INFO(T.Name);
    std::vector<ImageResource> Cases = {
        image(ImageShape::D1, 300, 1, 1, 1),         image(ImageShape::D2, 640, 480, 1, 1),
        image(ImageShape::D3, 64, 32, 17, 1),        image(ImageShape::Array1D, 100, 1, 1, 9),
        image(ImageShape::Array2D, 33, 65, 1, 5),    image(ImageShape::Cube, 64, 64, 1, 6),
        image(ImageShape::CubeArray, 16, 16, 1, 18), image(ImageShape::Buffer, 1000000, 1, 1, 1),
    };
    // Mipmapped with a view of some levels, a view of some layers, a chosen pitch.
    ImageResource Mip = image(ImageShape::D2, 256, 128, 1, 1);
    Mip.MipLevels = 9;
    Mip.BaseLevel = 2;
    Mip.LastLevel = 6;
    Cases.push_back(Mip);
    ImageResource Layered = image(ImageShape::Array2D, 8, 8, 1, 12);
    Layered.FirstLayer = 3;
    Cases.push_back(Layered);
    ImageResource Pitched = image(ImageShape::D2, 100, 50, 1, 1);
    Pitched.RowPitch = 4096; // above every format's natural pitch of 100 texels
    Cases.push_back(Pitched);
    ImageResource Unaligned = image(ImageShape::Buffer, 77, 1, 1, 1);
    Unaligned.Address = 0x7f0000000004;
    Cases.push_back(Unaligned);
    for (const TexelFormat &F : Formats)
      for (ImageResource I : Cases) {
        INFO("shape " << int(I.Shape) << " format " << int(F.Channels) << "x" << int(F.Bits)
                      << " type " << int(F.Type) << " norm " << F.Normalized);
        I.Format = F;
        auto O = buildTextureObject(T, I, SamplerState{});
        REQUIRE(bool(O));
        CHECK(bool(O->Flags & ImageIsBuffer) == (I.Shape == ImageShape::Buffer));
        CHECK(!(O->Flags & ImageIsSurface));
        CHECK(O->TexelBytes == F.bytes());
        TexelFormat P = unpackTexelFormat(O->Format);
        CHECK((P.Channels == F.Channels && P.Bits == F.Bits && P.Type == F.Type &&
               P.Normalized == F.Normalized));
        // Without image instructions, images take the software path and have no T#.
        bool Software = !T.hasImageInstructions() && I.Shape != ImageShape::Buffer;
        CHECK(bool(O->Flags & ImageSoftware) == Software);
        auto S = buildSurfaceObject(T, I);
        REQUIRE(bool(S));
        CHECK(S->Flags & ImageIsSurface);
        if (Software)
          continue;
        checkSameResource(I, decodeResource(T, O->Resource));
        // Surfaces move bits: their descriptors read unsigned integers of the same width.
        ImageResource D = decodeResource(T, S->Resource);
        CHECK(D.Format.Channels == F.Channels);
        CHECK(D.Format.Bits == F.Bits);
        CHECK(D.Format.Type == ChannelType::Unsigned);
        CHECK(!D.Format.Normalized);
      }
  }
}

TEST_CASE("objects carry the software path's view: first level and layer, pitch, sampler",
          "[amdgpu][image]") {
  for (const Target &T : allTargets()) {
    INFO(T.Name);
    // Levels 2..6 of a 256 x 128 x 4-layer float4 array, from layer 1.
    ImageResource I = image(ImageShape::Array2D, 256, 128, 1, 4, {4, 32, ChannelType::Float});
    I.MipLevels = 8;
    I.BaseLevel = 2;
    I.LastLevel = 6;
    I.FirstLayer = 1;
    SamplerState S;
    S.NormalizedCoords = true;
    S.MipFilter = FilterMode::Linear;
    S.MinLod = 0.5f;
    S.MaxLod = 3.25f;
    S.MipLodBias = -0.75f;
    auto O = buildTextureObject(T, I, S);
    REQUIRE(bool(O));
    auto L = layoutImage(T, I);
    REQUIRE(bool(L));
    uint64_t Base = I.Address + L->Levels[2].Offset;
    CHECK(O->AddressLo == uint32_t(Base));
    CHECK(O->AddressHi == uint32_t(Base >> 32));
    CHECK(O->RowPitch == L->Levels[2].RowPitch);
    CHECK(O->FirstLayer == 1);
    CHECK(O->Width == 64);
    CHECK(O->Layers == 3);
    CHECK(O->Levels == 5);
    CHECK(O->MinLod == 0.5f);
    CHECK(O->MaxLod == 3.25f);
    CHECK(O->LodBias == -0.75f);
    CHECK(O->SamplerInfo & SamplerInfoMipLinear);
    CHECK(bool(O->Flags & ImageSoftware) == !T.hasImageInstructions());
  }
}

TEST_CASE("what the image unit cannot take goes to the software path", "[amdgpu][image]") {
  for (const Target &T : allTargets()) {
    INFO(T.Name);
    bool Gfx12 = T.isGfx12();
    // Wider or taller than the T# holds (16384 before gfx12): software, up to 65536.
    auto Tall = buildTextureObject(T, image(ImageShape::D2, 64, 40000, 1, 1), SamplerState{});
    REQUIRE(bool(Tall));
    CHECK(bool(Tall->Flags & ImageSoftware) == (!Gfx12 || !T.hasImageInstructions()));
    CHECK(Tall->Height == 40000);
    CHECK(!buildTextureObject(T, image(ImageShape::D2, 70000, 4, 1, 1), SamplerState{}));
    // A border colour the S# cannot name; the three it can stay in hardware.
    SamplerState S;
    S.Address[0] = S.Address[1] = AddressMode::Border;
    S.BorderColor[0] = 0.25f;
    S.BorderColor[3] = 1;
    auto Custom = buildTextureObject(T, image(ImageShape::D2, 8, 8, 1, 1), S);
    REQUIRE(bool(Custom));
    CHECK(Custom->Flags & ImageSoftware);
    CHECK(Custom->BorderColor[0] == 0.25f);
    S.BorderColor[0] = 0;
    auto Black = buildTextureObject(T, image(ImageShape::D2, 8, 8, 1, 1), S);
    REQUIRE(bool(Black));
    CHECK(bool(Black->Flags & ImageSoftware) == !T.hasImageInstructions());
    // sRGB texels are converted in code.
    auto Srgb = buildTextureObject(
        T, image(ImageShape::D2, 8, 8, 1, 1, {4, 8, ChannelType::Unsigned, true, true}),
        SamplerState{});
    REQUIRE(bool(Srgb));
    CHECK(Srgb->Flags & ImageSoftware);
  }
}

TEST_CASE("samplers round-trip through S# on every target", "[amdgpu][image]") {
  ImageResource I = image(ImageShape::D2, 64, 64, 1, 1);
  I.MipLevels = 7;
  for (const Target &T : allTargets()) {
    INFO(T.Name);
    for (AddressMode A :
         {AddressMode::Wrap, AddressMode::Clamp, AddressMode::Mirror, AddressMode::Border})
      for (FilterMode F : {FilterMode::Point, FilterMode::Linear})
        for (bool Seamless : {false, true}) {
          SamplerState S;
          S.Address[0] = A;
          S.Address[1] = AddressMode::Clamp;
          S.Address[2] = A == AddressMode::Wrap ? AddressMode::Mirror : AddressMode::Wrap;
          S.Filter = F;
          S.MipFilter = F == FilterMode::Point ? FilterMode::Linear : FilterMode::Point;
          S.NormalizedCoords = true;
          S.SeamlessCubemap = Seamless;
          S.MaxAnisotropy = Seamless ? 8 : 0;
          S.MipLodBias = -1.5f;
          S.MinLod = 0.25f;
          S.MaxLod = 5.75f;
          if (A == AddressMode::Border)
            S.BorderColor[3] = 1; // opaque black
          auto O = buildTextureObject(T, I, S);
          REQUIRE(bool(O));
          SamplerState D = decodeSampler(T, O->Sampler);
          for (unsigned K = 0; K < 3; ++K)
            CHECK(D.Address[K] == S.Address[K]);
          CHECK(D.Filter == S.Filter);
          CHECK(D.MipFilter == S.MipFilter);
          CHECK(D.NormalizedCoords);
          CHECK(D.SeamlessCubemap == Seamless);
          CHECK(D.MaxAnisotropy == S.MaxAnisotropy);
          CHECK(D.MipLodBias == S.MipLodBias);
          CHECK(D.MinLod == S.MinLod);
          CHECK(D.MaxLod == S.MaxLod);
          for (unsigned K = 0; K < 4; ++K)
            CHECK(D.BorderColor[K] == S.BorderColor[K]);
          CHECK(bool(O->SamplerInfo & SamplerInfoLinear) == (F == FilterMode::Linear));
          CHECK((O->SamplerInfo >> SamplerInfoAddressShift & 3) == unsigned(A));
        }
  }
}

TEST_CASE("unnormalized coordinates: in the S# for 1D/2D, in code elsewhere, never wrapping",
          "[amdgpu][image]") {
  for (const Target &T : allTargets()) {
    INFO(T.Name);
    SamplerState S;
    S.NormalizedCoords = false;
    S.Address[0] = AddressMode::Wrap;
    S.Address[1] = AddressMode::Mirror;
    S.Address[2] = AddressMode::Border;
    auto O2 = buildTextureObject(T, image(ImageShape::D2, 16, 16, 1, 1), S);
    REQUIRE(bool(O2));
    CHECK(!(O2->Flags & ImageNormalizeInCode));
    SamplerState D = decodeSampler(T, O2->Sampler);
    CHECK(!D.NormalizedCoords);
    CHECK(D.Address[0] == AddressMode::Clamp); // CUDA: wrap needs normalized coordinates
    CHECK(D.Address[1] == AddressMode::Clamp);
    CHECK(D.Address[2] == AddressMode::Border);
    auto O3 = buildTextureObject(T, image(ImageShape::D3, 16, 16, 16, 1), S);
    REQUIRE(bool(O3));
    CHECK(O3->Flags & ImageNormalizeInCode);
    CHECK(decodeSampler(T, O3->Sampler).NormalizedCoords);
  }
}

TEST_CASE("descriptor fields sit where each generation's hardware reads them", "[amdgpu][image]") {
  // 2D, 640 x 480, 4 x 8-bit unorm, at 0x7f1234567800.
  ImageResource I = image(ImageShape::D2, 640, 480, 1, 1, {4, 8, ChannelType::Unsigned, true});
  auto Build = [&](const char *Name) {
    auto O = buildTextureObject(*findTarget(Name), I, SamplerState{});
    REQUIRE(bool(O));
    return *O;
  };
  ImageObject G9 = Build("gfx90a"), G10 = Build("gfx1030"), G11 = Build("gfx1100"),
              G12 = Build("gfx1201");
  for (const ImageObject *O : {&G9, &G10, &G11, &G12}) {
    CHECK(O->Resource[0] == 0x12345678u); // address >> 8, low 32 bits
    CHECK((O->Resource[1] & 0xff) == 0x7fu);
    CHECK(O->Resource[3] >> 28 == 9);                                      // SQ_RSRC_IMG_2D
    CHECK((O->Resource[3] & 0xfff) == (4u | 5u << 3 | 6u << 6 | 7u << 9)); // X, Y, Z, W
  }
  // gfx9: IMG_DATA_FORMAT_8_8_8_8 = 10, IMG_NUM_FORMAT_UNORM = 0; width/height in dword 2.
  CHECK((G9.Resource[1] >> 20 & 0x3f) == 10);
  CHECK((G9.Resource[1] >> 26 & 0xf) == 0);
  CHECK((G9.Resource[2] & 0x3fff) == 639);
  CHECK((G9.Resource[2] >> 14 & 0x3fff) == 479);
  CHECK((G9.Resource[4] >> 13 & 0xffff) == 2560 / 4 - 1); // pitch - 1 in texels
  // gfx10.3: unified 8_8_8_8_UNORM = 56, width - 1 split 2 + 12 bits, RESOURCE_LEVEL set.
  CHECK((G10.Resource[1] >> 20 & 0x1ff) == 56);
  CHECK(((G10.Resource[1] >> 30) | (G10.Resource[2] & 0xfff) << 2) == 639);
  CHECK((G10.Resource[2] >> 14 & 0x3fff) == 479);
  CHECK(G10.Resource[2] >> 31 == 1);
  // gfx11: 8_8_8_8_UNORM = 42; gfx12: the same number at bits 17-24.
  CHECK((G11.Resource[1] >> 20 & 0xff) == 42);
  CHECK((G12.Resource[1] >> 17 & 0xff) == 42);
  CHECK(((G12.Resource[1] >> 30) | (G12.Resource[2] & 0x3fff) << 2) == 639);
  CHECK((G12.Resource[2] >> 14 & 0xffff) == 479);
  // A V# for linear memory: stride = texel bytes, records = elements.
  ImageResource B = image(ImageShape::Buffer, 4096, 1, 1, 1, {1, 32, ChannelType::Float, false});
  auto V = buildTextureObject(*findTarget("gfx1100"), B, SamplerState{});
  REQUIRE(bool(V));
  CHECK((V->Resource[1] >> 16 & 0x3fff) == 4);
  CHECK(V->Resource[2] == 4096);
  CHECK((V->Resource[3] >> 12 & 0x3f) == 22); // BUF_FMT_32_FLOAT on gfx11
  CHECK(V->Resource[3] >> 30 == 0);
  // S#: linear filtering, wrap on x, clamp-to-border on y.
  SamplerState S;
  S.Filter = FilterMode::Linear;
  S.NormalizedCoords = true;
  S.Address[0] = AddressMode::Wrap;
  S.Address[1] = AddressMode::Border;
  auto O = buildTextureObject(*findTarget("gfx90a"), I, S);
  REQUIRE(bool(O));
  CHECK((O->Sampler[0] & 7) == 0);
  CHECK((O->Sampler[0] >> 3 & 7) == 6);
  CHECK((O->Sampler[0] >> 15 & 1) == 0);
  CHECK((O->Sampler[2] >> 20 & 3) == 1);
  CHECK((O->Sampler[2] >> 22 & 3) == 1);
}

TEST_CASE("CUDA arrays are laid out linearly, levels and slices 256-byte aligned",
          "[amdgpu][image]") {
  for (const Target &T : allTargets()) {
    INFO(T.Name);
    ImageResource I = image(ImageShape::D2, 100, 60, 1, 1, {4, 8, ChannelType::Unsigned, true});
    I.MipLevels = 7;
    auto L = layoutImage(T, I);
    REQUIRE(bool(L));
    REQUIRE(L->Levels.size() == 7);
    uint64_t Expected = 0;
    uint32_t W = 100, H = 60;
    for (unsigned K = 0; K < 7; ++K) {
      const ImageLevel &Lv = L->Levels[K];
      CHECK(Lv.Width == W);
      CHECK(Lv.Height == H);
      CHECK(Lv.Offset == Expected);
      CHECK(Lv.RowPitch % 256 == 0);
      CHECK(Lv.RowPitch >= W * 4u);
      CHECK(Lv.SlicePitch >= Lv.RowPitch * H);
      Expected = (Lv.Offset + Lv.SlicePitch + 255) / 256 * 256;
      W = std::max(1u, W / 2);
      H = std::max(1u, H / 2);
    }
    CHECK(L->TotalBytes == Expected);
    auto L3 = layoutImage(T, image(ImageShape::D3, 10, 10, 10, 1));
    REQUIRE(bool(L3));
    CHECK(L3->TotalBytes == 10 * L3->Levels[0].SlicePitch);
    auto LA = layoutImage(T, image(ImageShape::Array2D, 10, 10, 1, 7));
    REQUIRE(bool(LA));
    CHECK(LA->TotalBytes == 7 * LA->Levels[0].SlicePitch);
    auto LC = layoutImage(T, image(ImageShape::CubeArray, 8, 8, 1, 12));
    REQUIRE(bool(LC));
    CHECK(LC->TotalBytes == 12 * LC->Levels[0].SlicePitch);
    auto LB = layoutImage(T, image(ImageShape::Buffer, 1000, 1, 1, 1));
    REQUIRE(bool(LB));
    CHECK(LB->TotalBytes == 4000);
  }
}

TEST_CASE("what no target can hold is an error naming it", "[amdgpu][image]") {
  const Target &G9 = *findTarget("gfx90a");
  const Target &G12 = *findTarget("gfx1201");
  CHECK_THAT(errorText(layoutImage(G9, image(ImageShape::D2, 70000, 4, 1, 1)).takeError()),
             Catch::Contains("largest image extent 65536"));
  CHECK(bool(layoutImage(G9, image(ImageShape::D2, 20000, 4, 1, 1)))); // the software path's
  CHECK(bool(layoutImage(G12, image(ImageShape::D2, 20000, 4, 1, 1))));
  CHECK_THAT(errorText(layoutImage(G9, image(ImageShape::D2, 4, 4, 1, 1,
                                             {3, 8, ChannelType::Unsigned, false}))
                           .takeError()),
             Catch::Contains("3 x 8-bit"));
  CHECK_THAT(errorText(layoutImage(
                           G9, image(ImageShape::D2, 4, 4, 1, 1, {1, 32, ChannelType::Float, true}))
                           .takeError()),
             Catch::Contains("normalized"));
  CHECK_THAT(errorText(layoutImage(G9, image(ImageShape::Cube, 4, 8, 1, 6)).takeError()),
             Catch::Contains("square"));
  CHECK_THAT(errorText(layoutImage(G9, image(ImageShape::CubeArray, 4, 4, 1, 7)).takeError()),
             Catch::Contains("6 faces"));
  ImageResource Mips = image(ImageShape::D2, 16, 16, 1, 1);
  Mips.MipLevels = 6;
  CHECK_THAT(errorText(layoutImage(G9, Mips).takeError()), Catch::Contains("mip levels"));
  ImageResource Odd = image(ImageShape::D2, 16, 16, 1, 1);
  Odd.Address += 16;
  CHECK_THAT(errorText(buildSurfaceObject(G9, Odd).takeError()), Catch::Contains("256-byte"));
  ImageResource BadPitch = image(ImageShape::D2, 16, 16, 1, 1);
  BadPitch.RowPitch = 62;
  CHECK_THAT(errorText(layoutImage(G9, BadPitch).takeError()), Catch::Contains("row pitch"));
  SamplerState Pink;
  Pink.Address[0] = AddressMode::Border;
  Pink.BorderColor[0] = 1;
  Pink.BorderColor[2] = 1;
  auto WithBorder = buildTextureObject(G9, image(ImageShape::D2, 4, 4, 1, 1), Pink);
  REQUIRE(bool(WithBorder));
  CHECK(WithBorder->Flags & ImageSoftware); // the S# names black and white only
  // The same colour without a border address mode is never used: the image unit samples.
  Pink.Address[0] = AddressMode::Clamp;
  auto Unused = buildTextureObject(G9, image(ImageShape::D2, 4, 4, 1, 1), Pink);
  REQUIRE(bool(Unused));
  CHECK(!(Unused->Flags & ImageSoftware));
}
