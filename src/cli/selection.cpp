// SPDX-License-Identifier: MIT
#include "selection.h"

#include <utility>

#include "morphkit/model/names.h"
#include "morphkit/model/text.h"

namespace morphkit::cli {

std::optional<DeviceChoice> parseDevice(std::string_view text) {
  if (text == "cpu") return DeviceChoice{false, -1};
  if (text == "gpu") return DeviceChoice{true, -1};
  uint32_t index = 0;
  if (parseUint32(text, index) && index < 4096) return DeviceChoice{true, int(index)};
  return std::nullopt;
}

CLI::Option* addDeviceOption(CLI::App* sub, std::string& device, const std::string& help) {
  static const CLI::Validator kDevice(
      [](std::string& text) {
        return parseDevice(text) ? std::string() : "expected cpu, gpu or a Vulkan device index, not '" + text + "'";
      },
      "cpu|gpu|N");
  return sub->add_option("--device", device, help)->check(kDevice);
}

Expected<uint32_t> findAnimation(const Asset& asset, std::string_view text, bool capture_plays) {
  if (text.empty()) return asset.animations.empty() || capture_plays ? kNone : 0u;
  return findAnimationNamed(asset, text, "--anim");
}

CLI::Option* addAnimationOption(CLI::App* sub, std::string& anim, const std::string& help) {
  static const CLI::Validator kNotEmpty(
      [](std::string& text) { return text.empty() ? "expected an index, a name or 'rest', not ''" : std::string(); },
      "N|NAME|rest");
  return sub->add_option("--anim", anim, help)->check(kNotEmpty);
}

std::optional<DeltaLayout> layoutNamed(std::string_view name) {
  constexpr std::pair<const char*, DeltaLayout> kShort[] = {
      {"dense", DeltaLayout::kDenseF32}, {"f16", DeltaLayout::kDenseF16}, {"snorm16", DeltaLayout::kDenseSnorm16}};
  for (const auto& [alias, layout] : kShort) {
    if (name == alias) return layout;
  }
  for (DeltaLayout l :
       {DeltaLayout::kDenseF32, DeltaLayout::kDenseF16, DeltaLayout::kDenseSnorm16, DeltaLayout::kSparse}) {
    if (name == deltaLayoutName(l)) return l;
  }
  return std::nullopt;
}

}  // namespace morphkit::cli
