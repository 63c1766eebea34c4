// SPDX-License-Identifier: MIT
// The glTF document's JSON → the Asset's fields (parser.cpp), the step of the load flow (loader.cpp) between the
// simdjson DOM and the buffers' resolution.
#pragma once

#include <string_view>
#include <vector>

#include "compression.h"
#include "gltf_fields.h"

namespace morphkit::gltf_detail {

// Fills `asset` from the document's root object, checking JSON types and required fields only (validate.cpp holds
// every cross-object rule), and `compressed` with the compressed-geometry descriptions. `data_uris`: per buffer,
// its data: URI as a view into the DOM (empty for other buffers), valid while the DOM lives.
Status parseDocument(object root, Asset& asset, CompressedData& compressed, std::vector<std::string_view>& data_uris);

}  // namespace morphkit::gltf_detail
