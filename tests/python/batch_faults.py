# SPDX-License-Identifier: MIT
"""A task hook for tests/python/test_batch.py, importable on Dask workers (PYTHONPATH has this folder)."""
from __future__ import annotations

import json
import os
import pathlib
import signal


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
