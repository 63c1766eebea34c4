// SPDX-License-Identifier: MIT
// morphkit/model/runtimes.h — which glTF extensions each runtime decodes, one row per (runtime, extension), each
// with the source it was read in (docs/CHECK.md, "Decoders"). The one table: `optimize --for ENGINE` writes only
// what the runtime decodes, and `check` reports an extension a runtime cannot decode as a hazard. It lives in the
// model layer, below both optimize and check, beside the extension registry (extensions.h).
#pragma once
#include <cstdint>
#include <span>
#include <string_view>

namespace morphkit {

enum class Decodes : uint8_t {
  kYes,      // the runtime's loader decodes it (maybe after the application registers a decoder: `how` says)
  kNo,       // it does not: a file that requires it fails or shows wrong, one that only uses it shows its fallback
  kUnknown,  // not read: optimize --for does not write it, check says nothing
};

struct RuntimeDecoder {
  std::string_view extension;
  Decodes decodes = Decodes::kUnknown;
  std::string_view how;     // one line: what the runtime does with it ("gltfio decodes it with meshoptimizer")
  std::string_view source;  // where it was read: repository path @commit or version
  bool verified = true;     // false: not confirmed in that source (docs/CHECK.md says why)
  // What the user sees when a file requires it and the runtime cannot decode it; empty: missingDecoderEffect's.
  std::string_view when_required = {};
  // The same when the file only uses it (it carries a fallback); empty: the fallback is shown.
  std::string_view when_used = {};
};

struct Runtime {
  std::string_view name;    // the --for / --engines spelling: three, babylon, filament, godot, bevy, playcanvas, univrm
  std::string_view engine;  // the runtime the rows describe, in words
  std::span<const RuntimeDecoder> decoders;
};

// Every runtime, in --for order.
std::span<const Runtime> runtimes();
// nullptr when no runtime has that name.
const Runtime* findRuntime(std::string_view name);
// "three, babylon, filament, godot, bevy, playcanvas, univrm": the known names, for usage errors.
std::string_view runtimeNames();
// The runtime's row for `extension`, or nullptr (then it decodes kUnknown).
const RuntimeDecoder* findRuntimeDecoder(const Runtime& runtime, std::string_view extension);
Decodes runtimeDecodes(const Runtime& runtime, std::string_view extension);
// What a user of a runtime that cannot decode `extension` sees, one clause: the file requires it (nothing to fall
// back on) or only uses it (the fallback data is shown). The row's when_required / when_used win where set.
std::string_view missingDecoderEffect(const RuntimeDecoder& row, bool required);

}  // namespace morphkit
