#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Batch throughput on this machine: the same job on a Dask LocalCluster of 1 and of 2 single-threaded workers,
frames per second of wall time and each worker process's peak RSS (docs/BATCH.md quotes the output).

    PYTHONPATH=build/release/python /usr/bin/python3 bench/batch_bench.py [--frames 96] [--size 256] [--workers 1 2]

The job: MorphSkinBlob52 (8383 vertices, 52 targets, skinned) and Fox, their first animation, frames [0, F) at 30
fps, chunks of 16, posed arrays and PNG frames. Each run writes into a fresh folder (no resume). The first run
of each cluster size is preceded by a warm-up task so process start and the shader compile are not counted.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import shutil
import sys
import tempfile
import time


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main() -> int:
    import distributed
    import morphkit.batch

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", default=os.environ.get("MORPHKIT_SHARED_DIR", "../shared"))
    parser.add_argument("--frames", type=int, default=96)
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    assets = pathlib.Path(args.shared) / "assets" / "gltf"
    models = [assets / "MorphSkinBlob52/MorphSkinBlob52.glb", assets / "Fox/glTF-Binary/Fox.glb"]
    results = []
    for count in args.workers:
        out = pathlib.Path(tempfile.mkdtemp(prefix="morphkit-batch-bench-"))
        job = {"assets": [str(m) for m in models], "animations": [0], "frames": [0, args.frames], "chunk": 16,
               "size": [args.size, args.size], "outputs": ["poses", "frames"]}
        cluster = distributed.LocalCluster(n_workers=count, threads_per_worker=1, processes=True, dashboard_address=None)
        with distributed.Client(cluster) as client:
            morphkit.batch.run({**job, "frames": [0, 1], "out": str(out / "warmup")}, client=client)
            start = time.perf_counter()
            manifest = morphkit.batch.run({**job, "out": str(out / "run")}, client=client)
            seconds = time.perf_counter() - start
            rss = client.run(peak_rss_mib)
        cluster.close()
        frames = manifest["summary"]["frames"]
        assert manifest["summary"]["failed"] == 0, manifest["tasks"]
        results.append({"workers": count, "frames": frames, "seconds": round(seconds, 2),
                        "frames_per_second": round(frames / seconds, 2),
                        "worker_peak_rss_mib": sorted(round(v) for v in rss.values())})
        print(json.dumps(results[-1]), flush=True)
        shutil.rmtree(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
