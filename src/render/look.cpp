// SPDX-License-Identifier: MIT
// The look options' text forms (tone curve, background colour), shared by the CLI, Python and batch jobs.
#include <charconv>
#include <cmath>

#include "morphkit/render/render.h"

namespace morphkit {

const char* toneMappingName(ToneMapping tone) {
  switch (tone) {
    case ToneMapping::kNeutral:
      return "neutral";
    case ToneMapping::kAces:
      return "aces";
    default:
      return "none";
  }
}

std::optional<ToneMapping> parseToneMapping(std::string_view text) {
  if (text == "neutral") return ToneMapping::kNeutral;
  if (text == "aces") return ToneMapping::kAces;
  if (text == "none") return ToneMapping::kOff;
  return std::nullopt;
}

bool parseBackgroundColor(std::string_view text, float (&linear_rgba)[4]) {
  for (int c = 0; c < 3; ++c) {
    const size_t comma = text.find(',');
    if ((c < 2) != (comma != std::string_view::npos)) return false;
    const std::string_view part = c < 2 ? text.substr(0, comma) : text;
    unsigned value = 0;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size() || value > 255) return false;
    // The sRGB transfer function's inverse (IEC 61966-2-1): the clear colour is linear, the attachment encodes.
    const float s = float(value) / 255.0f;
    linear_rgba[c] = s <= 0.04045f ? s / 12.92f : std::pow((s + 0.055f) / 1.055f, 2.4f);
    if (c < 2) text.remove_prefix(comma + 1);
  }
  linear_rgba[3] = 1.0f;
  return true;
}

}  // namespace morphkit
