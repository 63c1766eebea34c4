// SPDX-License-Identifier: MIT
// libFuzzer main of the batch job harness (body and contract: harness_batch_job.h).
#include "harness_batch_job.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return morphkit::fuzz::batchJob(data, size);
}
