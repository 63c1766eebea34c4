// SPDX-License-Identifier: MIT
// names.cpp — matching the names a user types against the names a file or the CLI has (morphkit/model/names.h).
#include "morphkit/model/names.h"

#include <algorithm>
#include <numeric>

#include "morphkit/model/text.h"

namespace morphkit {
namespace {

char foldAscii(char c) {
  return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}

// "the file has 0 'talk', 1 'blink', 2 (unnamed)": at most 20, then the count; `none` when there are none.
std::string indexedList(const std::vector<std::string>& names, const char* none) {
  if (names.empty()) return none;
  std::string list = "the file has ";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i == 20) return list + ", ... (" + std::to_string(names.size()) + " in all)";
    list += (i ? ", " : "") + std::to_string(i) + " " + (names[i].empty() ? std::string("(unnamed)") : quote(names[i]));
  }
  return list;
}

std::vector<std::string> animationNames(const Asset& asset) {
  std::vector<std::string> names;
  for (const Animation& animation : asset.animations) names.push_back(animation.name);
  return names;
}

std::string animationList(const Asset& asset) {
  return indexedList(animationNames(asset), "the file has no animations");
}

// The one name equal to `text`: exactly, else ignoring ASCII case; `folded` counts the case-insensitive matches.
uint32_t findName(const std::vector<std::string>& names, std::string_view text, size_t& folded) {
  uint32_t match = kNone;
  folded = 0;
  for (uint32_t i = 0; i < names.size(); ++i) {
    if (names[i] == text) {
      folded = 1;
      return i;  // an exact name always wins
    }
    if (names[i].size() == text.size() && nameDistance(names[i], text) == 0) {
      match = i;
      ++folded;
    }
  }
  return folded == 1 ? match : kNone;
}

}  // namespace

size_t nameDistance(std::string_view a, std::string_view b) {
  // Three rows of the optimal-string-alignment table: two back for a swap of neighbours.
  std::vector<size_t> before(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
  std::iota(previous.begin(), previous.end(), size_t(0));
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const bool same = foldAscii(a[i - 1]) == foldAscii(b[j - 1]);
      row[j] = std::min({previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (same ? 0 : 1)});
      if (i > 1 && j > 1 && foldAscii(a[i - 1]) == foldAscii(b[j - 2]) && foldAscii(a[i - 2]) == foldAscii(b[j - 1]))
        row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, row);
  }
  return previous[b.size()];
}

std::vector<std::string> closestNames(std::string_view name, const std::vector<std::string>& candidates, size_t count) {
  std::vector<size_t> distance(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) distance[i] = nameDistance(name, candidates[i]);
  std::vector<size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return distance[a] < distance[b]; });
  std::vector<std::string> out;
  for (size_t i = 0; i < order.size() && out.size() < count; ++i) out.push_back(candidates[order[i]]);
  return out;
}

std::string likelyMeant(std::string_view name, const std::vector<std::string>& candidates) {
  const size_t limit = std::max<size_t>(2, name.size() / 3);
  std::string best;
  size_t best_distance = limit + 1;
  for (const std::string& candidate : candidates) {
    const size_t d = nameDistance(name, candidate);
    if (d < best_distance && d < std::max(name.size(), candidate.size()) && !candidate.empty()) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

std::string didYouMean(std::string_view name, const std::vector<std::string>& candidates) {
  const std::string meant = likelyMeant(name, candidates);
  return meant.empty() ? std::string() : "; did you mean " + quote(meant) + "?";
}

Expected<uint32_t> findAnimationNamed(const Asset& asset, std::string_view text, std::string_view label) {
  const std::string what = std::string(label) + " " + quote(text);
  if (text.empty())
    return fail(Error::kInvalidArgument, what + ": expected an index, a name or 'rest' (" + animationList(asset) + ")");
  uint32_t index = 0;
  if (parseUint32(text, index)) {
    if (index < asset.animations.size()) return index;
    return fail(Error::kInvalidArgument, std::string(label) + " " + std::string(text) +
                                             ": no animation of that index (" + animationList(asset) + ")");
  }
  size_t folded = 0;
  if (const uint32_t found = findName(animationNames(asset), text, folded); found != kNone) return found;
  if (text == "rest") return kNone;
  if (folded > 1) {
    return fail(Error::kInvalidArgument, what + ": " + std::to_string(folded) +
                                             " animations match ignoring case; give the exact name or the index (" +
                                             animationList(asset) + ")");
  }
  return fail(Error::kInvalidArgument, what + ": no animation of that name" + didYouMean(text, animationNames(asset)) +
                                           " (" + animationList(asset) + "; 'rest': the rest pose)");
}

Expected<uint32_t> findSceneNamed(const Asset& asset, std::string_view text, std::string_view label) {
  std::vector<std::string> names;
  for (const Scene& scene : asset.scenes) names.push_back(scene.name);
  const std::string list = indexedList(names, "the file has no scenes");
  const std::string what = std::string(label) + " " + quote(text);
  if (text.empty()) return fail(Error::kInvalidArgument, what + ": expected an index or a name (" + list + ")");
  uint32_t index = 0;
  if (parseUint32(text, index) && index < names.size()) return index;
  if (!text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return fail(Error::kInvalidArgument,
                std::string(label) + " " + printable(text) + ": no scene of that index (" + list + ")");
  }
  size_t folded = 0;
  if (const uint32_t found = findName(names, text, folded); found != kNone) return found;
  if (folded > 1) {
    return fail(Error::kInvalidArgument, what + ": " + std::to_string(folded) +
                                             " scenes match ignoring case; give the exact name or the index (" + list +
                                             ")");
  }
  return fail(Error::kInvalidArgument, what + ": no scene of that name" + didYouMean(text, names) + " (" + list + ")");
}

}  // namespace morphkit
