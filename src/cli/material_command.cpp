// SPDX-License-Identifier: MIT
// `morphkit material GRAPH.json [--out DIR]` — checks a node material graph (docs/NODE_MATERIALS.md): parses it,
// compiles GLSL and SPIR-V for the depth, shadow and color pipelines, and prints the installed features and the
// binding list. With --out, writes <pipeline>.vert / .frag GLSL and .spv files there, with the files they #include.
#if HAVE_morphkit_material
#include <fmt/core.h>

#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include "command.h"
#include "morphkit/material/node_material.h"
#include "morphkit/model/files.h"

namespace morphkit::cli {
namespace {

struct MaterialCommandOptions {
  std::string file;
  std::string out;
};

int runMaterial(const MaterialCommandOptions& o) {
  Expected<NodeMaterial> material = loadNodeMaterial(o.file);
  if (!material) return reportError(material.error().message);
  Expected<NodeMaterialPrograms> programs = compileNodeMaterial(*material);
  if (!programs) return reportFailure(o.file, programs.error());
  fmt::print("{}: {}, {} blocks, {} uniforms, {} textures\n", shown(o.file, 1024), quote(material->name),
             material->blocks.size(), material->uniforms.size(), material->textures.size());
  std::string features;
  for (const char* f : {"morph", "skin"}) {
    if (nodeFeatureInstalled(material->state, f)) features += std::string(features.empty() ? "" : ", ") + f;
  }
  fmt::print("features: {}\n", features.empty() ? "none" : features);
  fmt::print("bindings (set {}):\n", kNodeMaterialSet);
  for (const NodeBinding& b : programs->glsl.bindings) {
    fmt::print("  {:2}  {:<18} {:<16} {}{}{}\n", b.binding, printable(b.name), nodeBindingKindName(b.kind),
               (b.stages & kNodeStageVertex) ? "V" : "", (b.stages & kNodeStageFragment) ? "F" : "",
               b.feature.empty() ? "" : "  (" + printable(b.feature) + ")");
  }
  if (o.out.empty()) return 0;
  std::error_code ec;
  std::filesystem::create_directories(o.out, ec);
  for (NodePipeline p : {NodePipeline::kDepth, NodePipeline::kShadow, NodePipeline::kColor}) {
    const std::filesystem::path base = std::filesystem::path(o.out) / nodePipelineName(p);
    const NodeShaderText& text = programs->glsl.shaders[size_t(p)];
    const NodeSpirv& spirv = programs->spirv[size_t(p)];
    auto words = [](const std::vector<uint32_t>& w) {
      return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(w.data()), w.size() * 4);
    };
    Status s = writeFileAtomic(base.string() + ".vert", text.vertex);
    if (s) s = writeFileAtomic(base.string() + ".vert.spv", words(spirv.vertex));
    if (s && !text.fragment.empty()) s = writeFileAtomic(base.string() + ".frag", text.fragment);
    if (s && !spirv.fragment.empty()) s = writeFileAtomic(base.string() + ".frag.spv", words(spirv.fragment));
    if (!s) return reportFailure(base, s.error());
  }
  // The files the shaders #include, so `glslc -I DIR` (or glslc in DIR) compiles them as written.
  for (const NodeShaderInclude& file : nodeShaderIncludes()) {
    const std::filesystem::path path = std::filesystem::path(o.out) / file.name;
    if (Status s = writeFileAtomic(path, std::string_view(file.text)); !s) return reportFailure(path, s.error());
  }
  fmt::print("wrote {}\n", shown(o.out, 1024));
  return 0;
}

const CommandRegistration kMaterialCommand(
    {47, [](CLI::App& app, int& exit_code) {
       auto options = std::make_shared<MaterialCommandOptions>();
       CLI::App* sub = app.add_subcommand("material", "Check a node material graph: compile it and list its bindings");
       sub->add_option("GRAPH", options->file, "a node material .json (docs/NODE_MATERIALS.md)")->required();
       sub->add_option("-o,--out", options->out, "write the GLSL and SPIR-V of every pipeline into this folder");
       sub->callback([options, &exit_code] { exit_code = runMaterial(*options); });
     }});

}  // namespace
}  // namespace morphkit::cli
#endif
