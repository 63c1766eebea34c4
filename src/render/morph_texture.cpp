// SPDX-License-Identifier: MIT
// Band-texture path's weights uniform as pure functions, plus the morph-path rule (the band texture is in src/pack/).
#include <cstring>
#include <string>

#include "morphkit/pack/active_targets.h"
#include "morphkit/render/render.h"
#include "render_shared.h"

namespace morphkit {

bool initMorphUniform(std::span<uint8_t> bytes, const MorphTextureLayout& layout, std::span<const float> weights) {
  if (bytes.size() < sizeof(render::MorphUniforms) || weights.size() > MSH_SEED_MAX_TARGETS ||
      layout.target_count > MSH_SEED_MAX_TARGETS) {
    return false;
  }
  render::MorphUniforms u{};
  u.count = layout.target_count;
  u.texWidth = layout.tex_width;
  u.rowsPerBand = layout.rows_per_band;
  u.pad = 0;
  std::memcpy(bytes.data(), &u, sizeof u);
  return writeMorphWeights(bytes, weights);
}

bool writeMorphWeights(std::span<uint8_t> bytes, std::span<const float> weights) {
  if (bytes.size() < sizeof(render::MorphUniforms) || weights.size() > MSH_SEED_MAX_TARGETS) return false;
  float w[4] = {0, 0, 0, 0};
  for (size_t t = 0; t < weights.size(); ++t) w[t] = activeWeight(weights[t]);  // the one rule (active_targets.h)
  static_assert(offsetof(render::MorphUniforms, weights) == 0 && sizeof(w) == 16);
  std::memcpy(bytes.data(), w, sizeof w);  // the first 16 bytes only (band-texture path)
  return true;
}

const char* morphPathName(MorphPath path) {
  switch (path) {
    case MorphPath::kVertex:
      return "vertex";
    case MorphPath::kCompute:
      return "compute";
    case MorphPath::kAuto:
      return "auto";
  }
  return "auto";
}

std::optional<MorphPath> parseMorphPath(std::string_view text) {
  if (text == "vertex") return MorphPath::kVertex;
  if (text == "compute") return MorphPath::kCompute;
  if (text == "auto") return MorphPath::kAuto;
  return std::nullopt;
}

MorphPath chooseMorphPath(uint32_t passes, uint32_t max_active_targets) {
  if (max_active_targets == 0) return MorphPath::kVertex;  // nothing to morph: no dispatch at all
  if (passes >= 2 || max_active_targets > MSH_SEED_MAX_TARGETS) return MorphPath::kCompute;
  return MorphPath::kVertex;
}

}  // namespace morphkit
