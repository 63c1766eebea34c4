// SPDX-License-Identifier: MIT
// `morphkit batch JOB.json [--workers N] [--resume] [--json]`: runs a batch job (morphkit/batch/batch.h, docs/BATCH.md)
// in this process on N worker threads, each with its own BatchWorker (Vulkan context, renderer, GPU pose) as each
// Dask worker process has, taking the tasks in plan order, and writes its manifest. The Python package's morphkit.batch
// runs the same tasks on Dask distributed; both give the same files. A failing asset is reported in the manifest and on
// stderr and does not stop the batch; the exit code is 1 when any task failed.
#ifdef HAVE_morphkit_batch
#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "command.h"
#include "morphkit/batch/batch.h"
#include "morphkit/io/json_writer.h"
#include "morphkit/model/files.h"

namespace morphkit::cli {
namespace {

struct BatchCommandOptions {
  std::string job;
  bool resume = false;
  bool force = false;
  bool json = false;
  uint32_t workers = 0;  // 0: the job's "workers", else defaultBatchWorkers
};

// Every task of the plan on `workers` threads, each encoding its frames on its share of the cores; results in plan
// order.
std::vector<BatchTaskResult> runTasks(const BatchPlan& plan, unsigned workers) {
  const unsigned encoders = std::max(1u, std::thread::hardware_concurrency() / std::max(workers, 1u));
  std::vector<BatchTaskResult> results(plan.tasks.size());
  std::atomic<size_t> next{0};
  std::mutex progress_mutex;
  size_t done = 0;
  ProgressBar progress("batch", plan.tasks.size());
  auto work = [&] {
    std::unique_ptr<BatchWorker, void (*)(BatchWorker*)> worker(createBatchWorker(), destroyBatchWorker);
    for (size_t i = next++; i < plan.tasks.size(); i = next++) {
      results[i] = runBatchTask(*worker, plan.job, plan.tasks[i], "local", encoders);
      std::lock_guard lock(progress_mutex);
      progress.update(++done);
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < workers; ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  return results;
}

int run(const BatchCommandOptions& o) {
  Expected<std::vector<uint8_t>> text = readFile(o.job, size_t(16) << 20);
  if (!text) return reportFailure(o.job, text.error());
  const std::filesystem::path base = std::filesystem::path(o.job).parent_path();
  Expected<BatchJob> job = parseBatchJob(std::string_view(reinterpret_cast<const char*>(text->data()), text->size()),
                                         base.empty() ? std::filesystem::path(".") : base);
  if (!job) return reportFailure(o.job, job.error());
  if (o.resume) job->resume = true;
  if (o.force) job->force = true;
  Expected<BatchPlan> plan = planBatch(*job);
  if (!plan) return reportFailure(o.job, plan.error());

  const unsigned workers = o.workers ? o.workers : plan->job.workers;  // planBatch filled in the default
  const std::vector<BatchTaskResult> results =
      runTasks(*plan, std::min<unsigned>(workers, std::max<size_t>(plan->tasks.size(), 1)));
  if (Status s = writeBatchManifest(plan->job, results); !s) return reportFailure(o.job, s.error());
  uint32_t failed = 0, skipped = 0, rendered = 0;
  for (const BatchTaskResult& r : results) {
    if (!r.error.empty()) {
      ++failed;
      fmt::print(stderr, "morphkit: error: {}: task {} ({} {} frames {}:{}): {}\n", o.job, r.id, r.asset_key,
                 r.animation_key, r.first, r.last, r.error);
    }
    skipped += r.skipped ? 1 : 0;
    rendered += r.rendered;
  }
  std::filesystem::path out(plan->job.out);
  if (out.is_relative()) out = plan->job.base_dir / out;
  const std::string manifest = (out / plan->job.manifest).string();
  if (o.json) {
    JsonWriter json;
    json.beginObject().field("manifest", std::string_view(manifest)).field("tasks", uint64_t(results.size()));
    json.field("failed", failed).field("skipped", skipped).field("rendered", rendered).endObject();
    fmt::print("{}\n", json.str());
  } else {
    fmt::print("{}: {} task{} ({} failed, {} skipped), {} frame{} rendered -> {}\n", o.job, results.size(),
               results.size() == 1 ? "" : "s", failed, skipped, rendered, rendered == 1 ? "" : "s", manifest);
  }
  return failed ? kExitFailure : 0;
}

const CommandRegistration kBatchCommand(
    {48, [](CLI::App& app, int& exit_code) {
       auto options = std::make_shared<BatchCommandOptions>();
       CLI::App* sub = app.add_subcommand(
           "batch", "Run a batch job (JSON, docs/BATCH.md): posed arrays and frames for many assets");
       sub->add_option("JOB", options->job, "the job file (the format of the Python package's morphkit.batch)")
           ->required();
       auto* resume =
           sub->add_flag("--resume", options->resume, "skip tasks whose outputs are complete (as \"resume\": true)");
       sub->add_flag("--force", options->force,
                     "write into an out folder that holds another run's files (as \"force\": true)")
           ->excludes(resume);
       sub->add_option("--workers", options->workers,
                       "tasks side by side, each worker with its own Vulkan context (default: the job's \"workers\", "
                       "else 1 for a job that uses the GPU, half the cores for CPU poses only)")
           ->check(CLI::Range(1u, 1024u));
       sub->add_flag("--json", options->json, "print the summary as one JSON object");
       sub->callback([options, &exit_code] { exit_code = run(*options); });
     }});

}  // namespace
}  // namespace morphkit::cli
#endif  // HAVE_morphkit_batch
