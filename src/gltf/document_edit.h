// SPDX-License-Identifier: MIT
// The glTF writer's document edit (document_edit.cpp): what glb_writer.cpp calls. Private to morphkit::gltf.
#pragma once
#include <string>
#include <string_view>

#include "json_tree.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/model/asset.h"

namespace morphkit::gltf_detail {

// The input document with the Asset's data written into it: the Asset owns the binary data and every field that
// points into it (buffers, bufferViews, accessors, primitives' accessors, skins, animation channels and samplers,
// images' storage); objects it appended are written whole; what the source lacks comes from `fresh`; everything
// else is the input's JSON as it was.
JsonTree mergeIntoSource(JsonTree source, const JsonTree& fresh);

// What the writer keeps of a loaded document (Asset::source_json): the JSON text as read with the `uri` strings of
// buffers[] and images[] emptied (""). mergeIntoSource takes buffers whole and images' uri from the Asset, so those
// strings never reach an output; for a .gltf with data: URIs they are nearly all of its text (issue 56). `json` is
// text simdjson accepted (the loader parsed it first): it is walked, not checked; everything else is copied as is.
std::string writerSourceJson(std::string_view json);

// extensionsUsed / extensionsRequired of `document`: exactly the extensions it holds (morphkit/gltf/glb_writer.h).
void declareExtensions(JsonTree& document, const Asset& asset);

}  // namespace morphkit::gltf_detail
