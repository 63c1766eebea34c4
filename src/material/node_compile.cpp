// SPDX-License-Identifier: MIT
// node_compile.cpp — NodeMaterial → GLSL (vertex + fragment per pipeline) → SPIR-V (shaderc). The vertex interface
// follows the renderer's shaders/render/mesh.vert, and the fragment shader lights with the renderer's own
// shaders/render/lighting.glsl (as pbr.frag does), so a node graph that restates a glTF material draws what the
// built-in PBR pipeline draws, in every environment and tone curve.
#include <shaderc/shaderc.h>

#include <array>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "morphkit/model/text.h"
#include "morphkit_glsl/shader_text.h"
#include "node_feature.h"
#include "node_internal.h"

namespace morphkit {

const char* nodePipelineName(NodePipeline pipeline) {
  switch (pipeline) {
    case NodePipeline::kDepth:
      return "depth";
    case NodePipeline::kShadow:
      return "shadow";
    case NodePipeline::kColor:
      return "color";
  }
  return "color";
}

const char* nodeBindingKindName(NodeBindingKind kind) {
  switch (kind) {
    case NodeBindingKind::kUniformBuffer:
      return "uniform_buffer";
    case NodeBindingKind::kStorageBuffer:
      return "storage_buffer";
    case NodeBindingKind::kSampledTexture:
      return "sampled_texture";
    case NodeBindingKind::kShadowSampler:
      return "shadow_sampler";
  }
  return "uniform_buffer";
}

namespace {

void replaceAll(std::string& text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

std::string uniformBlock(const NodeMaterial& m, uint32_t binding) {
  std::string s = "layout(set = " + std::to_string(kNodeMaterialSet) + ", binding = " + std::to_string(binding) +
                  ", std140) uniform NodeUniforms {\n  MSH_NODE_OBJECT_MEMBERS\n";
  for (const NodeUniformInfo& u : m.uniforms) s += "  vec4 u_" + u.name + ";\n";
  // KHR_texture_transform rows per declared texture (NodeMaterial::uv_transform_offset).
  if (!m.textures.empty()) s += "  vec4 uv_transform[" + std::to_string(2 * m.textures.size()) + "];\n";
  return s + "} node;\n";
}

struct Layout {
  std::vector<NodeBinding> bindings;
  std::map<std::string, uint32_t> feature_binding;  // binding name → number
  uint32_t frame = 0, shadow = 0, environment = 0, brdf_table = 0;
};

// The fixed binding order (morphkit/material/node_material.h): node block and textures, then the features (morph
// first), then the frame's: its uniform block, the shadow map and the environment's two maps.
Layout bindingLayout(const NodeMaterial& m) {
  Layout l;
  uint32_t next = 0;
  l.bindings.push_back({kNodeMaterialSet, next++, NodeBindingKind::kUniformBuffer,
                        kNodeStageVertex | kNodeStageFragment, "NodeUniforms", NodeBindingGroup::kNode, "", kNone});
  for (uint32_t t = 0; t < m.textures.size(); ++t) {
    l.bindings.push_back({kNodeMaterialSet, next++, NodeBindingKind::kSampledTexture, kNodeStageFragment,
                          "nodeTexture" + std::to_string(t), NodeBindingGroup::kNode, "", t});
  }
  for (const auto& feature : orderedNodeFeatures(m.state)) {
    for (const NodeFeatureBinding& b : feature->bindings) {
      l.feature_binding[b.name] = next;
      l.bindings.push_back(
          {kNodeMaterialSet, next++, b.kind, b.stages, b.name, NodeBindingGroup::kFeature, feature->name, kNone});
    }
  }
  l.frame = next;
  l.bindings.push_back({kNodeMaterialSet, next++, NodeBindingKind::kUniformBuffer,
                        kNodeStageVertex | kNodeStageFragment, "FrameBlock", NodeBindingGroup::kEnvironment, "",
                        kNone});
  l.shadow = next;
  l.bindings.push_back({kNodeMaterialSet, next++, NodeBindingKind::kShadowSampler, kNodeStageFragment, "nodeShadowMap",
                        NodeBindingGroup::kEnvironment, "", kNone});
  l.environment = next;
  l.bindings.push_back({kNodeMaterialSet, next++, NodeBindingKind::kSampledTexture, kNodeStageFragment,
                        "nodeEnvironmentMap", NodeBindingGroup::kEnvironment, "", kNone});
  l.brdf_table = next;
  l.bindings.push_back({kNodeMaterialSet, next++, NodeBindingKind::kSampledTexture, kNodeStageFragment, "nodeBrdfTable",
                        NodeBindingGroup::kEnvironment, "", kNone});
  return l;
}

// GLSL of the blocks that feed `root`, in dependency order, for `stage`.
Expected<std::string> emitBlocks(const NodeMaterial& m, uint32_t root, uint32_t stage) {
  std::string code;
  if (root == kNone) return code;
  std::vector<uint32_t> order;
  std::vector<uint8_t> seen(m.blocks.size(), 0);
  std::function<void(uint32_t)> visit = [&](uint32_t b) {
    seen[b] = 1;
    for (const NodeInput& in : m.blocks[b].inputs) {
      if (in.block != kNone && !seen[in.block]) visit(in.block);
    }
    order.push_back(b);
  };
  visit(root);
  std::map<uint32_t, std::vector<std::string>> outputs;
  for (uint32_t b : order) {
    const NodeBlock& block = m.blocks[b];
    const std::string where = "blocks[" + std::to_string(b) + "]";
    const std::vector<NodePortDecl> ports = block.emitter->inputs();
    NodeEmitContext context;
    context.stage = stage;
    // Appended, not `"n" + std::to_string(b)`: GCC 12 at -O3 reports a false -Wrestrict inside that operator+.
    context.prefix = "n";
    context.prefix += std::to_string(b);
    context.block = &block;
    for (size_t i = 0; i < ports.size(); ++i) {
      const NodePortDecl& p = ports[i];
      const NodeInput* in = i < block.inputs.size() ? &block.inputs[i] : nullptr;
      std::string expr;
      NodeValueType type = p.type;
      if (in && in->block != kNone) {
        expr = outputs[in->block].at(in->output);
        type = m.blocks[in->block].emitter->outputs().at(in->output).type;
      } else if (in && in->literal) {
        expr = glslValue(in->literal_type, in->value);
        type = in->literal_type;
      } else {
        expr = p.default_expression.empty() ? glslValue(p.type, p.fallback) : p.default_expression;
      }
      auto converted = convertNodeValue(expr, type, p.type);
      if (!converted)
        return fail(Error::kInvalidArgument, where + ".inputs." + p.name + ": " + converted.error().message);
      context.inputs.push_back(*converted);
    }
    Expected<std::vector<std::string>> out = block.emitter->emit(context, code);
    if (!out) return fail(out.error().code, where + ": " + out.error().message);
    if (out->size() != block.emitter->outputs().size()) {
      return fail(Error::kInvalidArgument, where + ": the emitter of " + block.type + " returned " +
                                               std::to_string(out->size()) + " outputs, declared " +
                                               std::to_string(block.emitter->outputs().size()));
    }
    outputs[b] = std::move(*out);
  }
  return code;
}

// The renderer's GPU contract (FrameUniforms, the node uniform head, MSH_* flags) comes from render_shared.h itself,
// resolved by compileNodeGlsl's include callback: nothing is restated here.
std::string header(const NodeMaterial& m, NodePipeline pipeline, const char* stage) {
  return "#version 450\n// Generated by morphkit node materials: \"" + m.name + "\", " + nodePipelineName(pipeline) +
         " pipeline, " + stage +
         " stage.\n#extension GL_GOOGLE_include_directive : require\n"
         "#include \"render_shared.h\"\n";
}

Expected<std::string> vertexShader(const NodeMaterial& m, const Layout& l, NodePipeline pipeline) {
  const auto features = orderedNodeFeatures(m.state);
  std::string s = header(m, pipeline, "vertex");
  for (const auto& f : features) s += f->vertex_declarations;
  s += uniformBlock(m, 0);
  for (const auto& f : features) {
    for (const NodeFeatureBinding& b : f->bindings) {
      if ((b.stages & kNodeStageVertex) == 0) continue;
      std::string decl = b.declaration;
      replaceAll(decl, "@SET@", std::to_string(kNodeMaterialSet));
      replaceAll(decl, "@BINDING@", std::to_string(l.feature_binding.at(b.name)));
      s += decl;
    }
  }
  s += "layout(set = " + std::to_string(kNodeMaterialSet) + ", binding = " + std::to_string(l.frame) +
       ", std140) uniform FrameBlock { FrameUniforms frame; };\n";
  for (const auto& f : features) s += f->vertex_functions;
  s += R"(
layout(location = 0) in vec3 inPosition;
layout(location = 1) in vec3 inNormal;   // bound to POSITION when absent (node.features says so)
layout(location = 2) in vec4 inTangent;  // bound to POSITION when absent
layout(location = 3) in vec2 inUv0;      // bound to POSITION when absent
layout(location = 4) in vec2 inUv1;      // bound to POSITION when absent

layout(location = 0) out vec3 outWorldPosition;
layout(location = 1) out vec3 outNormal;
layout(location = 2) out vec4 outTangent;
layout(location = 3) out vec2 outUv0;
layout(location = 4) out vec2 outUv1;

// No `invariant gl_Position`: glslang decorates the gl_PerVertex member, which the validation layer's SPIR-V
// validator flags. The depth and color programs run the same vertex code (only this file's header comment
// differs), which gives the prepass and the color pass the same depths.

void main() {
  // gl_VertexIndex is the index buffer value for indexed draws (vertexOffset 0): it addresses per-vertex data.
  uint nodeVertexIndex = uint(gl_VertexIndex);
  vec3 nodePosition = inPosition;
)";
  s += "  vec3 nodeNormal = (node.features & MSH_HAS_NORMALS) != 0u ? inNormal : vec3(0.0);\n";
  s += "  vec3 nodeTangent = (node.features & MSH_HAS_TANGENTS) != 0u ? inTangent.xyz : vec3(0.0);\n";
  for (const auto& f : features) s += f->vertex_prologue;
  s += "  vec3 nodeOutWorldPosition = (node.model * vec4(nodePosition, 1.0)).xyz;\n";
  s += "  vec3 nodeOutWorldNormal = mat3(node.normal_matrix) * nodeNormal;\n";
  Expected<std::string> blocks = emitBlocks(m, m.vertex_output, kNodeStageVertex);
  if (!blocks) return blocks.error();
  s += *blocks;
  const bool morph = nodeFeatureInstalled(m.state, "morph"), skin = nodeFeatureInstalled(m.state, "skin");
  s += std::string("  vec3 nodeTangentOut = mat3(") + (skin ? "nodeSkinMatrix" : "node.model") + ") * (nodeTangent" +
       (morph ? " + nodeMorphDeltaTangent" : "") + ");\n";
  s += "  outWorldPosition = nodeOutWorldPosition;\n  outNormal = nodeOutWorldNormal;\n";
  s += "  outTangent = vec4(nodeTangentOut, (node.features & MSH_HAS_TANGENTS) != 0u ? inTangent.w : 1.0);\n";
  s += "  outUv0 = (node.features & MSH_HAS_UV0) != 0u ? inUv0 : vec2(0.0);\n";
  s += "  outUv1 = (node.features & MSH_HAS_UV1) != 0u ? inUv1 : vec2(0.0);\n";
  s += std::string("  gl_Position = ") +
       (pipeline == NodePipeline::kShadow ? "frame.light_view_proj" : "frame.view_proj") +
       " * vec4(nodeOutWorldPosition, 1.0);\n}\n";
  return s;
}

// PbrOutput → the renderer's own light (shaders/render/lighting.glsl, which pbr.frag includes too): the block's
// inputs fill lighting.glsl's Surface as pbr.frag fills it from a glTF material, so the key light, its shadow, the
// image-based light, exposure and the tone curve are the built-in path's, computed by the same code.
constexpr const char* kFragmentEpilogue = R"(
  // ---- PbrOutput → lighting.glsl (glTF 2.0 §3.9.2, Appendix B), as shaders/render/pbr.frag ----
  vec4 base = nodePbrBaseColor;
  if (node.alpha_mode == 1u && base.a < node.alpha_cutoff) discard;  // §3.9.4 MASK
  Surface surface = surfaceOf(base);
  surface.metallic = clamp(nodePbrMetallic, 0.0, 1.0);
  surface.roughness = clamp(nodePbrRoughness, 0.0, 1.0);
  surface.emissive = nodePbrEmissive;
  if (nodePbrOccluded) {
    surface.occluded = true;
    surface.occlusion = 1.0 + nodePbrOcclusionStrength * (nodePbrOcclusion - 1.0);  // §3.9.4
  }
  vec3 n = nodeWorldNormal;
  if (nodePbrNormalMapped) {
    n = perturbNormal(n, inTangent, (node.features & MSH_HAS_TANGENTS) != 0u, nodeDpdx, nodeDpdy, nodePbrNormalUv,
                      nodePbrNormalTexel, nodePbrNormalScale);  // §3.9.3 normalTextureInfo.scale
  }
  float alpha = node.alpha_mode == 2u ? base.a : 1.0;
  outColor = vec4(toneMapFrame(shadeSurface(surface, inWorldPosition, n, nodeWorldNormal)), alpha);
}
)";

// lighting.glsl's hooks, on the node program's environment bindings.
constexpr const char* kLightingHooks = R"(
float lightShadowTap(vec3 uv_depth) {
  return texture(nodeShadowMap, uv_depth);
}
vec3 lightEnvironmentTap(vec2 uv, float level) {
  return textureLod(nodeEnvironmentMap, uv, level).rgb;
}
vec2 lightBrdfTap(vec2 uv) {
  return texture(nodeBrdfTable, uv).rg;
}
)";

Expected<std::string> fragmentShader(const NodeMaterial& m, const Layout& l) {
  std::string s = header(m, NodePipeline::kColor, "fragment");
  s += uniformBlock(m, 0);
  for (const NodeBinding& b : l.bindings) {
    if (b.kind == NodeBindingKind::kSampledTexture && b.group == NodeBindingGroup::kNode) {
      s += "layout(set = " + std::to_string(b.set) + ", binding = " + std::to_string(b.binding) +
           ") uniform sampler2D " + b.name + ";\n";
    }
  }
  s += "layout(set = " + std::to_string(kNodeMaterialSet) + ", binding = " + std::to_string(l.frame) +
       ", std140) uniform FrameBlock { FrameUniforms frame; };\n";
  s += "layout(set = " + std::to_string(kNodeMaterialSet) + ", binding = " + std::to_string(l.shadow) +
       ") uniform sampler2DShadow nodeShadowMap;\n";
  s += "layout(set = " + std::to_string(kNodeMaterialSet) + ", binding = " + std::to_string(l.environment) +
       ") uniform sampler2D nodeEnvironmentMap;\n";
  s += "layout(set = " + std::to_string(kNodeMaterialSet) + ", binding = " + std::to_string(l.brdf_table) +
       ") uniform sampler2D nodeBrdfTable;\n";
  s += "#include \"lighting.glsl\"\n";
  s += R"(
layout(location = 0) in vec3 inWorldPosition;
layout(location = 1) in vec3 inNormal;
layout(location = 2) in vec4 inTangent;
layout(location = 3) in vec2 inUv0;
layout(location = 4) in vec2 inUv1;

layout(location = 0) out vec4 outColor;
)";
  s += kLightingHooks;
  s += R"(
void main() {
  vec3 nodeWorldPosition = inWorldPosition;
  vec3 nodeDpdx = dFdx(inWorldPosition);
  vec3 nodeDpdy = dFdy(inWorldPosition);
  // As pbr.frag: Vulkan's window y grows downwards, so dpdy × dpdx faces the viewer (no back-face flip needed).
  vec3 nodeFlatNormal = normalize(cross(nodeDpdy, nodeDpdx));
  // Geometric normal: interpolated NORMAL, or flat from derivatives when the mesh has none (§3.7.2.1).
  vec3 nodeWorldNormal = (node.features & MSH_HAS_NORMALS) != 0u && dot(inNormal, inNormal) > 0.0 ? normalize(inNormal) : nodeFlatNormal;
  if (!gl_FrontFacing && (node.features & MSH_HAS_NORMALS) != 0u && dot(inNormal, inNormal) > 0.0)
    nodeWorldNormal = -nodeWorldNormal;  // double-sided: the back face's normal (§3.9.5)
  vec2 nodeUv0 = inUv0;
  vec2 nodeUv1 = inUv1;
  vec3 nodeViewDirection = normalize(frame.camera_position.xyz - inWorldPosition);
  vec4 nodePbrBaseColor = vec4(1.0);
  float nodePbrMetallic = 1.0;
  float nodePbrRoughness = 1.0;
  bool nodePbrNormalMapped = false;
  vec3 nodePbrNormalTexel = vec3(0.5, 0.5, 1.0);
  float nodePbrNormalScale = 1.0;
  vec2 nodePbrNormalUv = nodeUv0;
  vec3 nodePbrEmissive = vec3(0.0);
  bool nodePbrOccluded = false;
  float nodePbrOcclusion = 1.0;
  float nodePbrOcclusionStrength = 1.0;
)";
  Expected<std::string> blocks = emitBlocks(m, m.pbr_output, kNodeStageFragment);
  if (!blocks) return blocks.error();
  s += *blocks;
  s += kFragmentEpilogue;
  return s;
}

}  // namespace

Expected<NodeMaterialGlsl> generateNodeMaterialGlsl(const NodeMaterial& material) {
  if (material.pbr_output == kNone || material.pbr_output >= material.blocks.size()) {
    return fail(Error::kInvalidArgument, "node material: no PbrOutput block (use parseNodeMaterial)");
  }
  for (const NodeBlock& b : material.blocks) {
    if (!b.emitter)
      return fail(Error::kInvalidArgument,
                  "node material: block " + quote(b.id) + " has no emitter (use parseNodeMaterial)");
  }
  const Layout layout = bindingLayout(material);
  NodeMaterialGlsl out;
  out.bindings = layout.bindings;
  for (NodePipeline p : {NodePipeline::kDepth, NodePipeline::kShadow, NodePipeline::kColor}) {
    Expected<std::string> vs = vertexShader(material, layout, p);
    if (!vs) return vs.error();
    out.shaders[size_t(p)].vertex = std::move(*vs);
  }
  Expected<std::string> fs = fragmentShader(material, layout);
  if (!fs) return fs.error();
  out.shaders[size_t(NodePipeline::kColor)].fragment = std::move(*fs);
  return out;
}

namespace {

// shaderc's include callback: `#include "name"` resolves to the GLSL embedded at build time (shaders/morph.glsl,
// skin.glsl, render/render_shared.h, render/environment.glsl, tone.glsl, lighting.glsl; morphkit_glsl/shader_text.h),
// never to a file read at run time. An unknown name gets an empty source_name and the error text as content, which
// shaderc reports as the compile error.
shaderc_include_result* resolveInclude(void*, const char* requested, int, const char*, size_t) {
  auto* result = new shaderc_include_result{};
  for (const NodeShaderInclude& file : nodeShaderIncludes()) {
    if (std::strcmp(file.name, requested) == 0) {
      result->source_name = file.name;
      result->source_name_length = std::strlen(file.name);
      result->content = file.text;
      result->content_length = std::strlen(file.text);
      return result;
    }
  }
  static constexpr char kUnknown[] =
      "no such morphkit shader include (morph.glsl, skin.glsl, render_shared.h, environment.glsl, tone.glsl, "
      "lighting.glsl)";
  result->source_name = "";
  result->content = kUnknown;
  result->content_length = sizeof kUnknown - 1;
  return result;
}

void releaseInclude(void*, shaderc_include_result* result) {
  delete result;
}

}  // namespace

std::span<const NodeShaderInclude> nodeShaderIncludes() {
  static const auto files = [] {
    std::array<NodeShaderInclude, std::size(gpu::glsl::kIncludeFiles)> out{};
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = {gpu::glsl::kIncludeFiles[i].name, gpu::glsl::kIncludeFiles[i].text};
    return out;
  }();
  return files;
}

Expected<std::vector<uint32_t>> compileNodeGlsl(const std::string& glsl, uint32_t stage, const std::string& name) {
  shaderc_compiler_t compiler = shaderc_compiler_initialize();
  if (!compiler) return fail(Error::kOutOfMemory, name + ": shaderc_compiler_initialize failed");
  shaderc_compile_options_t options = shaderc_compile_options_initialize();
  shaderc_compile_options_set_target_env(options, shaderc_target_env_vulkan, shaderc_env_version_vulkan_1_2);
  // Unoptimized: the optimizer strips varyings a fragment shader does not read, and the validation layer then
  // reports every vertex output as "not consumed". Drivers optimize anyway.
  shaderc_compile_options_set_optimization_level(options, shaderc_optimization_level_zero);
  shaderc_compile_options_set_warnings_as_errors(options);
  shaderc_compile_options_set_include_callbacks(options, &resolveInclude, &releaseInclude, nullptr);
  const shaderc_shader_kind kind = stage == kNodeStageVertex ? shaderc_vertex_shader : shaderc_fragment_shader;
  shaderc_compilation_result_t result =
      shaderc_compile_into_spv(compiler, glsl.data(), glsl.size(), kind, name.c_str(), "main", options);
  Expected<std::vector<uint32_t>> out = std::vector<uint32_t>{};
  if (!result || shaderc_result_get_compilation_status(result) != shaderc_compilation_status_success) {
    std::string message = result ? shaderc_result_get_error_message(result) : "no result";
    while (!message.empty() && message.back() == '\n') message.pop_back();
    out = fail(Error::kInvalidArgument, name + ": GLSL does not compile: " + message);
  } else {
    const size_t bytes = shaderc_result_get_length(result);
    std::vector<uint32_t> words(bytes / 4);
    std::memcpy(words.data(), shaderc_result_get_bytes(result), words.size() * 4);
    out = std::move(words);
  }
  if (result) shaderc_result_release(result);
  shaderc_compile_options_release(options);
  shaderc_compiler_release(compiler);
  return out;
}

Expected<NodeMaterialPrograms> compileNodeMaterial(const NodeMaterial& material) {
  Expected<NodeMaterialGlsl> glsl = generateNodeMaterialGlsl(material);
  if (!glsl) return glsl.error();
  NodeMaterialPrograms programs;
  for (NodePipeline p : {NodePipeline::kDepth, NodePipeline::kShadow, NodePipeline::kColor}) {
    const NodeShaderText& text = glsl->shaders[size_t(p)];
    const std::string base =
        (material.name.empty() ? std::string("node material") : material.name) + " (" + nodePipelineName(p);
    Expected<std::vector<uint32_t>> vs = compileNodeGlsl(text.vertex, kNodeStageVertex, base + ", vertex)");
    if (!vs) return vs.error();
    programs.spirv[size_t(p)].vertex = std::move(*vs);
    if (!text.fragment.empty()) {
      Expected<std::vector<uint32_t>> fs = compileNodeGlsl(text.fragment, kNodeStageFragment, base + ", fragment)");
      if (!fs) return fs.error();
      programs.spirv[size_t(p)].fragment = std::move(*fs);
    }
  }
  programs.glsl = std::move(*glsl);
  return programs;
}

}  // namespace morphkit
