// SPDX-License-Identifier: MIT
// morphkit/gltf/animation_pointer.h — what a command says about the KHR_animation_pointer channels it does not play.
// The channels themselves are plain data (AnimationChannel::pointer, morphkit/model/asset.h): morph-weight pointers
// ("/nodes/{n}/weights", "/nodes/{n}/weights/{i}", "/meshes/{m}/weights") play like "weights" channels in every
// pose path; any other pointer is listed by inspect and ignored.
#pragma once
#include <string>

#include "morphkit/model/asset.h"

namespace morphkit {

// One warning line for every pointer channel of the asset that targets something other than morph weights
// ("3 KHR_animation_pointer channels target other properties (e.g. animations[0].channels[2]
// '/materials/0/alphaCutoff'); ignored"), or "" when there is none.
std::string ignoredPointerWarning(const Asset& asset);

}  // namespace morphkit
