# SPDX-License-Identifier: MIT
"""morphkit.batch on a 2-worker Dask LocalCluster against `morphkit batch` (one process): same bytes over every
shared model, a killed worker's task re-runs, resume does no work, a worker process compiles its pipelines once for
all its tasks. Small frames and few of them: CI has 2 cores."""
from __future__ import annotations

import json
import os
import pathlib
from typing import Any, Iterator

import pytest

import morphkit
import morphkit.batch
from batch_faults import KillOnce, pipelines_over_tasks
from conftest import ASSETS, run_cli, shared_models

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with distributed.Client(cluster) as c:
        c.wait_for_workers(2, timeout=120)  # on a loaded 2-core machine a worker process can come up late
        yield c
    cluster.close()


def files(out: pathlib.Path) -> dict[str, bytes]:
    """Every output file below `out` but the manifest (which holds timings), by relative path."""
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and p.name != "manifest.json"}


def small_job(assets: list[pathlib.Path], out: pathlib.Path, **extra: Any) -> dict[str, Any]:
    return {"assets": [str(a) for a in assets], "out": str(out), "outputs": ["poses", "frames"], "frames": [0, 2],
            "chunk": 1, "size": [16, 16], **extra}


def test_dask_batch_equals_one_process_over_every_shared_model(assets: pathlib.Path, gpu: None, cli: str, client: Any,
                                                                 tmp_path: pathlib.Path) -> None:
    broken = tmp_path / "broken.gltf"
    broken.write_text('{"asset": {"version": "2.0"}, "meshes": [{"primitives": []}]}')
    models = shared_models() + [broken]
    job_file = tmp_path / "job.json"
    job_file.write_text(json.dumps(small_job(models, tmp_path / "one")))
    done = run_cli(cli, "batch", job_file, "--json")
    assert done.returncode == 1, done.stderr  # the broken asset fails; every other task ran
    assert "broken.gltf" in done.stderr

    manifest = morphkit.batch.run(small_job(models, tmp_path / "dask"), client=client)
    one, dask = files(tmp_path / "one"), files(tmp_path / "dask")
    assert one.keys() == dask.keys()
    assert [k for k in one if one[k] != dask[k]] == []
    assert any(k.endswith(".png") for k in one) and any(k.endswith("_positions.npy") for k in one)

    summary = manifest["summary"]
    assert summary["tasks"] == len(manifest["tasks"]) and summary["failed"] == 1 and summary["skipped"] == 0
    failed = [t for t in manifest["tasks"] if t["error"]]
    assert failed[0]["asset"].endswith("broken.gltf") and "meshes[0]" in failed[0]["error"]
    assert json.loads((tmp_path / "dask" / "manifest.json").read_text())["summary"] == summary
    ok = [t for t in manifest["tasks"] if not t["error"]]
    # Every model is there, every task wrote its frames and arrays, named by the real frame index.
    assert {t["asset"] for t in ok} == {os.path.normpath(m) for m in models[:-1]}
    for task in ok:
        first, last = task["frames"]
        assert last - first == 1 and task["rendered"] == 1
        assert f"{task['asset_key']}/{task['animation_key']}/frame_{first:04d}.png" in task["outputs"]
        assert all((tmp_path / "dask" / o).is_file() for o in task["outputs"])
    assert {t["worker"] for t in ok} <= set(client.scheduler_info()["workers"])
    # A batch frame is the frame `morphkit render` draws (same camera: the whole clip).
    done = run_cli(cli, "render", ASSETS / "Fox/glTF-Binary/Fox.glb", "--anim", "0", "--frames", "1:2", "--size", "16x16",
                   "--out", tmp_path / "render", "--no-video")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "render/frame_0001.png").read_bytes() == dask["Fox/0_Survey/frame_0001.png"]


def test_killed_worker_task_reruns_and_resume_does_no_work(assets: pathlib.Path, gpu: None, client: Any,
                                                          tmp_path: pathlib.Path) -> None:
    models = [ASSETS / "Fox/glTF-Binary/Fox.glb", ASSETS / "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf"]
    reference = morphkit.batch.run(small_job(models, tmp_path / "ref", frames=[0, 3], animations=[0]), client=client)
    assert reference["summary"]["failed"] == 0

    marker = tmp_path / "killed"
    victim = 2
    manifest = morphkit.batch.run(small_job(models, tmp_path / "out", frames=[0, 3], animations=[0]), client=client,
                                  hook=KillOnce(str(marker), victim))
    assert marker.exists(), "the hook did not kill a worker"
    assert manifest["summary"]["failed"] == 0, [t["error"] for t in manifest["tasks"] if t["error"]]
    assert files(tmp_path / "out") == files(tmp_path / "ref")
    killed_pid = int(marker.read_text())
    assert killed_pid not in client.run(os.getpid).values()  # that worker is gone; its task ran elsewhere

    stamps = {p: p.stat().st_mtime_ns for p in (tmp_path / "out").rglob("*") if p.is_file() and p.name != "manifest.json"}
    again = morphkit.batch.run(small_job(models, tmp_path / "out", frames=[0, 3], animations=[0]), client=client,
                               resume=True)
    assert again["summary"]["skipped"] == again["summary"]["tasks"] == manifest["summary"]["tasks"]
    assert again["summary"]["rendered"] == 0
    assert [t["outputs"] for t in again["tasks"]] == [t["outputs"] for t in manifest["tasks"]]
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps  # nothing was rewritten


def test_job_errors(assets: pathlib.Path, cli: str, tmp_path: pathlib.Path) -> None:
    with pytest.raises(morphkit.InvalidArgumentError, match="assets: no file matches"):
        morphkit.batch.plan({"assets": [str(tmp_path / "*.glb")], "out": str(tmp_path / "o")})
    with pytest.raises(morphkit.InvalidArgumentError, match="colour: unknown key"):
        morphkit.batch.plan({"assets": ["a.glb"], "colour": "red"})
    with pytest.raises(morphkit.InvalidArgumentError, match="chunk"):
        morphkit.batch.plan({"assets": ["a.glb"], "chunk": 0})
    job, tasks = morphkit.batch.plan({"assets": [str(ASSETS / "Fox/glTF-Binary/Fox.glb")], "chunk": 10,
                                      "animations": ["Run"], "frames": [5, 32]})
    assert job["outputs"] == ["frames", "poses"] and job["chunk"] == 10
    assert [json.loads(t)["frames"] for t in tasks] == [[5, 15], [15, 25], [25, 32]]
    assert {json.loads(t)["animation_key"] for t in tasks} == {"2_Run"}
    bad = tmp_path / "bad.json"
    bad.write_text('{"assets": ["x.glb"], "fps": -1}')
    done = run_cli(cli, "batch", bad)
    assert done.returncode == 1 and done.stderr.startswith(f"morphkit: error: {bad}: fps: expected")


def test_a_dask_worker_compiles_its_pipelines_for_its_first_task_only(gpu: None, client: Any,
                                                                      tmp_path: pathlib.Path) -> None:
    # Each worker process runs three rendering tasks of one asset through morphkit.batch.run_task, as a Dask task
    # would: its one Vulkan context (and renderer) serves all three, so only the first compiles pipelines. A size no
    # other test renders, so the first task needs a renderer of its own even on a worker that ran earlier tests.
    job = small_job([ASSETS / "Fox/glTF-Binary/Fox.glb"], tmp_path / "out", frames=[0, 3], animations=[0],
                    size=[24, 24])
    client.wait_for_workers(2, timeout=120)  # a worker the nanny restarted under load counts once it is back
    per_worker = client.run(pipelines_over_tasks, job)
    assert len(per_worker) == 2
    for worker, counts in per_worker.items():
        assert counts[1] > counts[0], f"{worker}: the first task compiled no pipeline ({counts})"
        assert counts[1] == counts[2] == counts[3], f"{worker}: a later task compiled pipelines again ({counts})"
