// SPDX-License-Identifier: MIT
// batch_json.cpp — job, task and result JSON (morphkit/batch/batch.h): read with simdjson, written with JsonWriter.
#include <cmath>
#include <cstdio>
#include <string>

#include "json_fields.h"
#include "morphkit/batch/batch.h"
#include "morphkit/io/json_writer.h"
#include "morphkit/render/render.h"

namespace morphkit {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

// Every batch JSON error is kInvalidArgument, "<key>: <what>" (the one JSON field reader, src/model/json_fields.h).
constexpr Error kJobError = Error::kInvalidArgument;

Failure bad(std::string_view key, std::string_view what) {
  return json::failAt(kJobError, std::string(key), what);
}
Status readPair(element e, std::string_view key, uint32_t& a, uint32_t& b, uint64_t lo, uint64_t hi) {
  array list;
  if (e.get_array().get(list) != simdjson::SUCCESS || list.size() != 2) return bad(key, "expected [A, B]");
  element first, second;
  if (list.at(0).get(first) != simdjson::SUCCESS || list.at(1).get(second) != simdjson::SUCCESS)
    return bad(key, "expected [A, B]");
  if (Status s = json::readUintIn(kJobError, first, key, a, lo, hi); !s) return s;
  return json::readUintIn(kJobError, second, key, b, lo, hi);
}

// The look keys (the render command's options of the same names); `handled` false for any other key.
Status readLookKey(std::string_view key, element value, BatchJob& job, bool& handled) {
  handled = true;
  if (key == "environment") {
    if (Status s = json::readStringValue(kJobError, value, key, job.environment); !s) return s;
    const bool file = job.environment.size() > 4 && job.environment.ends_with(".hdr");
    if (job.environment != "studio" && job.environment != "none" && !file)
      return bad(key, "expected \"studio\", \"none\" or a .hdr file");
  } else if (key == "environment_intensity") {
    return json::readNumberIn(kJobError, value, key, job.environment_intensity, 0.0, 1e4);
  } else if (key == "environment_rotation") {
    return json::readNumberIn(kJobError, value, key, job.environment_rotation, -1e6, 1e6);
  } else if (key == "exposure") {
    return json::readNumberIn(kJobError, value, key, job.exposure, -32.0, 32.0);
  } else if (key == "tone_mapping") {
    if (Status s = json::readStringValue(kJobError, value, key, job.tone_mapping); !s) return s;
    if (!parseToneMapping(job.tone_mapping)) return bad(key, "expected neutral, aces or none");
  } else if (key == "light") {
    if (Status s = json::readStringValue(kJobError, value, key, job.light); !s) return s;
    if (job.light != "default" && job.light != "none") return bad(key, "expected default or none");
  } else if (key == "background") {
    if (Status s = json::readStringValue(kJobError, value, key, job.background); !s) return s;
    float rgba[4];
    if (job.background != "opaque" && job.background != "transparent" && job.background != "environment" &&
        !parseBackgroundColor(job.background, rgba))
      return bad(key, "expected opaque, transparent, environment or \"R,G,B\" (sRGB 0..255)");
  } else if (key == "msaa") {
    if (Status s = json::readUintIn(kJobError, value, key, job.msaa, 1, 8); !s) return s;
    if (job.msaa != 1 && job.msaa != 4 && job.msaa != 8) return bad(key, "expected 1, 4 or 8");
  } else {
    handled = false;
  }
  return Ok{};
}

Status readJobObject(object o, BatchJob& job) {
  bool has_assets = false;
  for (auto [key, value] : o) {
    if (key == "assets") {
      has_assets = true;
      if (Status s = json::readStringsValue(kJobError, value, key, job.assets); !s) return s;
      if (job.assets.empty()) return bad(key, "lists no asset");
    } else if (key == "out") {
      if (Status s = json::readStringValue(kJobError, value, key, job.out); !s) return s;
      if (job.out.empty()) return bad(key, "is empty");
    } else if (key == "animations") {
      array list;
      if (value.get_array().get(list) != simdjson::SUCCESS) return bad(key, "expected an array of names or indices");
      for (element item : list) {
        uint64_t index = 0;
        std::string_view name;
        if (item.get_uint64().get(index) == simdjson::SUCCESS && index < 0xFFFFFFFFull) {
          job.animations.push_back(std::to_string(index));
        } else if (item.get_string().get(name) == simdjson::SUCCESS) {
          job.animations.emplace_back(name);
        } else {
          return bad(key, "expected names (strings) or indices (integers)");
        }
      }
    } else if (key == "frames") {
      if (Status s = readPair(value, key, job.first_frame, job.last_frame, 0, 10000000); !s) return s;
      if (job.last_frame <= job.first_frame) return bad(key, "expected [A, B] with A < B (half-open)");
      job.has_frames = true;
    } else if (key == "fps") {
      double fps = 0;
      if (value.get_double().get(fps) != simdjson::SUCCESS || !(fps > 0 && fps <= 1000))
        return bad(key, "expected 0 < fps <= 1000");
      job.fps = fps;
    } else if (key == "chunk") {
      if (Status s = json::readUintIn(kJobError, value, key, job.chunk, 1, 100000); !s) return s;
    } else if (key == "outputs") {
      std::vector<std::string> outputs;
      if (Status s = json::readStringsValue(kJobError, value, key, outputs); !s) return s;
      job.frames = job.poses = false;
      for (const std::string& output : outputs) {
        if (output == "frames")
          job.frames = true;
        else if (output == "poses")
          job.poses = true;
        else
          return bad(key, "\"" + output + "\": expected \"frames\" or \"poses\"");
      }
      if (!job.frames && !job.poses) return bad(key, "lists no output");
    } else if (key == "size") {
      if (Status s = readPair(value, key, job.width, job.height, 1, 8192); !s) return s;
    } else if (key == "morph_path") {
      if (Status s = json::readStringValue(kJobError, value, key, job.morph_path); !s) return s;
      if (job.morph_path != "vertex" && job.morph_path != "compute" && job.morph_path != "auto") {
        return bad(key, "expected vertex, compute or auto");
      }
    } else if (key == "pose_device") {
      if (Status s = json::readStringValue(kJobError, value, key, job.pose_device); !s) return s;
      if (job.pose_device != "cpu" && job.pose_device != "gpu") return bad(key, "expected cpu or gpu");
    } else if (key == "device") {
      int64_t device = 0;
      if (value.get_int64().get(device) != simdjson::SUCCESS || device < -1 || device > 64)
        return bad(key, "expected -1 (the best) or an index");
      job.device = int(device);
    } else if (key == "resume") {
      if (value.get_bool().get(job.resume) != simdjson::SUCCESS) return bad(key, "expected true or false");
    } else if (key == "force") {
      if (value.get_bool().get(job.force) != simdjson::SUCCESS) return bad(key, "expected true or false");
    } else if (key == "read_files") {
      if (value.get_bool().get(job.read_files) != simdjson::SUCCESS) return bad(key, "expected true or false");
    } else if (key == "manifest") {
      if (Status s = json::readStringValue(kJobError, value, key, job.manifest); !s) return s;
      const std::filesystem::path manifest(job.manifest);
      if (job.manifest.empty() || manifest.is_absolute() || job.manifest.find("..") != std::string::npos) {
        return bad(key, "expected a file name inside out");
      }
    } else if (key == "base_dir") {
      std::string dir;
      if (Status s = json::readStringValue(kJobError, value, key, dir); !s) return s;
      job.base_dir = dir;
    } else if (key == "workers") {
      if (Status s = json::readUintIn(kJobError, value, key, job.workers, 1, 1024); !s) return s;
    } else if (key == "scheduler") {
      // Read by the Python front end (morphkit.batch) only.
    } else {
      bool handled = false;
      if (Status s = readLookKey(key, value, job, handled); !s) return s;
      if (!handled) return bad(key, "unknown key (see docs/BATCH.md)");
    }
  }
  if (!has_assets) return bad("assets", "is required");
  return Ok{};
}

void writeJobFields(JsonWriter& json, const BatchJob& job) {
  json.key("assets").array(std::span<const std::string>(job.assets));
  json.field("out", std::string_view(job.out));
  json.key("animations").array(std::span<const std::string>(job.animations));
  if (job.has_frames) {
    json.key("frames").beginArray().value(job.first_frame).value(job.last_frame).endArray();
  }
  json.field("fps", job.fps);
  json.field("chunk", job.chunk);
  json.key("outputs").beginArray();
  if (job.frames) json.value("frames");
  if (job.poses) json.value("poses");
  json.endArray();
  json.key("size").beginArray().value(job.width).value(job.height).endArray();
  json.field("morph_path", std::string_view(job.morph_path));
  json.field("environment", std::string_view(job.environment));
  json.field("environment_intensity", job.environment_intensity);
  json.field("environment_rotation", job.environment_rotation);
  json.field("tone_mapping", std::string_view(job.tone_mapping));
  json.field("exposure", job.exposure);
  json.field("light", std::string_view(job.light));
  json.field("background", std::string_view(job.background));
  json.field("msaa", job.msaa);
  json.field("device", job.device);
  json.field("pose_device", std::string_view(job.pose_device));
  if (job.workers) json.field("workers", job.workers);
  json.field("resume", job.resume);
  json.field("force", job.force);
  json.field("read_files", job.read_files);
  json.field("manifest", std::string_view(job.manifest));
  json.field("base_dir", std::string_view(job.base_dir.string()));
}

Expected<element> parseText(simdjson::dom::parser& parser, std::string_view json) {
  element root;
  MORPHKIT_TRY(json::parse(parser, json, root));
  return root;
}

}  // namespace

Expected<BatchJob> parseBatchJob(std::string_view json, const std::filesystem::path& base_dir) {
  simdjson::dom::parser parser;
  Expected<element> root = parseText(parser, json);
  if (!root) return root.error();
  object o;
  if (root->get_object().get(o) != simdjson::SUCCESS)
    return fail(Error::kInvalidArgument, "the job must be a JSON object");
  BatchJob job;
  job.base_dir = base_dir;
  if (Status s = readJobObject(o, job); !s) return s.error();
  return job;
}

std::string batchJobJson(const BatchJob& job) {
  JsonWriter json;
  json.beginObject();
  writeJobFields(json, job);
  json.endObject();
  return json.str();
}

std::string batchTaskJson(const BatchJob& job, const BatchTask& task) {
  JsonWriter json;
  json.beginObject();
  json.key("job").beginObject();
  writeJobFields(json, job);
  json.endObject();
  json.field("id", task.id);
  json.field("asset", std::string_view(task.asset));
  json.field("asset_key", std::string_view(task.asset_key));
  json.key("animation");
  if (task.animation == 0xFFFFFFFFu)
    json.null();
  else
    json.value(task.animation);
  json.field("animation_key", std::string_view(task.animation_key));
  json.key("frames").beginArray().value(task.first).value(task.last).endArray();
  json.field("error", std::string_view(task.error));
  json.endObject();
  return json.str();
}

Expected<BatchTask> parseBatchTaskJson(std::string_view text, BatchJob* job) {
  simdjson::dom::parser parser;
  Expected<element> root = parseText(parser, text);
  if (!root) return root.error();
  object o, job_object;
  if (root->get_object().get(o) != simdjson::SUCCESS || o["job"].get_object().get(job_object) != simdjson::SUCCESS) {
    return fail(Error::kInvalidArgument, "task: expected {\"job\": {...}, ...}");
  }
  if (job) {
    *job = BatchJob{};
    if (Status s = readJobObject(job_object, *job); !s) return s.error();
  }
  BatchTask task;
  std::string_view text_value;
  uint64_t number = 0;
  if (o["id"].get_uint64().get(number) != simdjson::SUCCESS) return fail(Error::kInvalidArgument, "task: id");
  task.id = uint32_t(number);
  if (o["asset"].get_string().get(text_value) != simdjson::SUCCESS) return fail(Error::kInvalidArgument, "task: asset");
  task.asset = std::string(text_value);
  if (o["asset_key"].get_string().get(text_value) != simdjson::SUCCESS)
    return fail(Error::kInvalidArgument, "task: asset_key");
  task.asset_key = std::string(text_value);
  if (o["animation"].get_uint64().get(number) == simdjson::SUCCESS) task.animation = uint32_t(number);
  if (o["animation_key"].get_string().get(text_value) != simdjson::SUCCESS)
    return fail(Error::kInvalidArgument, "task: animation_key");
  task.animation_key = std::string(text_value);
  element frames;
  if (o["frames"].get(frames) != simdjson::SUCCESS) return fail(Error::kInvalidArgument, "task: frames");
  if (Status s = readPair(frames, "task: frames", task.first, task.last, 0, 10000000); !s) return s.error();
  if (o["error"].get_string().get(text_value) == simdjson::SUCCESS) task.error = std::string(text_value);
  return task;
}

std::string batchTaskResultJson(const BatchTaskResult& r) {
  JsonWriter json;
  json.beginObject();
  json.field("id", r.id);
  json.field("asset", std::string_view(r.asset));
  json.field("asset_key", std::string_view(r.asset_key));
  json.key("animation");
  if (r.animation == 0xFFFFFFFFu)
    json.null();
  else
    json.value(r.animation);
  json.field("animation_key", std::string_view(r.animation_key));
  json.key("frames").beginArray().value(r.first).value(r.last).endArray();
  json.key("outputs").array(std::span<const std::string>(r.outputs));
  json.field("rendered", r.rendered);
  json.field("skipped", r.skipped);
  json.field("seconds", r.seconds);
  json.field("worker", std::string_view(r.worker));
  json.key("error");
  if (r.error.empty())
    json.null();
  else
    json.value(std::string_view(r.error));
  json.endObject();
  return json.str();
}

Expected<BatchTaskResult> parseBatchTaskResultJson(std::string_view text) {
  simdjson::dom::parser parser;
  Expected<element> root = parseText(parser, text);
  if (!root) return root.error();
  object o;
  if (root->get_object().get(o) != simdjson::SUCCESS)
    return fail(Error::kInvalidArgument, "result: expected an object");
  BatchTaskResult r;
  std::string_view s;
  uint64_t n = 0;
  if (o["id"].get_uint64().get(n) != simdjson::SUCCESS) return fail(Error::kInvalidArgument, "result: id");
  r.id = uint32_t(n);
  if (o["asset"].get_string().get(s) == simdjson::SUCCESS) r.asset = std::string(s);
  if (o["asset_key"].get_string().get(s) == simdjson::SUCCESS) r.asset_key = std::string(s);
  if (o["animation"].get_uint64().get(n) == simdjson::SUCCESS) r.animation = uint32_t(n);
  if (o["animation_key"].get_string().get(s) == simdjson::SUCCESS) r.animation_key = std::string(s);
  element frames;
  if (o["frames"].get(frames) != simdjson::SUCCESS) return fail(Error::kInvalidArgument, "result: frames");
  if (Status st = readPair(frames, "result: frames", r.first, r.last, 0, 10000000); !st) return st.error();
  array outputs;
  if (o["outputs"].get_array().get(outputs) == simdjson::SUCCESS) {
    for (element e : outputs) {
      if (e.get_string().get(s) == simdjson::SUCCESS) r.outputs.emplace_back(s);
    }
  }
  if (o["rendered"].get_uint64().get(n) == simdjson::SUCCESS) r.rendered = uint32_t(n);
  bool flag = false;
  if (o["skipped"].get_bool().get(flag) == simdjson::SUCCESS) r.skipped = flag;
  double seconds = 0;
  if (o["seconds"].get_double().get(seconds) == simdjson::SUCCESS) r.seconds = seconds;
  if (o["worker"].get_string().get(s) == simdjson::SUCCESS) r.worker = std::string(s);
  if (o["error"].get_string().get(s) == simdjson::SUCCESS) r.error = std::string(s);
  return r;
}

}  // namespace morphkit
