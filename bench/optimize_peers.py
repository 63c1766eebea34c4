#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Issue 53's fair comparison: `morphkit optimize` beside `gltfpack -cc -kn -km -af 0` at the same largest error,
measured by three.js on both outputs (docs/OPTIMIZE.md).

    scripts/install-compressors && scripts/install-engines
    PYTHONPATH=build/release/python /usr/bin/python3 bench/optimize_peers.py --cli build/release/src/cli/morphkit \
        [--out DIR] [--made] [--no-gltf-transform] [FILE ...]

Files: the seven shared morph files (DEFAULT_FILES), or those named; --made adds the ones the bench makes
(bench/optimize_made.py: the demo's captured face, that face through `gltf-transform quantize`, AnimatedMorphCube
times 100, and Fox's Survey clip baked into one target per frame).

For each file: gltfpack runs at its most accurate setting (-cc -kn -km, and -af 0: no resampling);
tools/engines/pose_error.mjs measures its output against the input with three.js at every pose three.js shows
(rest at the file's default weights, each target alone at weight 1, every key time of every animation, every
midpoint between two keys, the clip end). morphkit optimize then gets that largest distance as its --max-error
(millimetres) and its output is measured by pose_error.mjs the same way. `gltf-transform meshopt` (quantize +
meshopt, its defaults) is a third column, measured the same way. Sizes are gzip -9 of the .glb; times are the
wall time of the whole command (morphkit's verification included). Prints two Markdown tables: the comparison with
a sum row, and where each output's bytes are before gzip (targets, base geometry, animation, JSON, other), from
each .glb's own bufferViews, with how many encodings morphkit tried (a grid that misses the bound is tried again
finer). Everything measured goes to DIR/results.json as well.
"""
from __future__ import annotations

import argparse
import gzip
import json
import pathlib
import struct
import subprocess
import sys
import time

from optimize_made import BIN, ROOT, SHARED, made_files

POSE_ERROR = ROOT / "tools/engines/pose_error.mjs"
DEFAULT_FILES = [
    "MorphSkinBlob52/MorphSkinBlob52.glb",
    "MorphSkinBlob52/MorphSkinBlob52_sparse.glb",
    "MorphSkinBlob52/MorphSkinBlob52_quantized.glb",
    "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf",
    "BlenderIO_01_cs_morph/01_cs_morph.gltf",
    "MorphPrimitivesTest/glTF-Binary/MorphPrimitivesTest.glb",
    "SkinMorphEdgeCases/skin_morph.gltf",
]
GLTFPACK = ["-cc", "-kn", "-km", "-af", "0"]
CATEGORIES = ("rest", "targets", "animations")


def timed(command: list) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True)
    return time.perf_counter() - start, done


def gz(path: pathlib.Path) -> int:
    return len(gzip.compress(path.read_bytes(), 9))


def pose_error(input_path: pathlib.Path, output_path: pathlib.Path) -> dict:
    """pose_error.mjs's report (see its header): per category the largest distance in m and mm/m, and where."""
    done = subprocess.run(["node", POSE_ERROR, input_path, output_path], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip())
    report = json.loads(done.stdout)
    if report["missing"]:  # poses the output cannot show are left out of its error: say so beside the table
        print(f"{output_path.name}: not posed: {', '.join(report['missing'])}", file=sys.stderr)
    return report


def glb_parts(path: pathlib.Path) -> dict[str, int]:
    """The .glb's bytes by what they hold: each bufferView's stored length (EXT_meshopt_compression's where encoded)
    split among the accessors in it by their decoded sizes, plus the JSON chunk."""
    data = path.read_bytes()
    length, = struct.unpack_from("<I", data, 12)
    document = json.loads(data[20:20 + length])
    role: dict[int, str] = {}
    for mesh in document.get("meshes", []):
        for primitive in mesh["primitives"]:
            for accessor in [*primitive["attributes"].values(), primitive.get("indices")]:
                if accessor is not None:
                    role[accessor] = "base"
            for target in primitive.get("targets", []):
                for accessor in target.values():
                    role[accessor] = "targets"
    for animation in document.get("animations", []):
        for sampler in animation["samplers"]:
            role[sampler["input"]] = role[sampler["output"]] = "animation"
    sizes = {"B": 1, "b": 1, "H": 2, "h": 2, "I": 4, "f": 4}
    component = {5120: "b", 5121: "B", 5122: "h", 5123: "H", 5125: "I", 5126: "f"}
    width = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}
    users: dict[int, list[tuple[str, int]]] = {}
    for index, accessor in enumerate(document.get("accessors", [])):
        if "bufferView" in accessor:
            decoded = accessor["count"] * width[accessor["type"]] * sizes[component[accessor["componentType"]]]
            users.setdefault(accessor["bufferView"], []).append((role.get(index, "other"), decoded))
    parts = {"targets": 0.0, "base": 0.0, "animation": 0.0, "other": 0.0}
    for index, view in enumerate(document.get("bufferViews", [])):
        stored = view.get("extensions", {}).get("EXT_meshopt_compression", view)["byteLength"]
        total = sum(size for _, size in users.get(index, [])) or 1
        for name, size in users.get(index, [("other", 1)]):
            parts[name] += stored * size / total
    return {**{k: round(v) for k, v in parts.items()}, "json": length}


def run_file(path: pathlib.Path, out: pathlib.Path, cli: str, with_gltf_transform: bool) -> dict:
    """Every command and measure of one file (the row's data)."""
    stem = path.stem
    gp, gt, mk = out / f"{stem}.gltfpack.glb", out / f"{stem}.gltf-transform.glb", out / f"{stem}.morphkit.glb"
    row: dict = {"file": path.name, "input": gz(path)}
    row["gltfpack_s"], done = timed([BIN / "gltfpack", *GLTFPACK, "-i", path, "-o", gp])
    if done.returncode != 0:
        raise RuntimeError(f"gltfpack: {done.stderr.strip()}")
    row["gltfpack"] = {"gz": gz(gp), "error": pose_error(path, gp), "parts": glb_parts(gp)}
    largest_m = row["gltfpack"]["error"]["largest"]["m"]
    diagonal = row["gltfpack"]["error"]["diagonalM"]
    # A lossless gltfpack output would ask for a bound of 0, which --max-error refuses: a millionth of the diagonal.
    row["bound_mm"] = max(largest_m, 1e-6 * diagonal) * 1000.0
    mk.unlink(missing_ok=True)
    row["morphkit_s"], done = timed([cli, "optimize", path, "--out", mk, "--json", "--max-error",
                                     f"{row['bound_mm']:.9g}"])
    if done.returncode != 0:
        raise RuntimeError(f"morphkit optimize: {done.stderr.strip()}")
    row["morphkit"] = {"gz": gz(mk), "error": pose_error(path, mk), "parts": glb_parts(mk),
                       "report": json.loads(done.stdout)}
    if with_gltf_transform:
        row["gltf_transform_s"], done = timed([BIN / "gltf-transform", "meshopt", path, gt])
        if done.returncode == 0:
            row["gltf_transform"] = {"gz": gz(gt), "error": pose_error(path, gt)}
    return row


def errors(measure: dict) -> str:
    """rest; targets; animations in mm per metre of the input's diagonal."""
    return "; ".join(f"{measure['error']['categories'][c]['mmPerM']:.3g}" for c in CATEGORIES)


def print_comparison(rows: list[dict]) -> None:
    print("| file | input gz KB | gltfpack gz KB | gltfpack three.js mm/m (rest; targets; animations) "
          "| morphkit --max-error mm | morphkit gz KB | morphkit three.js mm/m (rest; targets; animations) "
          "| morphkit / gltfpack gz | glTF-Transform meshopt gz KB (largest mm/m) "
          "| time s gltfpack / morphkit (÷) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        gt = r.get("gltf_transform")
        gt_cell = f"{gt['gz'] / 1024:.1f} ({gt['error']['largest']['mmPerM']:.3g})" if gt else "-"
        print(f"| {r['file']} | {r['input'] / 1024:.1f} | {r['gltfpack']['gz'] / 1024:.1f} | {errors(r['gltfpack'])} "
              f"| {r['bound_mm']:.4g} | {r['morphkit']['gz'] / 1024:.1f} | {errors(r['morphkit'])} "
              f"| {r['morphkit']['gz'] / r['gltfpack']['gz']:.3f} | {gt_cell} "
              f"| {r['gltfpack_s']:.2f} / {r['morphkit_s']:.2f} ({r['morphkit_s'] / r['gltfpack_s']:.2f}) |")
    gp = sum(r["gltfpack"]["gz"] for r in rows)
    mk = sum(r["morphkit"]["gz"] for r in rows)
    t_gp = sum(r["gltfpack_s"] for r in rows)
    t_mk = sum(r["morphkit_s"] for r in rows)
    print(f"| **sum** | | {gp / 1024:.1f} | | | {mk / 1024:.1f} | | **{mk / gp:.3f}** | "
          f"| {t_gp:.2f} / {t_mk:.2f} ({t_mk / t_gp:.2f}) |")


def print_parts(rows: list[dict]) -> None:
    print("\n| file | targets KB gltfpack / morphkit | base KB | animation KB | JSON KB | other KB (images, skins) "
          "| morphkit encodings |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        a, b = r["gltfpack"]["parts"], r["morphkit"]["parts"]
        cells = [f"{a[k] / 1024:.1f} / {b[k] / 1024:.1f}" for k in ("targets", "base", "animation", "json", "other")]
        print(f"| {r['file']} | " + " | ".join(cells) + f" | {r['morphkit']['report']['attempts']} |")


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
    files = [pathlib.Path(f) for f in args.files] or [SHARED / f for f in DEFAULT_FILES]
    if args.made:
        files += made_files(args.cli, out)
    rows = []
    for path in files:
        try:
            rows.append(run_file(path, out, args.cli, not args.no_gltf_transform))
        except RuntimeError as e:
            print(f"{path}: {e}", file=sys.stderr)
        print(f"{path.name}: done", file=sys.stderr, flush=True)
    (out / "results.json").write_text(json.dumps(rows, indent=1))
    if rows:
        print_comparison(rows)
        print_parts(rows)
    return 0 if len(rows) == len(files) else 1


if __name__ == "__main__":
    sys.exit(main())
