// SPDX-License-Identifier: MIT
#include "morphkit/model/error.h"

#include <cstdio>
#include <cstdlib>

#include "morphkit/model/contract.h"

namespace morphkit {

void terminateOnMisuse(const Failure* failure) noexcept {
  // stdio, not iostream: this runs in a failing program and must not allocate more than it has to.
  if (failure) {
    std::fprintf(stderr, "morphkit: fatal: value() on an error: %s: %s\n", errorName(failure->code),
                 failure->message.c_str());
  } else {
    std::fprintf(stderr, "morphkit: fatal: error() on a value\n");
  }
  std::fflush(stderr);
  std::abort();
}

void contractViolated(const char* condition, const char* file, int line) {
  std::fprintf(stderr,
               "morphkit: internal error: precondition '%s' failed at %s:%d (an Asset that did not pass "
               "validateAsset?)\n",
               condition, file, line);
  std::fflush(stderr);
  std::abort();
}

}  // namespace morphkit
