// SPDX-License-Identifier: MIT
// The options every command spells the same way (docs/CLI.md, "Conventions"): --device cpu|gpu|N and
// --anim N|NAME|rest, parsed and resolved once here.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "morphkit/gltf/gltf.h"
#include "morphkit/model/error.h"
#include "morphkit/pack/packed_deltas.h"

namespace morphkit::cli {

// --device: "cpu", "gpu" (the best Vulkan device: discrete > integrated > CPU) or a Vulkan device index N.
struct DeviceChoice {
  bool gpu = false;
  int index = -1;  // the Vulkan device index; -1: the best
};
std::optional<DeviceChoice> parseDevice(std::string_view text);

// Adds --device with its validator (a malformed value is a CLI11 parse error: exit 2).
CLI::Option* addDeviceOption(CLI::App* sub, std::string& device, const std::string& help);

// --anim N|NAME|rest on `asset`: findAnimationNamed (morphkit/model/names.h), the rules Python's anim= shares.
// Empty `text`: the one default every command shares (docs/CLI.md, "The device, and the animation"): the first
// animation, or the rest pose when the file has none or a capture (`capture_plays`) replaces the clip.
Expected<uint32_t> findAnimation(const Asset& asset, std::string_view text, bool capture_plays = false);

// Adds --anim; an empty value (--anim '') is a usage error rather than the default animation.
CLI::Option* addAnimationOption(CLI::App* sub, std::string& anim, const std::string& help);

// A delta layout by name, one vocabulary for `pose --layout` and `bench --layouts`: deltaLayoutName's names
// (dense_f32, dense_f16, dense_snorm16, sparse) and their short forms (dense, f16, snorm16).
std::optional<DeltaLayout> layoutNamed(std::string_view name);
inline constexpr const char* kLayoutNames = "dense_f32 (or dense), dense_f16 (f16), dense_snorm16 (snorm16), sparse";

}  // namespace morphkit::cli
