// SPDX-License-Identifier: MIT
// `morphkit view`'s HTTP server (docs/VIEW.md "Security"): Debian's cpp-httplib on 127.0.0.1 only; every URL starts
// with /TOKEN/ (128 random bits in hex, printed on the command line as Jupyter does); the routes are a fixed list of
// the page's files and the named asset's data; anything else (another token, another path, a client not on the
// loopback, a Host header that is not 127.0.0.1/localhost, a method other than GET) is a 403 with an empty body.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "morphkit/core/pose.h"
#include "morphkit/core/weights.h"
#include "morphkit/model/error.h"
#include "view_payload.h"

namespace morphkit::cli {

struct ViewContent {
  const Asset* asset = nullptr;  // the frame query's names resolve against it, as --weights's do
  const PosePrepared* prepared = nullptr;
  ViewPayload payload;
  const WeightTrack* capture = nullptr;  // --capture / --weights-csv, or none
  NameMatch match = NameMatch::kExact;   // how override and track names meet the target names
};

// 32 hex digits from std::random_device.
std::string newViewToken();

// Binds 127.0.0.1:`port` (0: any free port), calls `listening(port)` once bound, then serves until SIGINT or SIGTERM.
// Fails when the port cannot be bound or the tool was built without cpp-httplib.
Status serveView(const ViewContent& content, const std::string& token, int port,
                 const std::function<void(int)>& listening);

}  // namespace morphkit::cli
