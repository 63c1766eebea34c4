// SPDX-License-Identifier: MIT
// check_rules.cpp — whether a profile rule applies to a file, and what it concerns (check_internal.h).
#include <algorithm>
#include <string>

#include "check_internal.h"
#include "morphkit/core/deform.h"
#include "morphkit/model/runtimes.h"

namespace morphkit::check_detail {

namespace {

std::string meshName(const Asset& asset, uint32_t m) {
  const std::string& name = asset.meshes[m].name;
  return "meshes[" + std::to_string(m) + "]" + (name.empty() ? "" : " '" + name + "'");
}

// The delta bit of a target attribute name (deform.h's bits; 0 for names nothing morphs).
uint32_t deltaBit(const std::string& name) {
  auto set = [&](size_t prefix) { return size_t(std::strtoul(name.c_str() + prefix, nullptr, 10)); };
  if (name == "POSITION") return kPositionDelta;
  if (name == "NORMAL") return kNormalDelta;
  if (name == "TANGENT") return kTangentDelta;
  if (name.starts_with("TEXCOORD_")) return texcoordDelta(set(9));
  if (name.starts_with("COLOR_")) return colorDelta(set(6));
  return 0;
}

std::string bitNames(uint32_t bits) {
  std::string out;
  auto add = [&](const std::string& name) { out += (out.empty() ? "" : ", ") + name; };
  if (bits & kPositionDelta) add("POSITION");
  if (bits & kNormalDelta) add("NORMAL");
  if (bits & kTangentDelta) add("TANGENT");
  for (size_t s = 0; s < 8; ++s) {
    if (bits & texcoordDelta(s)) add("TEXCOORD_" + std::to_string(s));
  }
  for (size_t s = 0; s < 8; ++s) {
    if (bits & colorDelta(s)) add("COLOR_" + std::to_string(s));
  }
  return out;
}

// Per primitive: OR and AND of its targets' attribute bits.
struct Presence {
  uint32_t some = 0, every = 0;
};
Presence presence(const Primitive& primitive) {
  Presence p;
  p.every = primitive.targets.empty() ? 0 : ~0u;
  for (const MorphTarget& t : primitive.targets) {
    uint32_t bits = 0;
    for (const Attribute& a : t.attributes) bits |= deltaBit(a.name);
    p.some |= bits;
    p.every &= bits;
  }
  return p;
}

size_t jointSets(const Primitive& primitive) {
  size_t sets = 0;
  while (findAttribute(primitive.attributes, "JOINTS_" + std::to_string(sets)) != kNone &&
         findAttribute(primitive.attributes, "WEIGHTS_" + std::to_string(sets)) != kNone) {
    ++sets;
  }
  return sets;
}

// The delta bits the profile's kIgnoredDeltas rules drop anyway (other rules about them change nothing).
uint32_t ignoredBy(const EngineProfile& profile) {
  uint32_t bits = 0;
  for (const ProfileRule& r : profile.rules) {
    if (r.kind == RuleKind::kIgnoredDeltas) bits |= r.value;
  }
  return bits;
}

// Appends "what" for each primitive `pick` names (at most three listed, then a count).
template <class Pick>
std::string eachPrimitive(const Asset& asset, Pick pick) {
  std::string out;
  size_t listed = 0, more = 0;
  for (uint32_t m = 0; m < asset.meshes.size(); ++m) {
    for (uint32_t p = 0; p < asset.meshes[m].primitives.size(); ++p) {
      const std::string what = pick(asset.meshes[m].primitives[p]);
      if (what.empty()) continue;
      if (listed == 3) {
        ++more;
        continue;
      }
      out += (out.empty() ? "" : "; ") + meshName(asset, m) + ".primitives[" + std::to_string(p) + "]: " + what;
      ++listed;
    }
  }
  if (more > 0) out += "; and " + std::to_string(more) + " more";
  return out;
}

std::string targetCap(const Asset& asset, uint32_t cap, bool names) {
  std::string out;
  for (uint32_t m = 0; m < asset.meshes.size(); ++m) {
    const uint32_t count = targetCount(asset.meshes[m]);
    if (count <= cap) continue;
    out += (out.empty() ? "" : "; ") + meshName(asset, m) + ": " + std::to_string(count) + " targets";
    if (!names) continue;
    out += ", targets " + std::to_string(cap) + ".." + std::to_string(count - 1) + " dropped";
    const std::vector<std::string>& target_names = asset.meshes[m].target_names;
    std::string listed;
    for (uint32_t t = cap; t < count && t < target_names.size() && t < cap + 8; ++t) {
      listed += (listed.empty() ? "" : ", ") + target_names[t];
    }
    if (!listed.empty()) out += " (" + listed + (count - cap > 8 ? ", ..." : "") + ")";
  }
  return out;
}

bool usesCubic(const Asset& asset) {
  for (const Animation& a : asset.animations) {
    for (const AnimationChannel& ch : a.channels) {
      if (channelPlays(ch) && ch.sampler < a.samplers.size() &&
          a.samplers[ch.sampler].interpolation == Interpolation::kCubicSpline) {
        return true;
      }
    }
  }
  return false;
}

// An extension the file uses that the engine cannot decode, said as what the user will see: "<extension> is
// required and <what the engine does>: <what shows>" (the decoder table's row, morphkit/model/runtimes.h). A required
// one refuses the load (glTF 2.0 §3.12: a loader must not load a file whose required extension it lacks).
Applicability undecodedExtension(const Asset& asset, const EngineProfile& profile, const ProfileRule& rule) {
  const auto& used = asset.extensions_used;
  const auto& required = asset.extensions_required;
  Applicability out;
  if (std::find(used.begin(), used.end(), rule.extension) == used.end()) return out;
  out.applies = true;
  out.refuses_load = std::find(required.begin(), required.end(), rule.extension) != required.end();
  const Runtime* runtime = findRuntime(profile.name);
  const RuntimeDecoder* row = runtime ? findRuntimeDecoder(*runtime, rule.extension) : nullptr;
  const std::string effect = row ? std::string(missingDecoderEffect(*row, out.refuses_load))
                                 : std::string(out.refuses_load ? "the file fails to load" : "it is ignored");
  out.where = std::string(rule.extension) + (out.refuses_load ? " is required and " : " is used and ") +
              std::string(rule.what) + ": " + effect;
  return out;
}

}  // namespace

Applicability applicability(const Asset& asset, const PosePrepared& prepared, const EngineProfile& profile,
                            const ProfileRule& rule) {
  const uint32_t ignored = ignoredBy(profile);
  std::string where;
  switch (rule.kind) {
    case RuleKind::kTargetCap:
      where = targetCap(asset, rule.value, true);
      break;
    case RuleKind::kTargetCapRefused:
      where = targetCap(asset, rule.value, false);
      break;
    case RuleKind::kIgnoredDeltas:
      where = eachPrimitive(asset, [&](const Primitive& p) { return bitNames(presence(p).some & rule.value); });
      break;
    case RuleKind::kPartialDeltas:
    case RuleKind::kMissingDeltaIsBase:
      where = eachPrimitive(asset, [&](const Primitive& p) {
        const Presence pr = presence(p);
        const uint32_t partial = pr.some & ~pr.every & ~ignored;
        return partial ? bitNames(partial) + " missing from some targets" : std::string();
      });
      break;
    case RuleKind::kSparseDeltas:
      where = eachPrimitive(asset, [&](const Primitive& p) {
        size_t sparse = 0;
        for (const MorphTarget& t : p.targets) {
          for (const Attribute& a : t.attributes) {
            if ((deltaBit(a.name) & (kPositionDelta | kNormalDelta | kTangentDelta)) &&
                a.accessor < asset.accessors.size() && asset.accessors[a.accessor].has_sparse)
              ++sparse;
          }
        }
        return sparse ? std::to_string(sparse) + " sparse target accessor" + (sparse == 1 ? "" : "s") : std::string();
      });
      break;
    case RuleKind::kInfluenceSets:
      where = eachPrimitive(asset, [&](const Primitive& p) {
        const size_t sets = jointSets(p);
        return sets > rule.value ? std::to_string(sets) + " JOINTS_n/WEIGHTS_n sets" : std::string();
      });
      break;
    case RuleKind::kUnnormalizedWeights: {
      uint64_t rescaled = 0;
      for (const PrimitiveData& p : prepared.primitives) rescaled += p.skin_weight_fix.rescaled;
      if (rescaled) where = std::to_string(rescaled) + " vertices whose skin weights do not sum to 1";
      break;
    }
    case RuleKind::kMinWeight:
      where = eachPrimitive(asset, [](const Primitive& p) {
        return p.targets.empty() ? std::string() : std::to_string(p.targets.size()) + " targets";
      });
      break;
    case RuleKind::kCubicTangents:
      if (usesCubic(asset)) where = "CUBICSPLINE channels";
      break;
    case RuleKind::kTargetAttrsRefused:
      where = eachPrimitive(asset, [&](const Primitive& p) {
        const uint32_t outside = presence(p).some & ~rule.value;
        return outside ? bitNames(outside) + " targets" : std::string();
      });
      break;
    case RuleKind::kTargetTextureCap:
      where = eachPrimitive(asset, [&](const Primitive& p) {
        const uint32_t position = findAttribute(p.attributes, "POSITION");
        if (p.targets.empty() || position == kNone) return std::string();
        const uint64_t components = uint64_t(asset.accessors[position].count) * 9;
        return components > rule.value ? std::to_string(components) + " morph components" : std::string();
      });
      break;
    case RuleKind::kUnsupportedExtension: {
      Applicability out = undecodedExtension(asset, profile, rule);
      if (!out.applies) out.where = notApplicableReason(rule.kind);
      return out;
    }
  }
  Applicability out;
  out.applies = !where.empty();
  out.where = out.applies ? where : notApplicableReason(rule.kind);
  out.refuses_load =
      out.applies && (rule.kind == RuleKind::kTargetCapRefused || rule.kind == RuleKind::kTargetAttrsRefused ||
                      rule.kind == RuleKind::kTargetTextureCap);
  return out;
}

std::string notApplicableReason(RuleKind kind) {
  switch (kind) {
    case RuleKind::kTargetCap:
    case RuleKind::kTargetCapRefused:
      return "no mesh has that many targets";
    case RuleKind::kIgnoredDeltas:
      return "no target moves those attributes";
    case RuleKind::kPartialDeltas:
    case RuleKind::kMissingDeltaIsBase:
      return "every target of each primitive has the same attributes";
    case RuleKind::kSparseDeltas:
      return "no target is stored sparse";
    case RuleKind::kInfluenceSets:
      return "no primitive has more influence sets";
    case RuleKind::kUnnormalizedWeights:
      return "every skin weight sums to 1";
    case RuleKind::kMinWeight:
      return "no morph targets";
    case RuleKind::kCubicTangents:
      return "no CUBICSPLINE animation";
    case RuleKind::kTargetAttrsRefused:
      return "no target moves other attributes";
    case RuleKind::kTargetTextureCap:
      return "no morphed primitive is that large";
    case RuleKind::kUnsupportedExtension:
      return "the file does not use it";
  }
  return "";
}

}  // namespace morphkit::check_detail
