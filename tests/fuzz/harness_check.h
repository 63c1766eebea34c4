// SPDX-License-Identifier: MIT
// The `check` harness body (contract: harnesses.h), apart because morphkit/check/check.h belongs to the check layer,
// which the glTF harnesses do not link.
#pragma once
#include <cstdint>

#include "harnesses.h"
#include "morphkit/check/check.h"

namespace morphkit::fuzz {

// What `morphkit check FILE` reads is a glTF file (the engine profiles are built-in data, chosen by name): the file
// loaded, then every engine profile's pose compared with the glTF pose at 3 times per animation (rule selection,
// the posed differences, the report), and the report written as JSON.
inline int check(const uint8_t* data, size_t size) {
  Expected<Asset> asset = load(data, size);
  if (!asset) return 0;
  CheckOptions options;
  options.times = 3;
  Expected<CheckReport> report = checkAsset(*asset, options);
  if (report) (void)checkReportJson(*report);
  return 0;
}

}  // namespace morphkit::fuzz
