// SPDX-License-Identifier: MIT
// render_summary.cpp — `morphkit render`'s summary (render_summary.h).
#ifdef HAVE_morphkit_render
#include "render_summary.h"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>

#include "command.h"
#include "morphkit/io/json_writer.h"

namespace morphkit::cli {

void printRenderJson(const RenderSummary& r) {
  const double n = double(std::max(r.rendered, 1u));
  JsonWriter json;
  json.beginObject();
  json.field("file", std::string_view(r.file));
  json.key("animation");
  if (r.animation == kNone)
    json.null();
  else
    json.value(r.animation);
  json.field("frames", r.frames);
  json.field("firstFrame", r.first_frame);
  json.field("rendered", r.rendered);
  json.field("skipped", r.frames - r.rendered);
  json.field("width", r.width);
  json.field("height", r.height);
  json.field("device", std::string_view(r.info->device));
  json.field("morphPath", morphPathName(r.info->path));
  json.key("camera");
  if (r.camera.empty())
    json.null();
  else
    json.value(std::string_view(r.camera));
  json.field("msaa", r.info->msaa);
  json.field("passes", r.info->passes);
  json.field("crowd", r.info->crowd);
  json.field("draws", r.info->draws);
  json.field("gpuMsPerFrame", r.gpu_ms / n);
  json.field("morphGpuMsPerFrame", r.morph_ms / n);
  json.field("cpuMsPerFrame", r.cpu_ms / n);
  json.field("wallMsPerFrame", r.wall_ms / n);
  json.field("out", std::string_view(r.out_dir));
  json.key("contactSheet");
  if (!r.contact_sheet)
    json.null();
  else
    json.value(std::string_view((std::filesystem::path(r.out_dir) / "contact_sheet.png").string()));
  json.field("contactSheetWritten", r.contact_sheet && !r.sheet_kept);
  json.key("video");
  if (r.video.empty())
    json.null();
  else
    json.value(std::string_view(r.video));
  json.field("videoWritten", !r.video.empty() && !r.video_kept);
  json.field("playing", std::string_view(r.playing));
  json.key("weights");
  if (r.weights.empty())
    json.null();
  else
    json.value(std::string_view(r.weights));
  json.key("capture");
  if (r.capture.empty())
    json.null();
  else
    json.value(std::string_view(r.capture));
  json.key("warnings");
  json.array(std::span<const std::string>(r.info->warnings));
  json.endObject();
  fmt::print("{}\n", json.str());
}

void printRenderText(const RenderSummary& r) {
  const double n = double(std::max(r.rendered, 1u));
  const std::string skipped =
      r.rendered == r.frames ? std::string() : fmt::format(" ({} already there)", r.frames - r.rendered);
  // What this run wrote, and what --resume found and kept.
  const std::string sheet = !r.contact_sheet ? "no contact sheet"
                            : r.sheet_kept   ? "contact_sheet.png kept"
                                             : "contact_sheet.png";
  const std::string video = !r.video.empty()       ? (r.video_kept ? ", animation.mp4 kept" : ", animation.mp4")
                            : r.video_note.empty() ? std::string()
                                                   : "; " + r.video_note;
  fmt::print(
      "{}: {} frame{} {}x{} of {}{} on {} ({} path, {} passes){}: GPU {:.2f} ms/frame, CPU {:.2f} ms/frame -> {} "
      "({}{})\n",
      shown(r.file, 1024), r.frames, r.frames == 1 ? "" : "s", r.width, r.height, shown(r.playing),
      r.info->crowd > 0 ? fmt::format(", a crowd of {}", r.info->crowd) : std::string(), shown(r.info->device),
      morphPathName(r.info->path), r.info->passes, skipped, r.gpu_ms / n + r.morph_ms / n, r.cpu_ms / n,
      shown(r.out_dir, 1024), sheet, video);
}

}  // namespace morphkit::cli
#endif  // HAVE_morphkit_render
