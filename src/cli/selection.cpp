// SPDX-License-Identifier: MIT
#include "selection.h"

#include <fmt/core.h>

#include <charconv>
#include <utility>

#include "morphkit/text.h"

namespace morphkit::cli {
namespace {

bool parseIndex(std::string_view text, uint32_t& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

bool equalIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    auto lower = [](unsigned char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : char(c); };
    if (lower(static_cast<unsigned char>(a[i])) != lower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

// "0 'talk', 1 'blink', 2 (unnamed)" -- at most 20, then the count.
std::string animationList(const Asset& asset) {
  if (asset.animations.empty()) return "the file has no animations";
  std::string list = "the file has ";
  for (size_t a = 0; a < asset.animations.size(); ++a) {
    if (a == 20) return list + fmt::format(", ... ({} in all)", asset.animations.size());
    const std::string& name = asset.animations[a].name;
    list += fmt::format("{}{} {}", a ? ", " : "", a, name.empty() ? std::string("(unnamed)") : quote(name));
  }
  return list;
}

}  // namespace

std::optional<DeviceChoice> parseDevice(std::string_view text) {
  if (text == "cpu") return DeviceChoice{false, -1};
  if (text == "gpu") return DeviceChoice{true, -1};
  uint32_t index = 0;
  if (parseIndex(text, index) && index < 4096) return DeviceChoice{true, int(index)};
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
  uint32_t index = 0;
  if (parseIndex(text, index)) {
    if (index < asset.animations.size()) return index;
    return fail(Error::kInvalidArgument,
                fmt::format("--anim {}: no animation of that index ({})", text, animationList(asset)));
  }
  uint32_t match = kNone;
  size_t folded = 0;
  for (uint32_t a = 0; a < asset.animations.size(); ++a) {
    if (asset.animations[a].name == text) return a;  // an exact name always wins
    if (equalIgnoringCase(asset.animations[a].name, text)) {
      match = a;
      ++folded;
    }
  }
  if (folded == 1) return match;
  if (text == "rest") return kNone;
  if (folded > 1) {
    return fail(Error::kInvalidArgument,
                fmt::format("--anim {}: {} animations match ignoring case; give the exact name or the "
                            "index ({})",
                            quote(text), folded, animationList(asset)));
  }
  return fail(Error::kInvalidArgument, fmt::format("--anim {}: no animation of that name ({}; 'rest': the rest pose)",
                                                   quote(text), animationList(asset)));
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
