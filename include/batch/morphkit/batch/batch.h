// SPDX-License-Identifier: MIT
// morphkit/batch/batch.h — batch jobs: many assets × animations × frame ranges, split into tasks of at most `chunk`
// frames. Each task writes its own files (per-asset folder, PNG frames named by their real index, posed arrays
// as .npy, a done-marker last), so a retried, re-run or resumed task gives the same bytes and never touches
// another task's files. `morphkit batch JOB.json` runs the tasks in one process; the Python package's
// morphkit.batch runs the same tasks (this code, through the extension) on Dask distributed. docs/BATCH.md.
//
// Job file (JSON; unknown keys are errors):
//   {"assets": ["a.glb", "models/*.gltf"],  paths or glob(3) patterns, relative to the job file's folder
//    "out": "batch_out",                   output folder (relative to the job file's folder)
//    "animations": ["Walk", 0],            names or indices; absent or []: every animation (the rest pose when none)
//    "frames": [0, 60],                    half-open frame range at fps; absent: each clip whole (as `render`)
//    "fps": 30, "chunk": 32,               at most `chunk` frames per task
//    "outputs": ["frames", "poses"],       PNG frames (rendered) and/or posed arrays (.npy)
//    "size": [256, 256], "morph_path": "auto", "device": -1,
//    "pose_device": "cpu",                 posed arrays on the CPU fast path, or "gpu" (the frames-in-flight stream)
//    "environment": "studio", "environment_intensity": 1, "environment_rotation": 0, "tone_mapping": "neutral",
//    "exposure": 0, "light": "default", "background": "opaque", "msaa": 4,
//                                          the look, as `render`'s options of the same names (docs/RENDER.md);
//                                          an .hdr environment is relative to the job file's folder
//    "resume": false,                      true: tasks whose done-marker exists do nothing
//    "manifest": "manifest.json"}          relative to `out`
// Output layout: OUT/<asset key>/<animation key>/frame_0030.png,
//   OUT/<asset key>/<animation key>/poses/f0030-0062_node0_mesh0_prim0_positions.npy (and _normals.npy),
//   OUT/<asset key>/<animation key>/done/f0030-0062.json (the task's result, written last).
// The asset key is the file's stem, or (when two stems collide) its path below the folder common to every asset
// of the job with '/' → '_' and the extension kept; the
// animation key is "<index>_<name>" ("rest" for the rest pose), characters outside [A-Za-z0-9._-] as '_'.
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "morphkit/model/error.h"

namespace morphkit {

struct BatchJob {
  std::vector<std::string> assets;      // as written in the job (paths or patterns)
  std::vector<std::string> animations;  // names or decimal indices; empty: every animation
  bool has_frames = false;
  uint32_t first_frame = 0, last_frame = 0;  // with has_frames: [first, last)
  double fps = 30.0;
  uint32_t chunk = 32;
  bool frames = true;  // render PNG frames
  bool poses = true;   // write posed arrays
  uint32_t width = 256, height = 256;
  std::string morph_path = "auto";
  // The look (`render --environment …`): checked by parseBatchJob with the renderer's own parse rules.
  std::string environment = "studio";  // studio | none | FILE.hdr (relative to base_dir)
  double environment_intensity = 1.0, environment_rotation = 0.0, exposure = 0.0;
  std::string tone_mapping = "neutral", light = "default", background = "opaque";
  uint32_t msaa = 4;
  int device = -1;
  // Where the posed arrays are computed: "cpu" (the fast path) or "gpu" (evaluateGpuPoseFrames on the worker's
  // Vulkan context, every frame of the task in flight at once: `pose --device gpu`'s stream, bit for bit).
  std::string pose_device = "cpu";
  // Workers side by side: `morphkit batch`'s threads (each its own BatchWorker) and morphkit.batch's LocalCluster
  // processes; 0 (absent): planBatch picks defaultBatchWorkers.
  uint32_t workers = 0;
  bool resume = false;
  bool force = false;       // write into an `out` that holds files of another run (replacing same-named files)
  bool read_files = false;  // load the assets with LoadOptions::map_files = false (read, not mapped)
  std::string out = "batch_out";
  std::string manifest = "manifest.json";
  std::filesystem::path base_dir;  // the job file's folder: relative paths resolve here
};
// Fails (kInvalidJson / kInvalidArgument) with "<job>: <key>: <what>".
Expected<BatchJob> parseBatchJob(std::string_view json, const std::filesystem::path& base_dir);
// The job as JSON with every default filled in and base_dir recorded (what tasks and the manifest carry).
std::string batchJobJson(const BatchJob& job);

// One unit of work: frames [first, last) of one animation of one asset.
struct BatchTask {
  uint32_t id = 0;                   // position in the plan
  std::string asset;                 // the file, resolved (absolute or relative to the working folder)
  std::string asset_key;             // its folder under out
  uint32_t animation = 0xFFFFFFFFu;  // kNone: the rest pose
  std::string animation_key;
  uint32_t first = 0, last = 0;
  std::string error;  // non-empty: planning failed for this asset (the task only reports it)
};
struct BatchPlan {
  BatchJob job;
  std::vector<BatchTask> tasks;
};
// Loads each asset once to learn its animations and clip lengths. An asset that fails to load or names no
// listed animation becomes one task carrying the error; planning itself fails only when no asset matches.
Expected<BatchPlan> planBatch(const BatchJob& job);

// A task as one JSON object with its job inside, for shipping to a worker, and back.
std::string batchTaskJson(const BatchJob& job, const BatchTask& task);
Expected<BatchTask> parseBatchTaskJson(std::string_view json, BatchJob* job);

struct BatchTaskResult {
  uint32_t id = 0;
  std::string asset, asset_key, animation_key;
  uint32_t animation = 0xFFFFFFFFu;
  uint32_t first = 0, last = 0;
  std::vector<std::string> outputs;  // files of the task, relative to job.out
  uint32_t rendered = 0;             // frames rendered now (not found from an earlier run)
  bool skipped = false;              // resume found the done-marker: no work at all
  double seconds = 0;                // wall time of the task on its worker
  std::string worker;                // who ran it (the Dask worker's address; "local" for the CLI)
  std::string error;                 // empty: success
};
std::string batchTaskResultJson(const BatchTaskResult& result);
Expected<BatchTaskResult> parseBatchTaskResultJson(std::string_view json);

// The workers a job gets when it names none: 1 when its tasks use the GPU (PNG frames, or poses on the GPU): one
// Vulkan context keeps the GPU busy with frames in flight while its frames encode on every core, and each further
// context costs its start-up and memory (docs/PERFORMANCE.md, goal 6: 240 frames at 1024² take 1.12 s on 1 worker,
// 1.89 s on 8, on the H200 host); otherwise (poses on the CPU only) half the cores.
uint32_t defaultBatchWorkers(const BatchJob& job);

// Keeps a Vulkan context and the last asset's renderer between the tasks one process runs. Not thread-safe:
// one task at a time per worker.
struct BatchWorker;
BatchWorker* createBatchWorker();
void destroyBatchWorker(BatchWorker* worker);  // null is fine
// Runs one task; never fails as a whole: a failure is recorded in the result's `error` (and files the task wrote
// before failing stay, complete, for a resume). The done-marker is written last, only on success. Its frames render
// with frames in flight and are PNG-encoded on `encoder_threads` threads started for the task (morphkit/
// frame_writer.h): the front ends give each worker its share of the cores, so a few workers (a few Vulkan contexts)
// keep every core encoding.
BatchTaskResult runBatchTask(BatchWorker& worker, const BatchJob& job, const BatchTask& task,
                             std::string_view worker_name, unsigned encoder_threads = 1);
// Compute and graphics pipelines the worker's Vulkan context has created so far (0 before its first rendering
// task): tasks of one asset and size reuse the context and the renderer, so this stays where the first put it.
uint64_t batchWorkerPipelinesCreated(const BatchWorker& worker);
// A result that names `task` (id, asset, animation, frame range) and `worker_name`, with nothing done yet: where
// runBatchTask starts, and what a front end reports for a task that never returned (a killed worker).
BatchTaskResult batchTaskResultFor(const BatchTask& task, std::string_view worker_name);

// The manifest: {"job": {...}, "tasks": [result, ...] in plan order, "summary": {tasks, failed, skipped,
// frames, rendered, outputs, seconds}}. Written by writeBatchManifest to job.out / job.manifest.
std::string batchManifestJson(const BatchJob& job, std::span<const BatchTaskResult> results);
Status writeBatchManifest(const BatchJob& job, std::span<const BatchTaskResult> results);

}  // namespace morphkit
