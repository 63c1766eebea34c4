// SPDX-License-Identifier: MIT
// node_layout.cpp — the node material's C++ structs tied to the GPU contract in render_shared.h (the morph
// buffers themselves are packed in src/pack/node_morph_buffers.cpp).
#include <cstddef>

#include "morphkit/material/node_material.h"
#include "render_shared.h"

namespace morphkit {

// The C++ structs the node renderer writes are the ones the generated GLSL reads from render_shared.h (its
// NodeUniforms head and NodeMorphHeader): same size, same offsets.
#define MORPHKIT_SAME_OFFSET(a, b, member) (offsetof(a, member) == offsetof(b, member))
static_assert(sizeof(NodeObjectHeader) == sizeof(render::NodeObjectUniforms) &&
                  MORPHKIT_SAME_OFFSET(NodeObjectHeader, render::NodeObjectUniforms, normal_matrix) &&
                  MORPHKIT_SAME_OFFSET(NodeObjectHeader, render::NodeObjectUniforms, features) &&
                  MORPHKIT_SAME_OFFSET(NodeObjectHeader, render::NodeObjectUniforms, skin_sets) &&
                  MORPHKIT_SAME_OFFSET(NodeObjectHeader, render::NodeObjectUniforms, texture_mask) &&
                  MORPHKIT_SAME_OFFSET(NodeObjectHeader, render::NodeObjectUniforms, texcoord_sets) &&
                  MORPHKIT_SAME_OFFSET(NodeObjectHeader, render::NodeObjectUniforms, alpha_mode) &&
                  MORPHKIT_SAME_OFFSET(NodeObjectHeader, render::NodeObjectUniforms, alpha_cutoff),
              "NodeObjectHeader mirrors MSH_NODE_OBJECT_MEMBERS, the head of the generated NodeUniforms block");
static_assert(sizeof(NodeMorphHeader) == sizeof(render::NodeMorphHeader) &&
                  MORPHKIT_SAME_OFFSET(NodeMorphHeader, render::NodeMorphHeader, count) &&
                  MORPHKIT_SAME_OFFSET(NodeMorphHeader, render::NodeMorphHeader, vertex_count) &&
                  MORPHKIT_SAME_OFFSET(NodeMorphHeader, render::NodeMorphHeader, bands_per_target),
              "NodeMorphHeader mirrors the std430 NodeMorphHeader of render_shared.h");
#undef MORPHKIT_SAME_OFFSET

}  // namespace morphkit
