// SPDX-License-Identifier: MIT
// GPU throughput benchmark (morphkit_bench/gpu_bench.h).
#include "morphkit_bench/gpu_bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gpu_internal.h"
#include "morphkit/io/json_writer.h"

namespace morphkit {

PrimitiveData benchPrimitive(uint32_t vertices, uint32_t targets, float region, uint32_t joints, uint64_t seed) {
  BenchRng rng{seed};
  PrimitiveData p;
  p.vertex_count = vertices;
  p.position.resize(3 * size_t(vertices));
  p.normal.resize(3 * size_t(vertices));
  for (float& x : p.position) x = rng.next() * 2.0f - 1.0f;
  for (uint32_t v = 0; v < vertices; ++v) p.normal[3 * size_t(v) + 2] = 1.0f;
  const uint32_t span = std::max<uint32_t>(1, uint32_t(float(vertices) * region));
  p.targets.resize(targets);
  for (uint32_t t = 0; t < targets; ++t) {
    MorphTargetData& d = p.targets[t];
    d.position.assign(3 * size_t(vertices), 0.0f);
    d.normal.assign(3 * size_t(vertices), 0.0f);
    const uint32_t first = uint32_t(rng.next() * float(vertices - std::min(vertices, span) + 1)) % vertices;
    const uint32_t last = std::min(vertices, first + span);
    for (size_t i = 3 * size_t(first); i < 3 * size_t(last); ++i) {
      d.position[i] = rng.next() * 0.2f - 0.1f;
      d.normal[i] = rng.next() * 0.2f - 0.1f;
    }
  }
  p.influences = 4;
  p.joints.resize(4 * size_t(vertices));
  p.skin_weights.resize(4 * size_t(vertices));
  for (uint32_t v = 0; v < vertices; ++v) {
    for (uint32_t i = 0; i < 4; ++i) {
      p.joints[4 * size_t(v) + i] = (v / 64 + i * 7) % joints;
      p.skin_weights[4 * size_t(v) + i] = i == 0 ? 0.4f : 0.2f;
    }
  }
  return p;
}

namespace {

constexpr uint32_t kBenchJoints = 32;

std::string variantName(DeltaLayout layout, bool all) {
  std::string name = deltaLayoutName(layout);
  return all ? name + "_all" : name;
}

}  // namespace

Expected<GpuBenchReport> runGpuBench(VulkanContext& context, const GpuBenchOptions& options) {
  GpuBenchReport report;
  report.device = gpuDeviceInfo(context);
  Expected<GpuBenchCeiling> ceiling =
      measureBenchCeiling(context, report.device, options.copy_bytes, options.warmup_ms, options.repetitions);
  if (!ceiling) return ceiling.error();
  report.ceiling = *ceiling;

  const std::vector<DMat4> palette(kBenchJoints);
  const size_t configurations = options.vertices.size() * options.targets.size();
  size_t done = 0;
  for (uint32_t vertices : options.vertices) {
    for (uint32_t targets : options.targets) {
      if (options.progress) options.progress(done++, configurations);
      const uint64_t dense_bytes = uint64_t(vertices) * targets * 6 * 4;
      struct Variant {
        DeltaLayout layout;
        bool all;
      };
      std::vector<Variant> variants;
      for (DeltaLayout layout : options.layouts) {
        if (layout == DeltaLayout::kDenseF32 && options.all_targets) variants.push_back({layout, true});
        variants.push_back({layout, false});
      }
      if (dense_bytes > options.max_delta_bytes) {
        for (const Variant& v : variants) {
          GpuBenchRow row{vertices, targets, 0, variantName(v.layout, v.all)};
          row.skipped = "dense deltas " + std::to_string(dense_bytes >> 20) + " MiB > --max-delta-bytes";
          report.rows.push_back(row);
        }
        continue;
      }
      const PrimitiveData primitive =
          benchPrimitive(vertices, targets, options.region, kBenchJoints, 1234 + vertices + targets);
      const uint32_t active = std::min(options.active, targets);
      // `active` evenly spread targets get weights; the rest are zero.
      std::vector<float> weights(targets, 0.0f);
      for (uint32_t k = 0; k < active; ++k) weights[size_t(k) * targets / active] = 0.5f;
      std::vector<float> every_weight = weights;
      for (float& w : every_weight) w = w == 0.0f ? 1e-30f : w;
      for (const Variant& v : variants) {
        GpuBenchRow row{vertices, targets, v.all ? targets : active, variantName(v.layout, v.all)};
        GpuUploadOptions upload;
        upload.layout = v.layout;
        Expected<GpuPrimitive*> gp = uploadGpuPrimitive(context, primitive, upload);
        if (!gp) {
          if (gp.error().code != Error::kOutOfMemory && gp.error().code != Error::kTooLarge) return gp.error();
          row.skipped = gp.error().message;
          report.rows.push_back(row);
          continue;
        }
        const GpuPrimitiveInfo info = gpuPrimitiveInfo(**gp);  // a copy: the primitive is destroyed below
        GpuInstanceDesc desc{*gp, options.skinned, options.skinned ? kBenchJoints : 0};
        Expected<GpuMorphGroup*> batch = createGpuMorphGroup(context, std::span(&desc, 1));
        if (!batch) {
          destroyGpuPrimitive(context, *gp);
          if (batch.error().code != Error::kOutOfMemory) return batch.error();
          row.skipped = batch.error().message;
          report.rows.push_back(row);
          continue;
        }
        // The all-targets baseline lists every target: the inactive ones at a weight too small to move a vertex.
        const std::vector<float>& row_weights = v.all ? every_weight : weights;
        GpuInstanceState state{
            row_weights, options.skinned ? std::span<const DMat4>(palette) : std::span<const DMat4>(), {}};
        GpuMorphJob job{&context, *batch, std::span(&state, 1)};
        double best = std::nan("");
        Status s = warmUpGpu(context, report.ceiling.warmup_ms);
        for (uint32_t r = 0; r < std::max(options.repetitions, 1u) + 1 && s; ++r) {  // +1: warm-up
          s = job.run();
          const double us = lastDispatchMicroseconds(**batch);
          if (r > 0 && !std::isnan(us) && (std::isnan(best) || us < best)) best = us;
        }
        row.registers = groupPipelineRegisters(context, **batch);
        destroyGpuMorphGroup(context, *batch);
        destroyGpuPrimitive(context, *gp);
        if (!s) return s.error();
        const uint64_t vertex_bytes = uint64_t(vertices) * info.vertex.stride * 4 * 2 + uint64_t(vertices) * 8 * 4;
        uint64_t delta_bytes = 0;
        if (v.layout == DeltaLayout::kSparse) {
          // Every record's target word (to learn whether it is active), the deltas of the active ones and the tile
          // offsets (docs/LAYOUTS.md §3c); the padding of the sliced records is not counted.
          const std::vector<uint64_t> records = sparseRecordCounts(primitive);
          uint64_t active_records = 0;
          for (uint32_t t = 0; t < targets; ++t) active_records += weights[t] != 0.0f ? records[t] : 0;
          delta_bytes = 4 * (uint64_t(vertices) / MORPH_GROUP_SIZE + 2) + info.record_count * 4 +
                        active_records * 4 * info.delta.stride;
        } else {
          // snorm16 also reads a 16-byte scale vec4 per walked target and workgroup (1/4 byte per record of 64 lanes).
          delta_bytes = uint64_t(vertices) * row.active * info.delta.stride * denseElementBytes(v.layout);
        }
        row.bytes = vertex_bytes + delta_bytes;
        row.microseconds = best;
        row.gbps = double(row.bytes) / (best * 1e3);
        row.percent_of_copy = percentOfCopy(row.gbps, report.ceiling);
        report.rows.push_back(row);
      }
    }
  }
  return report;
}

std::string gpuBenchTable(const GpuBenchReport& r) {
  std::string out;
  char line[256];
  out += benchDeviceLine(r.device, r.ceiling);
  std::snprintf(line, sizeof line, "%10s %8s %7s %-14s %12s %10s %9s %5s\n", "vertices", "targets", "active", "layout",
                "us", "GB/s", "% copy", "regs");
  out += line;
  for (const GpuBenchRow& row : r.rows) {
    if (!row.skipped.empty()) {
      std::snprintf(line, sizeof line, "%10u %8u %7s %-14s   skipped: %s\n", row.vertices, row.targets, "-",
                    row.variant.c_str(), row.skipped.c_str());
    } else {
      const std::string registers = row.registers < 0 ? "-" : std::to_string(row.registers);
      std::snprintf(line, sizeof line, "%10u %8u %7u %-14s %12.1f %10.2f %8.1f%% %5s\n", row.vertices, row.targets,
                    row.active, row.variant.c_str(), row.microseconds, row.gbps, row.percent_of_copy,
                    registers.c_str());
    }
    out += line;
  }
  return out;
}

Expected<GpuBenchCeiling> measureBenchCeiling(VulkanContext& context, const GpuDeviceInfo& device, uint64_t copy_bytes,
                                              double warmup_ms, uint32_t repetitions) {
  GpuBenchCeiling ceiling;
  ceiling.copy_bytes = benchCopyBytes(copy_bytes, device);
  ceiling.warmup_ms = warmUpMilliseconds(warmup_ms, device);
  if (Status s = warmUpGpu(context, ceiling.warmup_ms); !s) return s.error();
  Expected<double> copy = measureCopyMicroseconds(context, ceiling.copy_bytes, std::max(repetitions, 1u));
  if (!copy) return copy.error();
  ceiling.copy_microseconds = *copy;
  ceiling.copy_gbps = 2.0 * double(ceiling.copy_bytes) / (*copy * 1e3);
  return ceiling;
}

std::string benchDeviceLine(const GpuDeviceInfo& device, const GpuBenchCeiling& c) {
  char line[320];
  std::snprintf(
      line, sizeof line,
      "device: %s (%s), copy kernel: %.1f GB/s over %llu MiB (%.1f us); GPU warmed up %.0f ms before each row\n",
      device.name.c_str(), gpuDeviceTypeName(device.type), c.copy_gbps, (unsigned long long)(c.copy_bytes >> 20),
      c.copy_microseconds, c.warmup_ms);
  return line;
}

void writeBenchDeviceAndCopy(JsonWriter& w, const GpuDeviceInfo& device, const GpuBenchCeiling& c) {
  w.key("device").beginObject();
  w.field("name", device.name);
  w.field("type", gpuDeviceTypeName(device.type));
  w.field("driver", device.driver);
  w.field("storage16bit", device.storage_16bit);
  w.endObject();
  w.key("copy").beginObject();
  w.field("bytes", c.copy_bytes);
  w.field("microseconds", c.copy_microseconds);
  w.field("gbps", c.copy_gbps);
  w.endObject();
  w.field("warmupMs", c.warmup_ms);
}

std::string gpuBenchJson(const GpuBenchReport& r, bool pretty) {
  JsonWriter w(pretty);
  w.beginObject();
  writeBenchDeviceAndCopy(w, r.device, r.ceiling);
  w.key("rows").beginArray();
  for (const GpuBenchRow& row : r.rows) {
    w.beginObject();
    w.field("vertices", row.vertices);
    w.field("targets", row.targets);
    w.field("active", row.active);
    w.field("layout", row.variant);
    if (!row.skipped.empty()) {
      w.field("skipped", row.skipped);
    } else {
      w.field("microseconds", row.microseconds);
      w.field("bytes", uint64_t(row.bytes));
      w.field("gbps", row.gbps);
      w.field("percentOfCopy", row.percent_of_copy);
      if (row.registers >= 0) w.field("registers", int64_t(row.registers));
    }
    w.endObject();
  }
  w.endArray();
  w.endObject();
  return w.str();
}

}  // namespace morphkit
