// SPDX-License-Identifier: MIT
// The crowd benchmark (morphkit/vk/gpu_crowd.h): N skinned instances of one synthetic face-like primitive, each with
// its own active targets and palette, timed as one crowd dispatch, beside the per-instance batch kernel (morph.comp,
// one GpuMorphGroup over the same instances: each instance re-reads its deltas) and the copy kernel.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>

#include "gpu_crowd_internal.h"
#include "gpu_internal.h"
#include "morphkit/io/json_writer.h"
#include "morphkit/model/thread_pool.h"
#include "morphkit/vk/gpu_crowd.h"
#include "morphkit_bench/gpu_bench.h"

namespace morphkit {

namespace {

// Instance i: `active` distinct targets (a partial Fisher–Yates shuffle), weights in [0.1, 1.1); a palette of
// small rotations and offsets.
struct CrowdFrame {
  std::vector<std::vector<float>> weights;
  std::vector<std::vector<DMat4>> palettes;
  std::vector<GpuInstanceState> states;
};

CrowdFrame crowdFrame(const GpuCrowdBenchOptions& o) {
  CrowdFrame f;
  f.weights.resize(o.instances);
  f.palettes.resize(o.instances);
  f.states.resize(o.instances);
  BenchRng rng{7};
  std::vector<uint32_t> order(o.targets);
  for (uint32_t i = 0; i < o.instances; ++i) {
    std::iota(order.begin(), order.end(), 0u);
    f.weights[i].assign(o.targets, 0.0f);
    for (uint32_t k = 0; k < std::min(o.active, o.targets); ++k) {
      std::swap(order[k], order[k + rng.bits() % (o.targets - k)]);
      f.weights[i][order[k]] = 0.1f + rng.next();
    }
    f.palettes[i].resize(o.joints);
    for (DMat4& m : f.palettes[i]) {
      const DQuat q{0.1 * rng.next(), 0.1 * rng.next(), 0.1 * rng.next(), 1.0};
      const double len = std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
      m = composeTRSDouble(DVec3{rng.next() * 4.0, rng.next(), rng.next()},
                           DQuat{q.x / len, q.y / len, q.z / len, q.w / len}, DVec3{1, 1, 1});
    }
    f.states[i].weights = f.weights[i];
    f.states[i].joint_matrices = f.palettes[i];
  }
  return f;
}

// Best of `repetitions` timed runs after `warmup_ms` of GPU work (warmUpGpu) and one untimed run.
template <class Run, class Time>
Expected<double> bestOf(VulkanContext& context, double warmup_ms, uint32_t repetitions, Run run, Time time) {
  if (Status s = warmUpGpu(context, warmup_ms); !s) return s.error();
  double best = std::nan("");
  for (uint32_t r = 0; r < std::max(repetitions, 1u) + 1; ++r) {
    if (Status s = run(); !s) return s.error();
    const double us = time();
    if (r > 0 && !std::isnan(us) && (std::isnan(best) || us < best)) best = us;
  }
  return best;
}

// Instances compared between the crowd and the batch: first, middle, last.
std::vector<uint32_t> comparedInstances(uint32_t n) {
  return n == 1 ? std::vector<uint32_t>{0} : std::vector<uint32_t>{0, n / 2, n - 1};
}

}  // namespace

Expected<GpuCrowdBenchReport> runGpuCrowdBench(VulkanContext& context, const GpuCrowdBenchOptions& options) {
  GpuCrowdBenchReport report;
  report.options = options;
  report.options.progress = nullptr;
  report.device = gpuDeviceInfo(context);
  Expected<GpuBenchCeiling> ceiling =
      measureBenchCeiling(context, report.device, options.copy_bytes, options.warmup_ms, options.repetitions);
  if (!ceiling) return ceiling.error();
  report.ceiling = *ceiling;

  // Each target moves a contiguous quarter of the vertices, like a blend shape (the synthetic table's primitive).
  const PrimitiveData primitive =
      benchPrimitive(options.vertices, options.targets, 0.25f, options.joints, 42 + options.vertices + options.targets);
  GpuUploadOptions upload;
  upload.layout = options.layout;
  Expected<GpuPrimitive*> gp = uploadGpuPrimitive(context, primitive, upload);
  if (!gp) return gp.error();
  const GpuPrimitiveInfo info = gpuPrimitiveInfo(**gp);
  const CrowdFrame frame = crowdFrame(options);
  const uint64_t record_bytes = uint64_t(info.delta.stride) * denseElementBytes(options.layout);
  const uint64_t vertex_bytes = uint64_t(options.vertices) * info.vertex.stride * 4;
  report.output_bytes = vertex_bytes * options.instances;
  // The crowd's minimal bytes: base vertices and skin stream once, each target any instance uses once, every
  // instance's matrices, every instance's output.
  std::vector<bool> used(options.targets, false);
  uint64_t active_total = 0;
  for (const auto& w : frame.weights) {
    for (uint32_t t = 0; t < options.targets; ++t) used[t] = used[t] || w[t] != 0.0f, active_total += w[t] != 0.0f;
  }
  const uint64_t used_targets = uint64_t(std::count(used.begin(), used.end(), true));
  const uint64_t matrices_bytes = uint64_t(options.instances) * (1 + options.joints) * 64;
  const uint64_t minimal = vertex_bytes + uint64_t(options.vertices) * 32 +
                           used_targets * options.vertices * record_bytes + matrices_bytes + report.output_bytes;
  auto finish = [&](GpuCrowdBenchRow& row) {
    row.bytes = minimal;
    row.gbps = double(minimal) / (row.microseconds * 1e3);
    row.percent_of_copy = percentOfCopy(row.gbps, report.ceiling);
  };
  // The crowd and the batch are allocated before either is timed and freed after both are (memory re-allocated
  // after a free can run slower in one process).
  const std::vector<uint32_t> compared = comparedInstances(options.instances);
  Status status = Ok{};
  GpuMorphGroup* batch = nullptr;
  Expected<GpuCrowd*> created_crowd =
      createGpuCrowd(context, GpuCrowdDesc{*gp, options.instances, true, options.joints});
  if (!created_crowd) status = created_crowd.error();
  GpuCrowd* crowd = created_crowd ? *created_crowd : nullptr;
  if (status && options.batch) {
    std::vector<GpuInstanceDesc> descs(options.instances, GpuInstanceDesc{*gp, true, options.joints});
    Expected<GpuMorphGroup*> created = createGpuMorphGroup(context, descs);
    if (!created) status = created.error();
    if (created) batch = *created;
  }
  const size_t total = 1 + (options.batch ? 1 : 0);
  std::vector<std::vector<float>> crowd_out;  // [compared instance]
  if (status) {
    if (options.progress) options.progress(0, total);
    GpuCrowdJob job{&context, crowd, frame.states};
    job.pool = options.pool;
    double host_best = std::nan("");
    auto dispatchTime = [&] {
      const double host = lastCrowdHostMicroseconds(*crowd);
      if (std::isnan(host_best) || host < host_best) host_best = host;
      return lastCrowdDispatchMicroseconds(*crowd);
    };
    Expected<double> us = bestOf(
        context, report.ceiling.warmup_ms, options.repetitions, [&] { return job.run(); }, dispatchTime);
    const GpuCrowdInfo& crowd_info = gpuCrowdInfo(*crowd);
    GpuCrowdBenchRow row{"crowd", crowd_info.group_size};
    row.registers = crowdPipelineRegisters(context, *crowd);
    row.host_microseconds = host_best;
    row.delta_read_bytes = lastCrowdRecordReads(*crowd) * crowd_info.tiles * crowd_info.tile_vertices * record_bytes;
    for (size_t c = 0; c < compared.size() && us; ++c) {
      Expected<std::vector<float>> out = readGpuCrowdOutput(context, *crowd, compared[c]);
      if (!out) us = out.error();
      if (out) crowd_out.push_back(std::move(*out));
    }
    if (us) {
      row.microseconds = *us;
      finish(row);
      report.rows.push_back(row);
    } else {
      status = us.error();
    }
  }
  if (batch && status) {
    if (options.progress) options.progress(1, total);
    GpuMorphJob job{&context, batch, frame.states};
    Expected<double> us = bestOf(
        context, report.ceiling.warmup_ms, options.repetitions, [&] { return job.run(); },
        [&] { return lastDispatchMicroseconds(*batch); });
    for (size_t c = 0; c < compared.size() && us; ++c) {
      Expected<std::vector<float>> out = readGpuMorphGroupOutput(context, *batch, compared[c]);
      if (!out) {
        us = out.error();
        break;
      }
      double diff = std::max(report.rows[0].max_diff_vs_batch, 0.0);
      for (size_t i = 0; i < out->size(); ++i) diff = std::max(diff, double(std::fabs(crowd_out[c][i] - (*out)[i])));
      report.rows[0].max_diff_vs_batch = diff;
    }
    if (us) {
      GpuCrowdBenchRow row{"batch"};
      row.microseconds = *us;
      row.delta_read_bytes = active_total * options.vertices * record_bytes;
      finish(row);
      report.rows.push_back(row);
    } else {
      status = us.error();
    }
  }
  destroyGpuCrowd(context, crowd);
  if (batch) destroyGpuMorphGroup(context, batch);
  destroyGpuPrimitive(context, *gp);
  if (!status) return status.error();
  return report;
}

std::string gpuCrowdBenchTable(const GpuCrowdBenchReport& r) {
  std::string out;
  char line[320];
  const GpuCrowdBenchOptions& o = r.options;
  out += benchDeviceLine(r.device, r.ceiling);
  std::snprintf(line, sizeof line,
                "crowd: %u instances x %u vertices x %u targets (%u active each, %s), %u joints; output %.1f MB; host: "
                "%u thread(s)\n",
                o.instances, o.vertices, o.targets, o.active, deltaLayoutName(o.layout), o.joints,
                double(r.output_bytes) / 1e6, o.pool ? o.pool->threadCount() : 1u);
  out += line;
  std::snprintf(line, sizeof line, "%-11s %12s %12s %14s %10s %9s %14s %5s %10s\n", "variant", "us", "bytes (MB)",
                "delta reads MB", "GB/s", "% copy", "max |vs batch|", "regs", "host us");
  out += line;
  for (const GpuCrowdBenchRow& row : r.rows) {
    char diff[32] = "-";
    if (row.max_diff_vs_batch >= 0) std::snprintf(diff, sizeof diff, "%.3g", row.max_diff_vs_batch);
    const std::string registers = row.registers < 0 ? "-" : std::to_string(row.registers);
    char host[32] = "-";
    if (!std::isnan(row.host_microseconds)) std::snprintf(host, sizeof host, "%.1f", row.host_microseconds);
    std::snprintf(line, sizeof line, "%-11s %12.1f %12.1f %14.1f %10.2f %8.1f%% %14s %5s %10s\n", row.variant.c_str(),
                  row.microseconds, double(row.bytes) / 1e6, double(row.delta_read_bytes) / 1e6, row.gbps,
                  row.percent_of_copy, diff, registers.c_str(), host);
    out += line;
  }
  return out;
}

std::string gpuCrowdBenchJson(const GpuCrowdBenchReport& r, bool pretty) {
  JsonWriter w(pretty);
  w.beginObject();
  writeBenchDeviceAndCopy(w, r.device, r.ceiling);
  w.key("crowd").beginObject();
  w.field("instances", r.options.instances);
  w.field("vertices", r.options.vertices);
  w.field("targets", r.options.targets);
  w.field("active", r.options.active);
  w.field("joints", r.options.joints);
  w.field("layout", deltaLayoutName(r.options.layout));
  w.field("outputBytes", uint64_t(r.output_bytes));
  w.field("hostThreads", uint64_t(r.options.pool ? r.options.pool->threadCount() : 1u));
  w.endObject();
  w.key("rows").beginArray();
  for (const GpuCrowdBenchRow& row : r.rows) {
    w.beginObject();
    w.field("variant", row.variant);
    if (row.group_size) w.field("groupSize", row.group_size);
    if (row.registers >= 0) w.field("registers", int64_t(row.registers));
    if (!std::isnan(row.host_microseconds)) w.field("hostMicroseconds", row.host_microseconds);
    w.field("microseconds", row.microseconds);
    w.field("bytes", uint64_t(row.bytes));
    w.field("deltaReadBytes", uint64_t(row.delta_read_bytes));
    w.field("gbps", row.gbps);
    w.field("percentOfCopy", row.percent_of_copy);
    if (row.max_diff_vs_batch >= 0) w.field("maxDiffVsBatch", row.max_diff_vs_batch);
    w.endObject();
  }
  w.endArray();
  w.endObject();
  return w.str();
}

}  // namespace morphkit
