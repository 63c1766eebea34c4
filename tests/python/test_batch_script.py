# SPDX-License-Identifier: MIT
"""morphkit.batch.run from a user's script, each in a fresh interpreter under a timeout (a hang fails the test
instead of stalling the suite): unguarded at the top level it fails at once with one error naming the guard; under
the guard it runs; with a distributed.Client the script made itself it runs on that client."""
from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import textwrap

import pytest

import morphkit
import morphkit.batch

pytest.importorskip("distributed")

# Generous: a LocalCluster's start under the sanitizers takes seconds; only a hang (the traceback storm it
# replaces ran until killed) comes near it.
TIMEOUT_S = 300


def run_script(tmp_path: pathlib.Path, body: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "job.py"
    script.write_text(textwrap.dedent(body))
    process = subprocess.Popen([sys.executable, str(script)], cwd=tmp_path, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = process.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # the script and every worker process it started
        out, err = process.communicate()
        pytest.fail(f"{script} still running after {TIMEOUT_S} s; stderr ends: {err[-2000:]}")
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def job_text(demo_glb: pathlib.Path, out: pathlib.Path) -> str:
    return repr({"assets": [str(demo_glb)], "out": str(out), "outputs": ["poses"], "animations": [0], "frames": [0, 2],
                 "chunk": 1, "workers": 1})


def expect_one_guard_error(done: subprocess.CompletedProcess[str], script: pathlib.Path, line: int) -> None:
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("Traceback") == 1, done.stderr
    assert "An attempt has been made to start a new process" not in done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"RuntimeError: {script}:{line}: morphkit.batch.run at the top level of a script starts Dask worker "
        'processes that re-import the script; put the call under `if __name__ == "__main__":`')


def test_an_unguarded_top_level_call_fails_at_once_naming_the_guard(demo_glb: pathlib.Path,
                                                                     tmp_path: pathlib.Path) -> None:
    done = run_script(tmp_path, f"""\
        import morphkit.batch
        manifest = morphkit.batch.run({job_text(demo_glb, tmp_path / "out")})
        print(manifest["summary"])
        """)
    expect_one_guard_error(done, tmp_path / "job.py", 2)
    assert not (tmp_path / "out").exists()  # refused before planning: nothing written


def test_a_helper_called_unguarded_fails_the_same_way(demo_glb: pathlib.Path, tmp_path: pathlib.Path) -> None:
    done = run_script(tmp_path, f"""\
        import morphkit.batch

        def main():
            return morphkit.batch.run({job_text(demo_glb, tmp_path / "out")})

        main()
        """)
    expect_one_guard_error(done, tmp_path / "job.py", 6)


def test_a_guarded_script_runs_the_batch(demo_glb: pathlib.Path, tmp_path: pathlib.Path) -> None:
    done = run_script(tmp_path, f"""\
        import morphkit.batch

        if __name__ == "__main__":
            manifest = morphkit.batch.run({job_text(demo_glb, tmp_path / "out")})
            print(manifest["summary"]["tasks"], manifest["summary"]["failed"])
        """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "0"]
    assert sorted(p.name for p in (tmp_path / "out/demo/0_talk/done").iterdir()) == ["f0000-0001.json",
                                                                                       "f0001-0002.json"]


def test_a_client_the_script_made_runs_the_batch(demo_glb: pathlib.Path, tmp_path: pathlib.Path) -> None:
    # Dask's own default: a LocalCluster of worker processes with several threads each.
    done = run_script(tmp_path, f"""\
        import distributed
        import morphkit.batch

        if __name__ == "__main__":
            with distributed.Client(n_workers=1, threads_per_worker=2, dashboard_address=None) as client:
                manifest = morphkit.batch.run({job_text(demo_glb, tmp_path / "out")}, client=client)
                workers = set(client.scheduler_info()["workers"])
            print(manifest["summary"]["tasks"], manifest["summary"]["failed"],
                  {{t["worker"] for t in manifest["tasks"]}} <= workers)
        """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "0", "True"]


def test_an_out_folder_of_another_run_needs_resume_or_force(demo_glb: pathlib.Path, tmp_path: pathlib.Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "old.txt").write_text("an earlier run")
    job = {"assets": [str(demo_glb)], "out": str(out), "outputs": ["poses"]}
    with pytest.raises(morphkit.InvalidArgumentError) as e:
        morphkit.batch.plan(job)
    assert str(e.value) == (f"job: out: '{out}' already holds 1 entry; resume (--resume) finishes that run, "
                            "force (--force) writes over it")
    assert morphkit.batch.plan({**job, "force": True})[0]["force"] is True
    assert morphkit.batch.plan({**job, "resume": True})[1]
