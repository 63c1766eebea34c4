# SPDX-License-Identifier: MIT
"""morphkit.batch — batch jobs over many assets on Dask distributed (docs/BATCH.md).

    import morphkit.batch

    if __name__ == "__main__":     # required in a script: Dask's worker processes re-import it
        manifest = morphkit.batch.run({"assets": ["avatars/*.glb"], "out": "out", "outputs": ["poses", "frames"],
                                       "frames": [0, 120], "chunk": 30})
        manifest["summary"]        # {"tasks": ..., "failed": ..., "skipped": ..., ...}

The job is split into tasks of at most `chunk` frames of one animation of one asset. Each task writes its own
files (OUT/<asset>/<animation>/frame_NNNN.png, poses/*.npy, done/<range>.json last), so a retried task, a
re-run and `resume` give the same bytes. Planning, the task itself and the manifest are the C++ library's
(the same code as `morphkit batch JOB.json`); this module only hands tasks to Dask and gathers results.
"""
from __future__ import annotations

import ast
import json
import os
import pathlib
import sys
import uuid
from typing import Any, Callable, Mapping

from . import _morphkit

JobLike = Mapping[str, Any] | str | os.PathLike[str]


def _load_job(job: JobLike) -> tuple[str, str]:
    """(job JSON text, the folder relative paths resolve against)."""
    if isinstance(job, Mapping):
        data = dict(job)
        return json.dumps(data), str(data.pop("base_dir", os.getcwd()))
    path = pathlib.Path(job)
    return path.read_text(), str(path.parent.resolve())


def plan(job: JobLike) -> tuple[dict[str, Any], list[str]]:
    """The normalized job (every default filled in) and its tasks, as JSON texts for the workers."""
    text, base_dir = _load_job(job)
    job_json, tasks = _morphkit._batch_plan(text, base_dir)
    return json.loads(job_json), tasks


def run_task(task_json: str, hook: Callable[[str], None] | None = None, encoders: int = 1) -> str:
    """Runs one task in this process (on a Dask worker) and returns its result JSON. Never raises for a bad
    asset: the error is inside the result. `hook(task_json)` runs first (tests use it to kill a worker).
    `encoders`: threads that PNG-encode the task's frames while the next ones render (run() gives each of a
    LocalCluster's workers its share of the cores)."""
    try:
        from distributed import get_worker
        name = get_worker().address
    except (ImportError, ValueError):
        name = "local"
    if hook is not None:
        hook(task_json)
    return _morphkit._batch_run_task(task_json, name, max(1, int(encoders)))


def _is_main_guard(test: ast.expr) -> bool:
    """`__name__ == "__main__"`, either way round."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    texts = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return len(names) == 1 and len(texts) == 1


def _unguarded_script_line() -> tuple[str, int] | None:
    """(script, line) when this call comes from the top level of the script Python runs (`python3 job.py`),
    outside an `if __name__ == "__main__":` block. LocalCluster's worker processes are spawned: each one
    re-imports that script, would reach the call again and start processes of its own, which multiprocessing
    refuses with a RuntimeError per worker, again and again. None when there is no such script (an interactive
    session, a notebook, `python3 -c`) or the call is guarded."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or not path:
        return None
    frame = sys._getframe(1)
    while frame is not None and not (frame.f_code.co_name == "<module>" and frame.f_globals is vars(main)):
        frame = frame.f_back
    if frame is None:
        return None
    line = frame.f_lineno
    try:
        tree = ast.parse(pathlib.Path(path).read_text(), path)
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return None
    for node in tree.body:
        if isinstance(node, ast.If) and _is_main_guard(node.test) and node.lineno <= line <= (node.end_lineno or 0):
            return None
    return path, line


def _refuse_unguarded_script() -> None:
    where = _unguarded_script_line()
    if where is not None:
        raise RuntimeError(
            f"{where[0]}:{where[1]}: morphkit.batch.run at the top level of a script starts Dask worker processes "
            'that re-import the script; put the call under `if __name__ == "__main__":`')


def run(job: JobLike, *, client: Any = None, scheduler: str | None = None, workers: int | None = None,
        resume: bool | None = None, force: bool | None = None,
        hook: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Runs a batch job on Dask distributed and returns its manifest (also written to OUT/<manifest>).

    client: a distributed.Client to use as it is. Otherwise `scheduler` (or the job's "scheduler") is the
    address of a running scheduler (`dask scheduler`, then `dask worker ADDRESS` on each machine), and
    without one a LocalCluster of `workers` (or the job's "workers", default: 1 for a job that uses the GPU, half the cores
    for CPU poses only) single-threaded
    worker processes is started and closed again. resume, force: override the job's "resume" and "force" (an
    `out` that holds files is refused without one of them: it would mix two runs).
    A failing asset, or a task whose workers kept dying, is an error entry in the manifest, not an exception.
    """
    text, base_dir = _load_job(job)
    data = json.loads(text)
    if resume is not None:
        data["resume"] = bool(resume)
    if force is not None:
        data["force"] = bool(force)
    address = scheduler or data.get("scheduler")
    if client is None and not address:
        _refuse_unguarded_script()  # before planning, which may load many assets
    job_json, tasks = _morphkit._batch_plan(json.dumps(data), base_dir)

    from distributed import Client, LocalCluster, as_completed

    own: list[Any] = []
    encoders = 1  # a cluster's machines are not known here; a LocalCluster's workers share this one's cores
    if client is None:
        if address:
            client = Client(address)
        else:
            count = workers or json.loads(job_json)["workers"]  # the planner's default when the job names none
            cluster = LocalCluster(n_workers=int(count), threads_per_worker=1, processes=True, dashboard_address=None)
            encoders = max(1, (os.cpu_count() or 2) // int(count))
            own.append(cluster)
            client = Client(cluster)
        own.insert(0, client)
    try:
        run_id = uuid.uuid4().hex[:12]
        futures = client.map(run_task, tasks, hook=hook, encoders=encoders,
                             key=[f"morphkit-task-{run_id}-{i}" for i in range(len(tasks))])
        index = {future.key: i for i, future in enumerate(futures)}
        results: list[str] = [""] * len(tasks)
        for future in as_completed(futures):
            i = index[future.key]
            try:
                results[i] = future.result()
            except Exception as e:  # e.g. KilledWorker: the task's workers died too often
                results[i] = _morphkit._batch_failed_result(tasks[i], "", f"{type(e).__name__}: {e}")
        del futures
    finally:
        for thing in own:
            thing.close()
    _, manifest = _morphkit._batch_write_manifest(job_json, results)
    return json.loads(manifest)


__all__ = ["plan", "run", "run_task"]
