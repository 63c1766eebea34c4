// SPDX-License-Identifier: MIT
// `morphkit batch JOB.json [--resume] [--json]`: runs a batch job (morphkit/batch.h, docs/BATCH.md) in this
// process, task after task, and writes its manifest. The Python package's morphkit.batch runs the same tasks
// on Dask distributed; both give the same files. A failing asset is reported in the manifest and on stderr and
// does not stop the batch; the exit code is 1 when any task failed.
#ifdef HAVE_morphkit_batch
#include <fmt/core.h>

#include <memory>
#include <string>

#include "command.h"
#include "morphkit/batch.h"
#include "morphkit/io.h"
#include "morphkit/json_writer.h"

namespace morphkit::cli {
namespace {

struct BatchCommandOptions {
  std::string job;
  bool resume = false;
  bool force = false;
  bool json = false;
};

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

  std::unique_ptr<BatchWorker, void (*)(BatchWorker*)> worker(createBatchWorker(), destroyBatchWorker);
  std::vector<BatchTaskResult> results;
  {
    ProgressBar progress("batch", plan->tasks.size());
    for (const BatchTask& task : plan->tasks) {
      results.push_back(runBatchTask(*worker, plan->job, task, "local"));
      progress.update(results.size());
    }
  }
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

const CommandRegistration kRegistration(
    {45, [](CLI::App& app, int& exit_code) {
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
       sub->add_flag("--json", options->json, "print the summary as one JSON object");
       sub->callback([options, &exit_code] { exit_code = run(*options); });
     }});

}  // namespace
}  // namespace morphkit::cli
#endif  // HAVE_morphkit_batch
