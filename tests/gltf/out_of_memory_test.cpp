// SPDX-License-Identifier: MIT
// Allocation failure is a value, never an abort (issue 9, class 1): the library's entry points that allocate in
// proportion to a file turn std::bad_alloc into Error::kOutOfMemory, which the CLI prints as one line, exit 1.
//
// ASan's own operator new never throws (it reports and dies), so this binary replaces the global operator
// new/delete with a malloc-based pair that throws std::bad_alloc above an armed size: the situation of a nearly
// full machine, made repeatable. malloc and free stay ASan's, so memory errors are still caught.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>

#include "gltf_test_util.h"
#include "morphkit/core/pose.h"
#include "morphkit/gltf/gltf.h"

namespace {
std::atomic<size_t> g_fail_above{SIZE_MAX};

// Fails every allocation above `bytes` while alive.
struct FailAllocationsAbove {
  explicit FailAllocationsAbove(size_t bytes) { g_fail_above = bytes; }
  ~FailAllocationsAbove() { g_fail_above = SIZE_MAX; }
};
}  // namespace

// Every non-aligned form goes through malloc/free (so pairs always match); only the throwing forms fail.
// simdjson allocates with the nothrow forms and reports failure itself: those are left unlimited.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(size_t size) {
  if (size > g_fail_above.load()) throw std::bad_alloc();
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t size) {
  return operator new(size);
}
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  return std::malloc(size ? size : 1);
}
void* operator new[](size_t size, const std::nothrow_t&) noexcept {
  return std::malloc(size ? size : 1);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}

namespace morphkit {
namespace {

// One primitive over a 16 MiB all-zero POSITION accessor: loading allocates little, posing 16 MiB at once.
std::string bigPrimitive() {
  return test::gltfJson(
      "\"accessors\":[{\"componentType\":5126,\"count\":1398101,\"type\":\"VEC3\"}],"
      "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],\"nodes\":[{\"mesh\":0}],"
      "\"scenes\":[{\"nodes\":[0]}]");
}

TEST(OutOfMemory, PreparingAndPosingReportKOutOfMemory) {
  Expected<Asset> asset = test::loadJson(bigPrimitive());
  ASSERT_LOADED(asset);
  {
    FailAllocationsAbove limit(8 << 20);
    EXPECT_FAILURE(preparePose(*asset), Error::kOutOfMemory, "preparing the pose: out of memory");
  }
  Expected<PosePrepared> prepared = preparePose(*asset);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  {
    FailAllocationsAbove limit(8 << 20);
    EXPECT_FAILURE(evaluatePose(*prepared, PoseOptions{}), Error::kOutOfMemory, "posing: out of memory");
  }
  EXPECT_TRUE(evaluatePose(*prepared, PoseOptions{}).ok());
}

TEST(OutOfMemory, LoadingReportsKOutOfMemory) {
  std::vector<uint8_t> payload(12 << 20, 7);
  std::string json = test::gltfJson("\"buffers\":[" + test::bufferJson(payload) + "]");
  FailAllocationsAbove limit(10 << 20);  // simdjson allocates with nothrow new (not limited); 12 MiB decoded do not fit
  EXPECT_FAILURE(test::loadJson(json), Error::kOutOfMemory, "loading: out of memory");
}

TEST(OutOfMemory, CatchOutOfMemoryTurnsLengthErrorsIntoFailures) {
  Status status = catchOutOfMemory("sizing", []() -> Status { throw std::length_error("vector::reserve"); });
  EXPECT_FAILURE(status, Error::kOutOfMemory, "sizing: out of memory");
}

}  // namespace
}  // namespace morphkit
