// SPDX-License-Identifier: MIT
// Materials for the mesh program: glTF samplers, images decoded and uploaded once per (image, srgb), and one
// descriptor set + uniform block per material (PBR metallic-roughness, the KHR_materials_* fields of Material,
// KHR_texture_transform per reference, KHR_texture_basisu through its fallback image).
#include <algorithm>
#include <array>
#include <cstring>

#include "morphkit/model/material_features.h"
#include "morphkit/model/text.h"
#include "renderer_state.h"

namespace morphkit {

namespace rs = render;

namespace {

VkSamplerAddressMode wrapMode(uint32_t gl) {
  switch (gl) {
    case 33071:
      return VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    case 33648:
      return VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT;
    default:
      return VK_SAMPLER_ADDRESS_MODE_REPEAT;
  }
}

}  // namespace

Status createSamplers(Renderer& r) {
  const Asset& asset = *r.asset;
  for (size_t i = 0; i <= asset.samplers.size(); ++i) {
    Sampler s = i < asset.samplers.size() ? asset.samplers[i] : Sampler{};
    VkSamplerCreateInfo info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
    // glTF 2.0 §3.8.4: 9728 NEAREST; minification NEAREST and NEAREST_MIPMAP_* sample the nearest texel.
    // Textures carry their full mip chain: 9984..9987 choose between and within levels; NEAREST / LINEAR read level
    // 0 only; no minFilter reads the chain trilinearly (three.js's LinearMipmapLinearFilter default).
    info.magFilter = s.mag_filter == 9728 ? VK_FILTER_NEAREST : VK_FILTER_LINEAR;
    info.minFilter =
        (s.min_filter == 9728 || s.min_filter == 9984 || s.min_filter == 9986) ? VK_FILTER_NEAREST : VK_FILTER_LINEAR;
    info.mipmapMode =
        (s.min_filter == 9984 || s.min_filter == 9985) ? VK_SAMPLER_MIPMAP_MODE_NEAREST : VK_SAMPLER_MIPMAP_MODE_LINEAR;
    info.addressModeU = wrapMode(s.wrap_s);
    info.addressModeV = wrapMode(s.wrap_t);
    info.addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT;
    info.maxLod = (s.min_filter == 9728 || s.min_filter == 9729) ? 0.0f : VK_LOD_CLAMP_NONE;
    VkSampler sampler = VK_NULL_HANDLE;
    if (Status st = checkVk(vkCreateSampler(r.ctx->device, &info, nullptr, &sampler), "vkCreateSampler"); !st)
      return st;
    r.materials.samplers.push_back(sampler);
  }
  return Ok{};
}

// `srgb` for color data (base color, emissive: glTF 2.0 §3.9.2/§3.9.5).
Expected<const GpuImage*> sourceImage(Renderer& r, uint32_t index, bool srgb) {
  if (index >= r.asset->images.size())
    return fail(Error::kInvalidArgument, "images[" + std::to_string(index) + "]: no such image");
  GpuImage& slot = r.materials.images[size_t(index) * 2 + (srgb ? 1 : 0)];
  if (slot.image) return &slot;
  Expected<std::span<const uint8_t>> bytes =
      imageBytes(*r.asset, index);  // resolved by the loader: no file opened here
  if (!bytes) return bytes.error();
  Expected<DecodedImage> decoded = decodeImage(*bytes);
  if (!decoded) {
    return fail(decoded.error().code, "images[" + std::to_string(index) + "]: " + decoded.error().message);
  }
  Expected<GpuImage> image =
      uploadMipmappedImage(*r.ctx, decoded->width, decoded->height,
                           srgb ? VK_FORMAT_R8G8B8A8_SRGB : VK_FORMAT_R8G8B8A8_UNORM, decoded->rgba);
  if (!image) return image.error();
  slot = *image;
  return &slot;
}

void warnTexture(Renderer& r, uint32_t texture, const std::string& message) {
  if (texture != kNone && !r.materials.warned_textures.insert(texture).second) return;
  r.info.warnings.push_back(message);
}

// EXT_texture_webp: its WebP image is drawn (libwebp). KHR_texture_basisu: `source` is the PNG/JPEG fallback when
// the file has one (used); the KTX2 image itself needs a Basis Universal transcoder, which Debian does not package,
// so without a fallback the texture is not drawn.
Expected<const GpuImage*> textureImage(Renderer& r, uint32_t texture, bool srgb) {
  const Texture& t = r.asset->textures[texture];
  const std::string where = "textures[" + std::to_string(texture) + "]";
  const uint32_t drawn = drawnTextureImage(*r.asset, t);
  if (drawn == kNone) {
    const uint32_t ktx2 = t.source != kNone ? t.source : t.basisu_source;
    if (ktx2 != kNone) {
      return fail(Error::kUnsupportedExtension, where + ": images[" + std::to_string(ktx2) +
                                                    "] is KTX2 (KHR_texture_basisu) and no fallback source exists; "
                                                    "morphkit has no Basis Universal transcoder");
    }
    return fail(Error::kUnsupportedExtension, where + ": no source");
  }
  return sourceImage(r, drawn, srgb);
}

namespace {

// The texture of each slot, in binding order (render_shared.h MSH_BINDING_*_TEXTURE − 1).
std::array<const TextureRef*, MAT_TEXTURE_COUNT> materialTextures(const Material& m) {
  return {&m.base_color_texture,
          &m.metallic_roughness_texture,
          &m.normal_texture,
          &m.occlusion_texture,
          &m.emissive_texture,
          &m.clearcoat.texture,
          &m.clearcoat.roughness_texture,
          &m.sheen.color_texture,
          &m.sheen.roughness_texture,
          &m.specular.texture,
          &m.specular.color_texture,
          &m.clearcoat.normal_texture};
}
// Colour data is sRGB (glTF 2.0 §3.9.2/§3.9.5; the sheen and specular colour textures by their extensions).
constexpr bool kSrgbSlots[MAT_TEXTURE_COUNT] = {true,  false, false, false, true, false,
                                                false, true,  false, false, true, false};

// KHR_materials_ior → the dielectric F0; ior 0 (the schema's "infinite") as 1000, as three.js's GLTFLoader.
float dielectricF0(float ior) {
  const float n = ior == 0.0f ? 1000.0f : ior;
  const float r = (n - 1.0f) / (n + 1.0f);
  return r * r;
}

rs::MaterialUniforms materialUniforms(const Material& mat) {
  rs::MaterialUniforms u{};
  u.base_color_factor = {mat.base_color_factor[0], mat.base_color_factor[1], mat.base_color_factor[2],
                         mat.base_color_factor[3]};
  const float e = mat.emissive_strength;
  u.emissive_factor = {mat.emissive_factor[0] * e, mat.emissive_factor[1] * e, mat.emissive_factor[2] * e,
                       mat.alpha_cutoff};
  u.metallic_factor = mat.metallic_factor;
  u.roughness_factor = mat.roughness_factor;
  u.normal_scale = mat.normal_texture.scale;
  u.occlusion_strength = mat.occlusion_texture.scale;
  u.dielectric_f0 = dielectricF0(mat.ior);
  u.specular = {mat.specular.color_factor[0], mat.specular.color_factor[1], mat.specular.color_factor[2],
                mat.specular.factor};
  u.clearcoat = {mat.clearcoat.factor, mat.clearcoat.roughness_factor, mat.clearcoat.normal_texture.scale, 0};
  u.sheen = {mat.sheen.color_factor[0], mat.sheen.color_factor[1], mat.sheen.color_factor[2],
             mat.sheen.roughness_factor};
  if (mat.alpha_mode == AlphaMode::kMask) u.texture_flags |= MAT_ALPHA_MASK;
  if (mat.alpha_mode == AlphaMode::kBlend) u.texture_flags |= MAT_ALPHA_BLEND;
  if (mat.unlit) u.texture_flags |= MAT_UNLIT;
  if (mat.clearcoat.factor > 0.0f) u.texture_flags |= MAT_CLEARCOAT;
  if (std::find(mat.extensions.begin(), mat.extensions.end(), "KHR_materials_sheen") != mat.extensions.end())
    u.texture_flags |= MAT_SHEEN;
  return u;
}

// One warning per material extension the renderer does not shade (morphkit/model/material_features.h).
void warnUnshadedFeatures(Renderer& r) {
  for (const std::string& name : materialFeatures(*r.asset).unshaded)
    r.info.warnings.push_back(printable(name, 64) +
                              ": not shaded by morphkit; the materials using it are drawn without it");
}

}  // namespace

Status createMaterials(Renderer& r) {
  const Asset& asset = *r.asset;
  const uint8_t white[4] = {255, 255, 255, 255}, flat[4] = {128, 128, 255, 255};
  Expected<GpuImage> w = uploadImage(*r.ctx, 1, 1, VK_FORMAT_R8G8B8A8_UNORM, white, 4);
  if (!w) return w.error();
  r.materials.white = *w;
  Expected<GpuImage> f = uploadImage(*r.ctx, 1, 1, VK_FORMAT_R8G8B8A8_UNORM, flat, 4);
  if (!f) return f.error();
  r.materials.flat_normal = *f;
  r.materials.images.resize(asset.images.size() * 2);

  std::vector<Material> list = asset.materials;
  list.push_back(Material{});  // the default material (glTF 2.0 §3.9.6)
  warnUnshadedFeatures(r);
  for (size_t m = 0; m < list.size(); ++m) {
    const Material& mat = list[m];
    MaterialGpu gpu;
    gpu.alpha = mat.alpha_mode;
    gpu.double_sided = mat.double_sided;
    rs::MaterialUniforms u = materialUniforms(mat);
    const std::array<const TextureRef*, MAT_TEXTURE_COUNT> refs = materialTextures(mat);
    VkDescriptorImageInfo images[MAT_TEXTURE_COUNT];
    for (uint32_t i = 0; i < MAT_TEXTURE_COUNT; ++i) {
      images[i] = {r.materials.samplers.back(), i == 2 ? r.materials.flat_normal.view : r.materials.white.view,
                   VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
      const TextureRef& ref = *refs[i];
      const std::array<float, 6> t = textureTransformMatrix(ref);
      u.uv_transform[2 * i] = {t[0], t[1], t[2], 0};
      u.uv_transform[2 * i + 1] = {t[3], t[4], t[5], 0};
      if (ref.texture == kNone || ref.texture >= asset.textures.size()) continue;
      const uint32_t set = textureCoordinateSet(ref);
      if (set > 1) {
        r.info.warnings.push_back("materials[" + std::to_string(m) + "]: TEXCOORD_" + std::to_string(set) +
                                  " is not supported; texture ignored");
        continue;
      }
      Expected<const GpuImage*> image = textureImage(r, ref.texture, kSrgbSlots[i]);
      if (!image) {
        warnTexture(r, ref.texture, image.error().message + "; materials using it are drawn with their factors");
        continue;
      }
      const uint32_t sampler = asset.textures[ref.texture].sampler;
      images[i] = {sampler != kNone && sampler < asset.samplers.size() ? r.materials.samplers[sampler]
                                                                       : r.materials.samplers.back(),
                   (*image)->view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
      u.texture_flags |= 1u << i;  // MAT_*_TEXTURE: bit i is slot i
      if (set == 1) u.texcoord_sets |= 1u << i;
      if (i == 2) gpu.normal_texture = true;
    }
    Expected<GpuBuffer> ubo = createBuffer(*r.ctx, sizeof u, MemoryUse::kUpload, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT);
    if (!ubo) return ubo.error();
    gpu.ubo = *ubo;
    std::memcpy(gpu.ubo.mapped, &u, sizeof u);

    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = r.pool;
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &r.mesh_program.material_layout;
    if (Status s =
            checkVk(vkAllocateDescriptorSets(r.ctx->device, &alloc, &gpu.set), "vkAllocateDescriptorSets(material)");
        !s)
      return s;
    VkDescriptorBufferInfo buffer{gpu.ubo.buffer, 0, sizeof u};
    VkWriteDescriptorSet writes[1 + MAT_TEXTURE_COUNT];
    writes[0] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                 nullptr,
                 gpu.set,
                 MSH_BINDING_MATERIAL,
                 0,
                 1,
                 VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
                 nullptr,
                 &buffer,
                 nullptr};
    for (uint32_t i = 0; i < MAT_TEXTURE_COUNT; ++i) {
      writes[i + 1] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,    nullptr,    gpu.set, i + 1,  0, 1,
                       VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, &images[i], nullptr, nullptr};
    }
    vkUpdateDescriptorSets(r.ctx->device, 1 + MAT_TEXTURE_COUNT, writes, 0, nullptr);
    r.materials.materials.push_back(gpu);
  }
  return Ok{};
}

void destroyMaterialSet(VulkanContext& ctx, MaterialSet& set) {
  for (MaterialGpu& m : set.materials) destroyBuffer(ctx, m.ubo);  // the sets go with the renderer's pool
  for (GpuImage& image : set.images) destroyImage(ctx, image);
  destroyImage(ctx, set.white);
  destroyImage(ctx, set.flat_normal);
  for (VkSampler s : set.samplers) vkDestroySampler(ctx.device, s, nullptr);
  set = MaterialSet{};
}

}  // namespace morphkit
