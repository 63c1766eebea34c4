// SPDX-License-Identifier: MIT
// batch_bindings.cpp — the extension's side of morphkit.batch: planning, running one task on a worker, the
// manifest. Everything crosses as JSON text (morphkit/batch/batch.h), so that Dask ships plain strings and the CLI's
// `morphkit batch` and the Dask front end run the very same task code.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <mutex>

#include "morphkit/batch/batch.h"
#include "python_module.h"

namespace py = pybind11;

namespace morphkit::python {
namespace {

// One worker state per process (a Dask worker process, or the client for a local run): tasks run one at a
// time in it, whatever the number of threads the Dask worker has.
std::mutex& workerMutex() {
  static std::mutex mutex;
  return mutex;
}
BatchWorker& processWorker() {
  static std::unique_ptr<BatchWorker, void (*)(BatchWorker*)> worker(createBatchWorker(), destroyBatchWorker);
  return *worker;
}

}  // namespace

void addBatchBindings(py::module_& m) {
  m.def(
      "_batch_plan",
      [](const std::string& job_json, const std::string& base_dir) {
        BatchJob job = take(parseBatchJob(job_json, base_dir), "job");
        BatchPlan plan;
        {
          py::gil_scoped_release release;
          Expected<BatchPlan> planned = planBatch(job);
          if (!planned) raise(planned.error(), "job");
          plan = std::move(*planned);
        }
        std::vector<std::string> tasks;
        for (const BatchTask& task : plan.tasks) tasks.push_back(batchTaskJson(plan.job, task));
        return std::make_pair(batchJobJson(plan.job), tasks);
      },
      py::arg("job_json"), py::arg("base_dir"), "Plan a job: (normalized job JSON, [task JSON]).");

  m.def(
      "_batch_run_task",
      [](const std::string& task_json, const std::string& worker_name, unsigned encoders) {
        BatchJob job;
        BatchTask task = take(parseBatchTaskJson(task_json, &job), "task");
        BatchTaskResult result;
        {
          py::gil_scoped_release release;
          std::lock_guard lock(workerMutex());
          result = runBatchTask(processWorker(), job, task, worker_name, encoders);
        }
        return batchTaskResultJson(result);
      },
      py::arg("task_json"), py::arg("worker"), py::arg("encoders") = 1u,
      "Run one task in this process, its PNG frames encoded on `encoders` threads; returns its result JSON (errors "
      "inside).");

  m.def(
      "_batch_worker_pipelines_created",
      [] {
        std::lock_guard lock(workerMutex());
        return batchWorkerPipelinesCreated(processWorker());
      },
      "Pipelines this process's batch worker (its one Vulkan context) has created so far.");

  m.def(
      "_batch_failed_result",
      [](const std::string& task_json, const std::string& worker_name, const std::string& message) {
        BatchJob job;
        BatchTask task = take(parseBatchTaskJson(task_json, &job), "task");
        BatchTaskResult result = batchTaskResultFor(task, worker_name);
        result.error = message;
        return batchTaskResultJson(result);
      },
      py::arg("task_json"), py::arg("worker"), py::arg("message"), "The result JSON of a task that never returned.");

  m.def(
      "_batch_write_manifest",
      [](const std::string& job_json, const std::vector<std::string>& results_json) {
        BatchJob job = take(parseBatchJob(job_json, "."), "job");
        std::vector<BatchTaskResult> results;
        for (const std::string& text : results_json) results.push_back(take(parseBatchTaskResultJson(text), "result"));
        std::sort(results.begin(), results.end(),
                  [](const BatchTaskResult& a, const BatchTaskResult& b) { return a.id < b.id; });
        Status written = writeBatchManifest(job, results);
        if (!written) raise(written.error(), "manifest");
        std::filesystem::path out(job.out);
        if (out.is_relative()) out = job.base_dir / out;
        return std::make_pair((out / job.manifest).string(), batchManifestJson(job, results));
      },
      py::arg("job_json"), py::arg("results_json"), "Write the manifest; returns (path, JSON text).");
}

}  // namespace morphkit::python
