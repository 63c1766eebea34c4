#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""`morphkit optimize` beside gltfpack -cc and glTF-Transform on the same files, in one run (docs/OPTIMIZE.md).

    scripts/install-compressors
    PYTHONPATH=build/release/python /usr/bin/python3 bench/optimize_peers.py --cli build/release/src/cli/morphkit \
        [--out DIR] [--made] [FILE ...]

--made adds the files the bench makes itself (issue 53's classes): the demo's captured face (`make-demo`, then
`animate --weights-csv` with the capture make-demo writes) and AnimatedMorphCube with its positions and deltas
scaled by 100 (coordinates in the hundreds, unskinned).

For each file: gltfpack -cc and `gltf-transform meshopt` (its quantize + meshopt) write their outputs; each
peer's error is measured by posing input and output with morphkit's CPU path at the same poses (every weight 0,
each target alone at weight 1, every animation at 30 Hz and its end) and matching each output vertex to the
input vertex at the same rest position (the peers reorder and weld vertices and move meshes into new nodes).
morphkit optimize then runs with gltfpack's own geometry error (every weight 0 and each target alone: its
animation error includes the keys it breaks) as its bound for every pose (--max-error), and once more at its
default bound. Sizes are gzip -9 of the .glb; times are the whole command, morphkit's verification included.
Prints one Markdown table row per file and a sum row.
"""
from __future__ import annotations

import argparse
import gzip
import json
import math
import pathlib
import subprocess
import sys
import time

import numpy as np

import morphkit

ROOT = pathlib.Path(__file__).resolve().parent.parent
BIN = ROOT / "tools/compressors/node_modules/.bin"
DEFAULT_FILES = [
    "MorphSkinBlob52/MorphSkinBlob52.glb",
    "MorphSkinBlob52/MorphSkinBlob52_sparse.glb",
    "MorphSkinBlob52/MorphSkinBlob52_quantized.glb",
    "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf",
    "BlenderIO_01_cs_morph/01_cs_morph.gltf",
    "MorphPrimitivesTest/glTF-Binary/MorphPrimitivesTest.glb",
    "SkinMorphEdgeCases/skin_morph.gltf",
]


def scaled_cube(out: pathlib.Path) -> pathlib.Path:
    """AnimatedMorphCube with every POSITION and POSITION delta times 100, written beside `out` (.gltf + .bin)."""
    source = ROOT.parent / "shared/assets/gltf/AnimatedMorphCube/glTF"
    document = json.loads((source / "AnimatedMorphCube.gltf").read_text())
    data = bytearray((source / document["buffers"][0]["uri"]).read_bytes())
    primitive = document["meshes"][0]["primitives"][0]
    positions = [primitive["attributes"]["POSITION"]] + [t["POSITION"] for t in primitive.get("targets", [])]
    for index in positions:
        accessor = document["accessors"][index]
        view = document["bufferViews"][accessor["bufferView"]]
        start = view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
        values = np.frombuffer(data, dtype=np.float32, count=3 * accessor["count"], offset=start) * np.float32(100)
        data[start:start + values.nbytes] = values.tobytes()
        accessor["min"] = [float(v) for v in values.reshape(-1, 3).min(axis=0)]
        accessor["max"] = [float(v) for v in values.reshape(-1, 3).max(axis=0)]
    document["buffers"][0]["uri"] = "AnimatedMorphCube_x100.bin"
    (out / "AnimatedMorphCube_x100.bin").write_bytes(bytes(data))
    path = out / "AnimatedMorphCube_x100.gltf"
    path.write_text(json.dumps(document))
    return path


def captured_face(cli: str, out: pathlib.Path) -> pathlib.Path:
    """The demo's face (20k vertices, 52 targets) with make-demo's capture baked into an animation, as scripts/demo."""
    face, captured = out / "demo.glb", out / "demo_captured.glb"
    subprocess.run([cli, "make-demo", face], capture_output=True, check=True)
    subprocess.run([cli, "animate", face, "--weights-csv", out / "demo_capture.csv", "--out", captured],
                   capture_output=True, check=True)
    return captured


def timed(command: list[str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True)
    return time.perf_counter() - start, done


def gz(path: pathlib.Path) -> int:
    return len(gzip.compress(path.read_bytes(), 9))


def poses(asset: morphkit.Asset) -> list[dict]:
    names = asset.target_names
    zero = {n: 0.0 for n in names}
    out = [{"anim": None, "times": [0.0], "weights": zero or None}]
    for name in names:
        out.append({"anim": None, "times": [0.0], "weights": {**zero, name: 1.0}})
    for a in asset.animations:
        steps = max(1, int(math.ceil(a.duration * 30)))
        out.append({"anim": a.name or a.index, "times": [a.duration * i / steps for i in range(steps + 1)],
                    "weights": None})
    return out


def world_positions(asset: morphkit.Asset, pose: dict) -> np.ndarray:
    """(frames, all posed vertices, 3) in world space, every posed primitive in order."""
    result = asset.pose(anim=pose["anim"], times=pose["times"], weights=pose["weights"], path="reference")
    return np.concatenate([p.positions for p in result], axis=1).astype(np.float64)


def nearest(reference: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """Index into reference of each query's nearest point (exact, in blocks)."""
    out = np.empty(len(queries), dtype=np.int64)
    for start in range(0, len(queries), 512):
        q = queries[start:start + 512]
        d = ((q[:, None, :] - reference[None, :, :]) ** 2).sum(axis=2)
        out[start:start + 512] = d.argmin(axis=1)
    return out


def peer_error(input_path: pathlib.Path, output_path: pathlib.Path) -> tuple[float, float, float]:
    """Largest world-space distances (metres) of the output from the input: (geometry: every weight 0 and each
    target alone; animations at every 30 Hz time strictly inside the clip; animations at the clip's start and end).
    inf where a pose cannot be made on the output (names or animations dropped)."""
    a = morphkit.load(input_path)
    b = morphkit.load(output_path)
    rest = poses(a)[0]
    match = nearest(world_positions(a, rest)[0], world_positions(b, rest)[0])
    worst = [0.0, 0.0, 0.0]
    for pose in poses(a):
        try:
            pb = world_positions(b, pose)
        except morphkit.Error:
            worst[0 if pose["anim"] is None else 1] = math.inf
            continue
        pa = world_positions(a, pose)
        frames = np.sqrt(((pa[:, match, :] - pb) ** 2).sum(axis=2)).max(axis=1)
        if pose["anim"] is None:
            worst[0] = max(worst[0], float(frames.max()))
            continue
        # The first and last frame (t = 0 and the clip end) apart: gltfpack moves the last key of a STEP
        # channel, an error of the clip end alone; the frames inside show its weight and resampling error.
        worst[1] = max(worst[1], float(frames[1:-1].max()) if len(frames) > 2 else 0.0)
        worst[2] = max(worst[2], float(frames[0]), float(frames[-1]))
    return worst[0], worst[1], worst[2]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--out", default="out/optimize_peers")
    parser.add_argument("--no-gltf-transform", action="store_true", help="skip glTF-Transform (its column is -)")
    parser.add_argument("--made", action="store_true", help="add the files the bench makes (see the docstring)")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    shared = ROOT.parent / "shared/assets/gltf"
    files = [pathlib.Path(f) for f in args.files] or [shared / f for f in DEFAULT_FILES]
    if args.made:
        files += [captured_face(args.cli, out), scaled_cube(out)]
    print("| file | input gz KB | gltfpack -cc gz KB (geometry; animation inside the clip; clip start and end mm/m) "
          "| glTF-Transform meshopt gz KB (geometry; inside; ends mm/m) | morphkit at gltfpack's geometry error: gz KB (largest, every pose, mm/m) "
          "| / gltfpack | morphkit at its default 0.2 mm/m: gz KB (mm/m) | / gltfpack "
          "| time gltfpack / gltf-transform / morphkit s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    sums = {"gp": 0, "mk": 0, "default": 0}
    times = {"gp": 0.0, "mk": 0.0}
    for path in files:
        stem = path.stem
        gp, gt, mk = out / f"{stem}.gltfpack.glb", out / f"{stem}.gltf-transform.glb", out / f"{stem}.morphkit.glb"
        t_gp, done = timed([BIN / "gltfpack", "-cc", "-i", path, "-o", gp])
        if done.returncode != 0:
            print(f"gltfpack failed on {path}: {done.stderr}", file=sys.stderr)
            continue
        t_gt, gt_ok = 0.0, False
        if not args.no_gltf_transform:
            t_gt, done = timed([BIN / "gltf-transform", "meshopt", path, gt])
            gt_ok = done.returncode == 0
        diagonal = json.loads(subprocess.run([args.cli, "optimize", path, "--out", mk, "--json"],
                                             capture_output=True, text=True, check=True).stdout)["diagonalM"]
        g_gp, a_gp, e_gp = peer_error(path, gp)
        g_gt, a_gt, e_gt = peer_error(path, gt) if gt_ok else (math.inf, math.inf, math.inf)
        # The bound: gltfpack's geometry error (its animation error includes what it breaks, docs/OPTIMIZE.md).
        bound_mm = max(g_gp * 1000.0, 1e-6 * diagonal * 1000.0) if math.isfinite(g_gp) else 2e-4 * diagonal * 1000
        t_mk, done = timed([args.cli, "optimize", path, "--out", mk, "--json",
                            "--max-error", f"{bound_mm:.9g}"])
        if done.returncode != 0:
            print(f"morphkit failed on {path}: {done.stderr}", file=sys.stderr)
            continue
        report = json.loads(done.stdout)
        default = out / f"{stem}.morphkit-default.glb"
        t_default, done = timed([args.cli, "optimize", path, "--out", default, "--json"])
        report_default = json.loads(done.stdout)
        per_m = 1000.0 / diagonal if diagonal > 0 else 0.0
        size = {k: gz(p) for k, p in (("in", path), ("gp", gp), ("mk", mk), ("default", default))}
        sums["default"] += size["default"]
        size["gt"] = gz(gt) if gt_ok else 0
        sums["gp"] += size["gp"]
        sums["mk"] += size["mk"]
        times["gp"] += t_gp
        times["mk"] += t_mk
        print(f"| {path.name} | {size['in'] / 1024:.1f} | {size['gp'] / 1024:.1f} ({g_gp * per_m:.3g}; "
              f"{a_gp * per_m:.3g}; {e_gp * per_m:.3g}) | {size['gt'] / 1024:.1f} ({g_gt * per_m:.3g}; "
              f"{a_gt * per_m:.3g}; {e_gt * per_m:.3g}) | "
              f"{size['mk'] / 1024:.1f} ({report['maxDistanceMmPerM']:.3g}) | {size['mk'] / size['gp']:.3f} | "
              f"{size['default'] / 1024:.1f} ({report_default['maxDistanceMmPerM']:.3g}) | "
              f"{size['default'] / size['gp']:.3f} | {t_gp:.2f} / {t_gt:.2f} / {t_mk:.2f} |", flush=True)
    if sums["gp"]:
        print(f"| **sum** | | {sums['gp'] / 1024:.1f} | | {sums['mk'] / 1024:.1f} | "
              f"**{sums['mk'] / sums['gp']:.3f}** | {sums['default'] / 1024:.1f} | "
              f"**{sums['default'] / sums['gp']:.3f}** | {times['gp']:.2f} / - / {times['mk']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
