// SPDX-License-Identifier: MIT
// morphkit/gpu_layout.h — kept for code written against 0.1: the compute path's delta layouts now live in the
// Vulkan-free pack module of core, morphkit/packed_deltas.h (docs/LAYOUTS.md).
#pragma once
#include "morphkit/packed_deltas.h"
