# SPDX-License-Identifier: MIT
"""Task hooks and probes for tests/python/test_batch.py, importable on Dask workers (PYTHONPATH has this folder)."""
from __future__ import annotations

import json
import os
import pathlib
import signal
from typing import Any


class KillOnce:
    """Kills the worker process that picks task `task_id`, the first time only (a marker file remembers)."""

    def __init__(self, marker: str, task_id: int) -> None:
        self.marker = marker
        self.task_id = task_id

    def __call__(self, task_json: str) -> None:
        if json.loads(task_json)["id"] != self.task_id:
            return
        try:
            fd = os.open(pathlib.Path(self.marker), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        os.kill(os.getpid(), signal.SIGKILL)


def pipelines_over_tasks(job: dict[str, Any]) -> list[int]:
    """Runs the first three tasks of `job` (its `out` made this process's own) in this process, one after the other;
    returns the pipelines this process's batch worker had created before and after each."""
    import morphkit._morphkit as native
    import morphkit.batch

    job = dict(job, out=os.path.join(job["out"], str(os.getpid())))
    _, tasks = morphkit.batch.plan(job)
    counts = [native._batch_worker_pipelines_created()]
    for task in tasks[:3]:
        result = json.loads(morphkit.batch.run_task(task))
        assert not result["error"], result["error"]
        counts.append(native._batch_worker_pipelines_created())
    return counts
