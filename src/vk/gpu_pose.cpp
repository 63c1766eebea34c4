// SPDX-License-Identifier: MIT
// poseAssetGpu: CPU animation + scene evaluation (as in src/core/pose.cpp), GPU deformation.
#include "morphkit/vk/gpu_pose.h"

#include <string>
#include <utility>

#include "gpu_internal.h"
#include "gpu_pose_internal.h"
#include "morphkit/core/scene.h"
#include "morphkit/vk/gpu_interop.h"

namespace morphkit {

Expected<GpuPose*> prepareGpuPose(VulkanContext& context, const PosePrepared& prepared,
                                  const GpuUploadOptions& upload) {
  if (!prepared.asset) return fail(Error::kInvalidArgument, "prepareGpuPose: not prepared");
  const Asset& asset = *prepared.asset;
  auto* pose = new GpuPose();
  pose->prepared = &prepared;
  for (const PrimitiveData& data : prepared.primitives) {
    Expected<GpuPrimitive*> p = uploadGpuPrimitive(context, data, upload);
    if (!p) {
      destroyGpuPose(context, pose);
      return p.error();
    }
    pose->primitives.push_back(*p);
  }
  std::vector<GpuInstanceDesc> descs;
  for (const PosePrepared::Instance& inst : prepared.instances) {
    GpuInstanceDesc d;
    d.primitive = pose->primitives[inst.data];
    d.skinned = inst.skinned;  // decided once by preparePose, as for the CPU pose
    d.joint_count = d.skinned ? uint32_t(asset.skins[asset.nodes[inst.node].skin].joints.size()) : 0;
    descs.push_back(d);
  }
  Expected<GpuMorphGroup*> group = createGpuMorphGroup(context, descs);
  if (!group) {
    destroyGpuPose(context, pose);
    return group.error();
  }
  pose->group = *group;
  return pose;
}

void destroyGpuPose(VulkanContext& context, GpuPose* pose) {
  if (!pose) return;
  destroyGpuMorphGroup(context, pose->group);
  for (GpuPrimitive* p : pose->primitives) destroyGpuPrimitive(context, p);
  delete pose;
}

double lastGpuPoseMicroseconds(const GpuPose& pose) {
  return pose.group ? lastDispatchMicroseconds(*pose.group) : 0.0;
}

Status evaluatePoseFrame(const GpuPose& pose, const GpuPoseOptions& options, PoseFrame& frame) {
  if (Status s = evaluateFrame(*pose.prepared, options, frame.core); !s) return s;
  frame.states.resize(frame.core.instances.size());
  for (size_t i = 0; i < frame.states.size(); ++i) {
    const InstanceFrame& instance = frame.core.instances[i];
    frame.states[i].weights = instance.weights;
    frame.states[i].joint_matrices = instance.joint_matrices;
    frame.states[i].world = instance.world;
  }
  return Ok{};
}

Status assembleGpuPose(const GpuPose& pose, const GpuPoseOptions& options, const PoseFrame& frame,
                       const std::function<const float*(size_t instance)>& vertices, PoseResult& result) {
  const PosePrepared& prepared = *pose.prepared;
  result.scene = prepared.scene;
  result.animation = options.animation;
  result.time = options.time;
  result.meshes.resize(prepared.instances.size());
  PrimitiveData unpacked;  // holds the output's vectors while they are filled: their capacity is reused
  for (size_t i = 0; i < prepared.instances.size(); ++i) {
    const PosePrepared::Instance& inst = prepared.instances[i];
    const PrimitiveData& data = prepared.primitives[inst.data];
    PosedPrimitive& out = result.meshes[i];
    out.node = inst.node;
    out.mesh = inst.mesh;
    out.primitive = inst.primitive;
    out.skinned = inst.skinned;
    out.vertex_count = data.vertex_count;
    out.weights.assign(frame.core.instances[i].weights.begin(), frame.core.instances[i].weights.end());
    std::swap(unpacked.position, out.positions);
    std::swap(unpacked.normal, out.normals);
    std::swap(unpacked.tangent, out.tangents);
    std::swap(unpacked.texcoords, out.texcoords);
    std::swap(unpacked.colors, out.colors);
    unpackVertices(pose.primitives[inst.data]->info.vertex, data.vertex_count, vertices(i), unpacked);
    std::swap(unpacked.position, out.positions);
    std::swap(unpacked.normal, out.normals);
    std::swap(unpacked.tangent, out.tangents);
    std::swap(unpacked.texcoords, out.texcoords);
    std::swap(unpacked.colors, out.colors);
    out.indices.assign(data.indices.begin(), data.indices.end());
    out.mode = data.mode;
  }
  return checkPoseFinite(result);  // the CPU path's rule
}

Expected<PoseResult> evaluateGpuPose(VulkanContext& context, GpuPose& pose, const GpuPoseOptions& options) {
  PoseFrame frame;
  if (Status s = evaluatePoseFrame(pose, options, frame); !s) return s.error();
  GpuMorphJob job;
  job.context = &context;
  job.group = pose.group;
  job.instances = frame.states;
  job.epsilon = options.epsilon;
  if (Status s = job.run(); !s) return s.error();
  std::vector<float> raw(size_t(gpuMorphGroupOutputBytes(*pose.group) / 4));  // one download for every instance
  if (Status s = downloadFromBuffer(context, gpuMorphGroupBuffer(*pose.group), 0, raw.data(), raw.size() * 4); !s)
    return s.error();
  PoseResult result;
  const Status assembled = assembleGpuPose(
      pose, options, frame,
      [&](size_t i) { return raw.data() + gpuMorphGroupOutput(*pose.group, uint32_t(i))->offset / 4; }, result);
  if (!assembled) return assembled.error();
  return result;
}

Expected<PoseResult> poseAssetGpu(VulkanContext& context, const Asset& asset, uint32_t scene,
                                  const GpuPoseOptions& options, const GpuUploadOptions& upload) {
  Expected<PosePrepared> prepared = preparePose(asset, scene);
  if (!prepared) return prepared.error();
  Expected<GpuPose*> pose = prepareGpuPose(context, *prepared, upload);
  if (!pose) return pose.error();
  Expected<PoseResult> result = evaluateGpuPose(context, **pose, options);
  destroyGpuPose(context, *pose);
  return result;
}

Status recordGpuPose(VulkanContext& context, GpuPose& pose, const GpuPoseOptions& options, VkCommandBuffer cmd) {
  PoseFrame frame;
  if (Status s = evaluatePoseFrame(pose, options, frame); !s) return s;
  GpuMorphJob job;
  job.context = &context;
  job.group = pose.group;
  job.instances = frame.states;
  job.epsilon = options.epsilon;
  return recordGpuMorphJob(job, cmd);  // the job's spans are read before it returns
}

uint32_t gpuPoseInstanceCount(const GpuPose& pose) {
  return uint32_t(pose.prepared->instances.size());
}

Expected<GpuOutputBuffer> gpuPoseOutput(const GpuPose& pose, uint32_t instance) {
  return gpuMorphGroupOutput(*pose.group, instance);
}

}  // namespace morphkit
