// SPDX-License-Identifier: MIT
// The render command's look options (render_look.h).
#ifdef HAVE_morphkit_render
#include "render_look.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "command.h"
#include "morphkit/model/files.h"
#include "output_folder.h"

namespace morphkit::cli {

void addLookOptions(CLI::App* sub, RenderLookFlags& flags) {
  sub->add_option("--background", flags.background,
                  "opaque (default), R,G,B (sRGB 0..255), environment (the environment behind the model) or "
                  "transparent (alpha 0 where nothing is drawn; needs --no-video)");
  sub->add_option("--environment", flags.environment,
                  "image-based light: studio (built-in), none, or a Radiance FILE.hdr (equirectangular)")
      ->capture_default_str();
  sub->add_option("--environment-intensity", flags.environment_intensity, "scale of the environment's light (0..10000)")
      ->capture_default_str();
  sub->add_option("--environment-rotation", flags.environment_rotation,
                  "environment rotation about +Y in degrees (as three.js's environmentRotation.y)")
      ->capture_default_str();
  sub->add_option("--tone-mapping", flags.tone_mapping, "neutral (Khronos PBR Neutral) | aces | none")
      ->capture_default_str();
  sub->add_option("--exposure", flags.exposure, "exposure in EV: colours × 2^EV before the tone curve")
      ->capture_default_str();
  sub->add_option("--light", flags.light, "default (the key light with shadows) | none (environment only)")
      ->capture_default_str();
  sub->add_option("--msaa", flags.msaa, "antialiasing samples per pixel: 1 | 4 | 8 (fewer when the device has fewer)")
      ->capture_default_str();
}

int readLookOptions(const RenderLookFlags& o, bool no_video, RenderOptions& options) {
  if (o.background == "transparent") {
    // yuv420p MP4 has no alpha: refused rather than flattened behind the user's back.
    if (!no_video)
      return reportUsage(
          "--background transparent: animation.mp4 cannot keep alpha; add --no-video (the PNG frames "
          "keep it)");
    std::fill(std::begin(options.background), std::end(options.background), 0.0f);
  } else if (o.background == "environment") {
    options.background_environment = true;
  } else if (o.background != "opaque" && !parseBackgroundColor(o.background, options.background)) {
    return reportUsage("--background " + o.background +
                       ": expected opaque, transparent, environment or R,G,B (sRGB, 0..255 each)");
  }
  if (o.environment == "studio") {
    options.environment = EnvironmentKind::kStudio;
  } else if (o.environment == "none") {
    options.environment = EnvironmentKind::kOff;
  } else if (!hasExtension(o.environment, ".hdr")) {
    return reportUsage("--environment " + o.environment + ": expected studio, none or a Radiance .hdr file");
  } else {
    options.environment = EnvironmentKind::kImage;
  }
  if (!(o.environment_intensity >= 0.0 && o.environment_intensity <= 1e4))
    return reportUsage("--environment-intensity: expected 0..10000");
  if (!std::isfinite(o.environment_rotation))
    return reportUsage("--environment-rotation: expected a finite angle in degrees");
  options.environment_intensity = float(o.environment_intensity);
  options.environment_rotation_deg = float(std::fmod(o.environment_rotation, 360.0));
  std::optional<ToneMapping> tone = parseToneMapping(o.tone_mapping);
  if (!tone) return reportUsage("--tone-mapping " + o.tone_mapping + ": expected neutral, aces or none");
  options.tone_mapping = *tone;
  if (!(std::fabs(o.exposure) <= 32.0)) return reportUsage("--exposure: expected -32..32 (EV)");
  options.exposure_ev = float(o.exposure);
  if (o.light != "default" && o.light != "none")
    return reportUsage("--light " + o.light + ": expected default or none");
  options.key_light = o.light == "default";
  if (o.msaa != "1" && o.msaa != "4" && o.msaa != "8") return reportUsage("--msaa " + o.msaa + ": expected 1, 4 or 8");
  options.msaa = uint32_t(o.msaa[0] - '0');
  return 0;
}

int readEnvironment(const RenderLookFlags& o, RenderOptions& options, HdrImage& image) {
  if (options.environment != EnvironmentKind::kImage) return 0;
  Expected<std::vector<uint8_t>> bytes = readFile(o.environment, kMaxEnvironmentFileBytes + 1);
  if (!bytes) return reportFailure(o.environment, bytes.error());
  Expected<HdrImage> decoded = decodeRadianceHdr(*bytes);
  if (!decoded) return reportFailure(o.environment, decoded.error());
  image = std::move(*decoded);
  options.environment_image = &image;
  return 0;
}

}  // namespace morphkit::cli
#endif  // HAVE_morphkit_render
