// SPDX-License-Identifier: MIT
// render_look.h — the render command's look options (docs/RENDER.md "Look"): --environment, --environment-intensity,
// --environment-rotation, --tone-mapping, --exposure, --light, --background, --msaa; shared by render and the
// batch job file's render block so both spell and check them alike.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "morphkit/render/environment.h"
#include "morphkit/render/render.h"

namespace morphkit::cli {

struct RenderLookFlags {
  // opaque (the default colour) | transparent (alpha 0 where nothing is drawn) | R,G,B (sRGB 0..255) | environment
  std::string background = "opaque";
  std::string environment = "studio";  // studio | none | FILE.hdr
  double environment_intensity = 1.0;
  double environment_rotation = 0.0;  // degrees about +Y
  std::string tone_mapping = "neutral";
  double exposure = 0.0;          // EV
  std::string light = "default";  // default | none
  std::string msaa = "4";         // 1 | 4 | 8 samples per pixel
};

void addLookOptions(CLI::App* sub, RenderLookFlags& flags);
// Usage errors (exit 2) for bad values; `no_video`: --background transparent needs it. The file of
// --environment is not read here (readEnvironment).
int readLookOptions(const RenderLookFlags& flags, bool no_video, RenderOptions& options);
// --environment FILE.hdr: read (capped) and decoded; errors are one line naming the file, exit 1. `image` must
// outlive the renderer's creation (options.environment_image points at it).
int readEnvironment(const RenderLookFlags& flags, RenderOptions& options, HdrImage& image);

}  // namespace morphkit::cli
