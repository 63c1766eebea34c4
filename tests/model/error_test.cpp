// SPDX-License-Identifier: MIT
// morphkit/model/error.h: Expected<T> misuse terminates with the message in every build type, never throws.
#include "morphkit/model/error.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace morphkit {
namespace {

TEST(Expected, ValueAndErrorWhenUsedAsDocumented) {
  Expected<int> good = 7;
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(good.value(), 7);
  EXPECT_EQ(*good, 7);
  Expected<std::string> bad = fail(Error::kInvalidGltf, "accessors[3]: count is 0");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, Error::kInvalidGltf);
  EXPECT_EQ(bad.error().message, "accessors[3]: count is 0");
}

TEST(ExpectedDeathTest, ValueOnAnErrorAbortsWithTheMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Expected<int> bad = fail(Error::kInvalidGltf, "accessors[3]: count is 0");
  EXPECT_DEATH((void)bad.value(),
               "morphkit: fatal: value\\(\\) on an error: invalid_gltf: accessors\\[3\\]: count is 0");
  const Expected<int>& cbad = bad;
  EXPECT_DEATH((void)cbad.value(), "invalid_gltf: accessors\\[3\\]");
  EXPECT_DEATH((void)std::move(bad).value(), "invalid_gltf: accessors\\[3\\]");
  Expected<std::string> bad_string = fail(Error::kIo, "out.json: disk full");
  EXPECT_DEATH((void)bad_string->size(), "io: out.json: disk full");
}

TEST(ExpectedDeathTest, ErrorOnAValueAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Expected<int> good = 7;
  EXPECT_DEATH((void)good.error(), "morphkit: fatal: error\\(\\) on a value");
}

// No exception escapes: the death is an abort (SIGABRT), not std::terminate from an uncaught bad_variant_access
// (which would print "terminate called after throwing").
TEST(ExpectedDeathTest, NoExceptionIsThrown) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Status bad = fail(Error::kNoDevice, "no Vulkan device");
  EXPECT_EXIT(
      {
        try {
          (void)bad.value();
        } catch (...) {
          std::fputs("caught an exception\n", stderr);
          std::exit(0);
        }
      },
      ::testing::KilledBySignal(SIGABRT), "no_device: no Vulkan device");
}

}  // namespace
}  // namespace morphkit
