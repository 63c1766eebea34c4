// SPDX-License-Identifier: MIT
// Crowds (RenderOptions::crowd, `render --crowd N`): the copies deformed by the crowd kernel in one dispatch and
// drawn from its output render the image the per-instance batch path (one GpuMorphGroup instance per copy) renders of
// the same copies at the same places and times, within the render tests' path metric (mean |Δ| ≤ 0.5/255, ≤ 0.1 % of
// pixels off by > 8/255). layoutCrowd's grid, time offsets and bounds; the CLI's options and refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gltf_test_util.h"
#include "morphkit/core/animation.h"
#include "morphkit/demo/demo.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/model/files.h"
#include "morphkit/render/render.h"
#include "test_support.h"
#include "vk_test_support.h"

namespace morphkit {
namespace {

Asset crowdDemo(uint32_t vertices = 1500) {
  DemoOptions options;
  options.vertices = vertices;
  options.targets = 12;
  return test::validated(makeDemoAsset(options));
}

TEST(CrowdLayout, GridCentredSpacedAndTimed) {
  Bounds one;
  one.min = {-0.5f, 0.0f, -0.25f};
  one.max = {0.5f, 2.0f, 0.25f};
  const CrowdLayout linear = layoutCrowd(5, 0.0f, CrowdOffsets::kLinear, 2.0, one);
  ASSERT_EQ(linear.offsets.size(), 5u);
  EXPECT_FLOAT_EQ(linear.spacing, 1.25f);  // 1.25 × the larger of width 1 and depth 0.5
  // 3 columns × 2 rows about the origin.
  EXPECT_FLOAT_EQ(linear.offsets[0].x, -1.25f);
  EXPECT_FLOAT_EQ(linear.offsets[0].z, -0.625f);
  EXPECT_FLOAT_EQ(linear.offsets[2].x, 1.25f);
  EXPECT_FLOAT_EQ(linear.offsets[4].x, 0.0f);
  EXPECT_FLOAT_EQ(linear.offsets[4].z, 0.625f);
  for (uint32_t k = 0; k < 5; ++k) EXPECT_DOUBLE_EQ(linear.time_offsets[k], 2.0 * k / 5);
  EXPECT_FLOAT_EQ(linear.bounds.min.x, -1.75f);
  EXPECT_FLOAT_EQ(linear.bounds.max.x, 1.75f);
  EXPECT_FLOAT_EQ(linear.bounds.max.y, 2.0f);
  EXPECT_FLOAT_EQ(linear.bounds.min.z, -0.875f);

  const CrowdLayout random = layoutCrowd(200, 3.0f, CrowdOffsets::kRandom, 2.0, one);
  EXPECT_FLOAT_EQ(random.spacing, 3.0f);
  double low = 1e9, high = -1e9;
  for (double t : random.time_offsets) {
    low = std::min(low, t);
    high = std::max(high, t);
  }
  EXPECT_GE(low, 0.0);
  EXPECT_LT(high, 2.0);
  EXPECT_GT(high - low, 1.5) << "random offsets spread over the clip";
  EXPECT_EQ(layoutCrowd(200, 3.0f, CrowdOffsets::kRandom, 2.0, one).time_offsets, random.time_offsets);
  EXPECT_TRUE(layoutCrowd(3, 0, CrowdOffsets::kRandom, 0.0, one).time_offsets == std::vector<double>(3, 0.0));
  EXPECT_FALSE(parseCrowdOffsets("zigzag"));
}

class CrowdRenderTest : public test::VulkanTest {
 protected:
  RenderedImage render(const Asset& asset, RenderOptions options, const Bounds& bounds, double time) {
    options.width = options.height = 128;
    options.shadow_size = 256;
    options.morph_path = MorphPath::kCompute;
    auto renderer = createRenderer(*context_, asset, options);
    EXPECT_TRUE(renderer.ok()) << renderer.error().message;
    if (!renderer) return {};
    setRendererCamera(**renderer, frameBounds(bounds, 1.0f), bounds);
    RenderFrameInput input;
    input.animation = 0;
    input.time = time;
    auto image = renderFrame(**renderer, input);
    EXPECT_TRUE(image.ok()) << image.error().message;
    info_ = rendererInfo(**renderer);
    destroyRenderer(*renderer);
    return image ? *image : RenderedImage{};
  }
  RendererInfo info_;
};

TEST_F(CrowdRenderTest, CrowdKernelRenderEqualsTheCopiesPosedOneByOne) {
  MORPHKIT_REQUIRE_GPU(context_);
  const Asset asset = crowdDemo();
  const double duration = animationDuration(asset, 0);
  auto one = clipBounds(asset, kNone, 0);
  ASSERT_TRUE(one.ok());
  const CrowdLayout layout = layoutCrowd(4, 0.0f, CrowdOffsets::kRandom, duration, *one);
  RenderOptions options;
  options.instances = 4;
  options.instance_offsets = layout.offsets;
  options.instance_time_offsets = layout.time_offsets;
  options.instance_time_wrap = duration;
  options.crowd = true;
  const RenderedImage crowd = render(asset, options, layout.bounds, 0.3);
  EXPECT_EQ(info_.crowd, 4u);
  EXPECT_EQ(info_.path, MorphPath::kCompute);
  EXPECT_EQ(info_.draws, 4u);
  options.crowd = false;  // the same copies, one GpuMorphGroup instance each
  const RenderedImage batch = render(asset, options, layout.bounds, 0.3);
  EXPECT_EQ(info_.crowd, 0u);
  auto diff = diffImages({crowd.width, crowd.height, crowd.rgba}, {batch.width, batch.height, batch.rgba}, 8);
  ASSERT_TRUE(diff.ok()) << diff.error().message;
  EXPECT_LE(diff->mean_abs, 0.5);
  EXPECT_LE(diff->fraction_over, 0.001) << "max " << diff->max_abs;

  // The test can fail: the copies stand apart (all at the origin is another image), at their own times.
  options.crowd = true;
  options.instance_offsets.clear();
  const RenderedImage stacked = render(asset, options, layout.bounds, 0.3);
  auto moved = diffImages({crowd.width, crowd.height, crowd.rgba}, {stacked.width, stacked.height, stacked.rgba}, 8);
  ASSERT_TRUE(moved.ok());
  EXPECT_GT(moved->fraction_over, 0.02);
  options.instance_offsets = layout.offsets;
  options.instance_time_offsets.assign(4, 0.0);
  const RenderedImage in_step = render(asset, options, layout.bounds, 0.3);
  auto timed = diffImages({crowd.width, crowd.height, crowd.rgba}, {in_step.width, in_step.height, in_step.rgba}, 8);
  ASSERT_TRUE(timed.ok());
  EXPECT_GT(timed->fraction_over, 0.001) << "the time offsets change the copies' poses";
}

TEST_F(CrowdRenderTest, ACrowdTooLargeForTheDeviceIsRefusedWithTheBytes) {
  MORPHKIT_REQUIRE_GPU(context_);
  const Asset asset = crowdDemo(20000);
  RenderOptions options;
  options.instances = 100000;  // 100000 × 20000 vertices: far more than lavapipe's (or an H200's) memory
  options.crowd = true;
  options.morph_path = MorphPath::kCompute;
  auto renderer = createRenderer(*context_, asset, options);
  ASSERT_FALSE(renderer.ok());
  EXPECT_EQ(renderer.error().code, Error::kTooLarge);
  EXPECT_NE(renderer.error().message.find("crowd of 100000"), std::string::npos) << renderer.error().message;
  EXPECT_NE(renderer.error().message.find(" bytes"), std::string::npos) << renderer.error().message;
  options.morph_path = MorphPath::kVertex;
  options.instances = 2;
  EXPECT_FALSE(createRenderer(*context_, asset, options).ok());
}

TEST(CrowdCommand, RendersACrowdAndRefusesBadCrowds) {
  MORPHKIT_REQUIRE_GPU_DEVICE();
  auto dir = test::scratchDir();
  auto asset = makeDemoAsset([] {
    DemoOptions o;
    o.vertices = 800;
    o.targets = 8;
    return o;
  }());
  ASSERT_TRUE(asset.ok());
  auto glb = writeGlb(*asset);
  ASSERT_TRUE(glb.ok());
  ASSERT_TRUE(writeFileAtomic(dir / "demo.glb", std::span<const uint8_t>(*glb)).ok());
  test::CliRun run = test::runMorphkit(
      dir, "render demo.glb --crowd 4 --crowd-offsets linear --frames 0:2 --size 64x48 --out c --no-video --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("\"crowd\":4"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\"draws\":4"), std::string::npos) << run.out;
  EXPECT_TRUE(std::filesystem::exists(dir / "c/frame_0001.png"));
  test::CliRun text = test::runMorphkit(dir, "render demo.glb --crowd 3 --frames 0:1 --size 32x32 --out t");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("a crowd of 3"), std::string::npos) << text.out;
  for (const char* bad :
       {"--crowd 0", "--crowd 100001", "--crowd 2 --morph-path vertex", "--crowd 2 --crowd-offsets zigzag",
        "--crowd 2 --crowd-spacing -1", "--crowd 2 --crowd-spacing nan"}) {
    test::CliRun refused = test::runMorphkit(dir, std::string("render demo.glb --out bad ") + bad);
    EXPECT_EQ(refused.exit_code, 2) << bad << ": " << refused.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "bad")) << bad;
  }
}

}  // namespace
}  // namespace morphkit
