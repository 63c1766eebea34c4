// SPDX-License-Identifier: MIT
// The summary `morphkit render` prints: what was played (animation, weights, capture), what was rendered or
// kept by --resume, and the timings; one line for a person or one JSON object (--json).
#pragma once
#include <cstdint>
#include <string>

#include "morphkit/render/render.h"

namespace morphkit::cli {

struct RenderSummary {
  std::string file;
  uint32_t animation = kNone;  // kNone: the rest pose
  std::string playing;         // "talk", "rest pose + weights jawOpen=0.8", "talk + capture c.csv"
  std::string weights;         // the --weights / --weights-file overrides, "" without any
  std::string capture;         // the --weights-csv file, "" without one
  uint32_t frames = 0, first_frame = 0, rendered = 0;
  uint32_t width = 0, height = 0;
  const RendererInfo* info = nullptr;
  double gpu_ms = 0, morph_ms = 0, cpu_ms = 0, wall_ms = 0;  // summed over the rendered frames
  std::string out_dir;
  bool contact_sheet = true;  // false: --no-contact-sheet
  bool sheet_kept = false;    // --resume rendered nothing: the sheet there was not rewritten
  std::string video;          // its path; empty without one
  std::string video_note;     // why there is none
  bool video_kept = false;    // --resume rendered nothing: the video there was not re-encoded
  std::string camera;         // the camera used, as a --camera value (cameraText); empty when nothing rendered
  std::string look;           // "studio, neutral, msaa 4": environment, tone curve, samples
};

void printRenderJson(const RenderSummary& r);
void printRenderText(const RenderSummary& r);

}  // namespace morphkit::cli
