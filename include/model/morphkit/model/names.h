// SPDX-License-Identifier: MIT
// morphkit/model/names.h — finding what a user named, with one set of rules for the CLI and Python: an animation by
// index or name (exact, else the one name equal ignoring ASCII case), and the closest names when nothing matches
// ("did you mean" for commands, options, animations and targets).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "morphkit/model/asset.h"
#include "morphkit/model/error.h"

namespace morphkit {

// Edit distance (optimal string alignment: insert, delete, substitute, swap two neighbours), ASCII case folded:
// "jawopen" is 0 away from "JawOpen", "Wakl" 1 from "Walk".
size_t nameDistance(std::string_view a, std::string_view b);

// Up to `count` of `candidates` closest to `name`, best first; ties keep the candidates' order.
std::vector<std::string> closestNames(std::string_view name, const std::vector<std::string>& candidates,
                                      size_t count = 3);

// The candidate a typo of `name` most likely meant: the closest one within max(2, size / 3) edits, "" if none.
std::string likelyMeant(std::string_view name, const std::vector<std::string>& candidates);

// "; did you mean 'walk'?" for likelyMeant's answer, "" without one.
std::string didYouMean(std::string_view name, const std::vector<std::string>& candidates);

// An animation of `asset` by `text`: an index; a name, exact or, when exactly one animation matches, ignoring
// ASCII case; "rest" (when no animation is so named): kNone, the rest pose. An empty text, an unknown or
// ambiguous name, or an index out of range fails (kInvalidArgument) with "<label> 'X': ..." naming the closest
// name and the animations the file has. `label` is how the caller spells the option (--anim, anim).
Expected<uint32_t> findAnimationNamed(const Asset& asset, std::string_view text, std::string_view label);

// A scene by index or name, by the same rules (no "rest"): "<label> N: no scene of that index (the file has 0
// 'Scene')" for any number of digits, however large.
Expected<uint32_t> findSceneNamed(const Asset& asset, std::string_view text, std::string_view label);

}  // namespace morphkit
