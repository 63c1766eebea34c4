// SPDX-License-Identifier: MIT
// morphkit/vk/gpu.h — the Vulkan compute path: morph targets + skinning on the GPU, many instances per dispatch.
//
// Vulkan stays out of this header: the library hands out typed handles (VulkanContext, GpuPrimitive,
// GpuMorphGroup), each created by a createX/uploadX function and destroyed by its destroyX; the caller owns them
// and destroys children before the context. An engine that owns its Vulkan device, records into its own command
// buffers and draws the output: morphkit/vk/gpu_interop.h (docs/ENGINE_INTEROP.md).
// Nothing here throws; failures come back as Expected/Status:
//   kNoDevice     no usable Vulkan device ("no Vulkan device (install mesa-vulkan-drivers for a CPU implementation)")
//   kOutOfMemory  VK_ERROR_OUT_OF_HOST_MEMORY / VK_ERROR_OUT_OF_DEVICE_MEMORY, or a buffer above the device's limits
//   kDeviceLost   VK_ERROR_DEVICE_LOST
//   kVulkan       any other failing call; the message keeps the VkResult name ("vkCreateDevice: VK_ERROR_...")
//
// The kernel (shaders/morph.comp) follows the order of morphkit/core/deform.h exactly: morph (glTF 2.0 §3.7.2.2),
// then skin (§3.7.3) or the node's rigid transform, then renormalize normals and tangents. Results match the
// CPU reference MorphSkinJob to float precision (tests/vk/vk_morph_test.cpp states the tolerances).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "morphkit/model/error.h"
#include "morphkit/model/math.h"
#include "morphkit/model/primitive.h"
#include "morphkit/pack/packed_deltas.h"

namespace morphkit {

struct VulkanContext;  // instance, device, compute queue, pipelines (src/vk/vk_context.h)
struct GpuPrimitive;   // one primitive's static data on the device (vertices, deltas, skin stream)
struct GpuMorphGroup;  // instances of primitives deformed by one dispatch, with their outputs

// ---- Context ----
enum class GpuDeviceType : uint8_t { kOther, kIntegrated, kDiscrete, kVirtual, kCpu };
const char* gpuDeviceTypeName(GpuDeviceType type);  // "discrete", "integrated", "virtual", "cpu", "other"

struct GpuContextOptions {
  // Enables VK_LAYER_KHRONOS_validation (with synchronization validation) and records every warning and
  // error it reports. Also on when the environment has MORPHKIT_VALIDATION=1. Fails when the layer is missing.
  bool validation = false;
  // -1: the best device (discrete > integrated > virtual > CPU, then enumeration order); else the index in
  // vkEnumeratePhysicalDevices order. Devices need Vulkan 1.2, bufferDeviceAddress and shaderInt64.
  int device_index = -1;
  // Benchmarks: compute pipelines capture the driver's statistics (registers per invocation, `bench`'s `regs`
  // column) where the device offers VK_KHR_pipeline_executable_properties. Off by default.
  bool pipeline_statistics = false;
};

struct GpuDeviceInfo {
  std::string name;
  GpuDeviceType type = GpuDeviceType::kOther;
  uint32_t index = 0;                 // in vkEnumeratePhysicalDevices order
  uint32_t api_version = 0;           // VK_MAKE_API_VERSION encoding
  std::string driver;                 // driverName + driverInfo
  bool storage_16bit = false;         // storageBuffer16BitAccess: f16 deltas are read as float16_t
  bool timestamps = false;            // the compute queue supports timestamp queries
  double timestamp_period_ns = 0.0;   // nanoseconds per timestamp tick
  uint64_t device_local_bytes = 0;    // the largest DEVICE_LOCAL heap
  uint64_t max_allocation_bytes = 0;  // maxMemoryAllocationSize (one buffer is one allocation)
  bool validation = false;            // the validation layer is on
};

Expected<VulkanContext*> createVulkanContext(const GpuContextOptions& options = {});
// Destroys the context (null is fine). `final_messages`, when given, receives the validation messages
// recorded until the very end (vkDestroyDevice reports objects still alive there).
void destroyVulkanContext(VulkanContext* context, std::vector<std::string>* final_messages = nullptr);
const GpuDeviceInfo& gpuDeviceInfo(const VulkanContext& context);

// Warnings and errors the validation layer (and loader) reported since creation or the last clear,
// one line each: "[validation error] VUID-...: ...". Always empty without validation.
std::vector<std::string> gpuValidationMessages(const VulkanContext& context);
void clearGpuValidationMessages(VulkanContext& context);

// ---- Primitives ----
struct GpuUploadOptions {
  std::optional<DeltaLayout> layout;  // forced layout; default: chooseDeltaLayout(primitive, sparse_ratio)
  double sparse_ratio = 0.5;
};

struct GpuPrimitiveInfo {
  DeltaLayout layout = DeltaLayout::kDenseF32;
  VertexFormat vertex;  // of the base and the output vertices
  DeltaFormat delta;
  uint32_t vertex_count = 0, target_count = 0;
  uint32_t influence_sets = 0;
  uint32_t joints_needed = 0;  // a skinned instance must pass at least this many joint matrices
  uint64_t delta_bytes = 0;  // bytes of the delta buffer(s) on the device (sparse: the sliced records and tile offsets)
  uint64_t record_count = 0;   // delta records stored (see PackedDeltas)
  float pivot[3] = {0, 0, 0};  // centre of the base positions' bounding box: the shader transforms p − pivot
};

// Packs (packed_deltas.h) and uploads one primitive. A primitive without targets is fine (skin/transform only).
Expected<GpuPrimitive*> uploadGpuPrimitive(VulkanContext& context, const PrimitiveData& primitive,
                                           const GpuUploadOptions& options = {});
void destroyGpuPrimitive(VulkanContext& context, GpuPrimitive* primitive);  // null is fine
const GpuPrimitiveInfo& gpuPrimitiveInfo(const GpuPrimitive& primitive);

// ---- Groups ----
// One instance: a primitive and its skinning. All instances of a group run in one vkCmdDispatch.
struct GpuInstanceDesc {
  const GpuPrimitive* primitive = nullptr;
  bool skinned = false;      // joint matrices drive it (needs JOINTS/WEIGHTS); else rigid by `world`
  uint32_t joint_count = 0;  // skinned: matrices per frame (>= gpuPrimitiveInfo().joints_needed)
};

Expected<GpuMorphGroup*> createGpuMorphGroup(VulkanContext& context, std::span<const GpuInstanceDesc> instances);
void destroyGpuMorphGroup(VulkanContext& context, GpuMorphGroup* group);  // null is fine

// One instance's state for a frame.
// Matrices in double (scene.h composes them so): run() splits each into a float part relative to an origin and
// the origin itself as two floats (docs/LAYOUTS.md §5), which keeps 1e-5 of a small primitive far from 0.
struct GpuInstanceState {
  std::span<const float> weights;         // exactly target_count morph weights
  std::span<const DMat4> joint_matrices;  // skinned: joint_count matrices world(joint)·IBM; else empty
  DMat4 world;                            // rigid instances: the node's world matrix
};

// Deforms every instance of `group` (ozz-style job: validate() then run()). The CPU builds each
// instance's active-target list (|w| > epsilon) and writes only the weights, list entries and matrices
// that changed since the previous run. Synchronous: run() returns after the GPU finished.
struct GpuMorphJob {
  VulkanContext* context = nullptr;
  GpuMorphGroup* group = nullptr;
  std::span<const GpuInstanceState> instances;  // one per group instance, in createGpuMorphGroup order
  float epsilon = 0.0f;                         // targets with |w| <= epsilon are skipped

  bool validate() const;  // sizes, spans, matrices count, epsilon >= 0
  Status run() const;     // validates first (kInvalidArgument)
};

// GPU time of the last run's dispatch, from timestamp queries (NaN without timestamp support).
double lastDispatchMicroseconds(const GpuMorphGroup& group);
// Active targets of an instance in the last run (the list length the kernel walked).
uint32_t lastActiveCount(const GpuMorphGroup& group, uint32_t instance);

// Reads one instance's deformed vertices back: interleaved, gpuPrimitiveInfo().vertex format.
Expected<std::vector<float>> readGpuMorphGroupOutput(VulkanContext& context, const GpuMorphGroup& group,
                                                     uint32_t instance);
// Same, unpacked into the position/normal/tangent/texcoords/colors fields of a PrimitiveData.
Expected<PrimitiveData> readGpuMorphGroupVertices(VulkanContext& context, const GpuMorphGroup& group,
                                                  uint32_t instance);

}  // namespace morphkit
