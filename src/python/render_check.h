// SPDX-License-Identifier: MIT
// morphkit.optimize(..., render_check=...): what the user sees (docs/OPTIMIZE.md), as `morphkit optimize
// --render-check` does it (src/cli/optimize_render_check.h), for the extension, which links the renderer.
#pragma once
#include <optional>
#include <string>

#include "morphkit/gltf/gltf.h"
#include "morphkit/optimize/optimize.h"

namespace morphkit::python {

// Without the GIL, after `out` is written. `requested`: render_check (None: renderCheckByDefault). Sets
// report.render_diff; without a Vulkan device and unasked, a note in report.notes; otherwise the failure to raise.
Status renderCheck(std::optional<bool> requested, const OptimizeOptions& options, const Asset& input,
                   const std::string& out, const LoadOptions& load, OptimizeReport& report);

}  // namespace morphkit::python
