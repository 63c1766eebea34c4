// SPDX-License-Identifier: MIT
// KHR_animation_pointer's channels (extensions/2.0/Khronos/KHR_animation_pointer): the pointer read from a channel
// target (parser.cpp calls it); their validation rules are validateAnimationPointers (validate_internal.h).
// Private to morphkit::gltf.
#pragma once
#include <string>

#include "gltf_fields.h"

namespace morphkit::gltf_detail {

// Reads target.extensions.KHR_animation_pointer.pointer of a channel whose target.path is "pointer" into
// channel.pointer, and classifies it (PointerTarget); a morph-weight pointer sets channel.path to kWeights. A
// target without the extension object keeps an empty pointer (ignored, like any channel without a node).
Status parseAnimationPointer(object target, const std::string& where, AnimationChannel& channel);

// "/nodes/3/weights/1" → {kNodeWeight, 3, 1}; anything but the three morph-weight forms is kOther. A weights
// form whose index token is not an RFC 6901 array index below 2^32-1 keeps index (or element) kNone, which
// validation refuses.
AnimationPointer classifyPointer(std::string text);

}  // namespace morphkit::gltf_detail
