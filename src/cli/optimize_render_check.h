// SPDX-License-Identifier: MIT
// `morphkit optimize --render-check`: what the user sees (docs/OPTIMIZE.md), IN and OUT rendered and compared after OUT
// is written. Here because the CLI may call the renderer and the optimize layer may not (docs/ARCHITECTURE.md).
#pragma once
#include <optional>
#include <string>

#include "morphkit/gltf/gltf.h"
#include "morphkit/optimize/optimize.h"

namespace morphkit::cli {

// `requested`: true (--render-check), false (--no-render-check) or unset (renderCheckByDefault). Loads `out` with
// `load`, renders `input` and it at renderCheckPoses(input) (compareRenders) and sets report.render_diff. Without a
// Vulkan device, or in a morphkit built without the renderer: a note in report.notes when unasked, the exit code
// after one error line when asked. Returns 0 to go on.
int runRenderCheck(std::optional<bool> requested, const OptimizeOptions& options, const Asset& input,
                   const std::string& out, const LoadOptions& load, OptimizeReport& report);

// The table's lines for report.render_diff (none without one).
void printRenderDiff(const OptimizeReport& report);

}  // namespace morphkit::cli
