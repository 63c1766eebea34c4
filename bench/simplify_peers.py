#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""`morphkit optimize --simplify` beside `gltfpack -si` at the same triangle count, both measured by three.js
(issue 55; docs/OPTIMIZE.md "Levels of detail").

    scripts/install-compressors && scripts/install-engines
    PYTHONPATH=build/release/python /usr/bin/python3 bench/simplify_peers.py --cli build/release/src/cli/morphkit \
        [--out DIR] [--ratios 0.5,0.25] [--samples N]

Files: MorphSkinBlob52, the demo's captured face (bench/optimize_peers.py's captured_face) and Fox. For each file
and R: `gltfpack -si R -slb -kn -km -af 0 -noq` (only simplification: nodes, materials, animation and floats kept),
then `morphkit optimize --simplify R2 --json` with R2 = gltfpack's triangles / the input's (retried, nudged, until
the counts agree or three runs are spent), each timed as a whole command (morphkit's encoding and verification
included). Both outputs are measured against the input by tools/engines/surface_distance.mjs: the largest
two-sided surface distance at every pose three.js shows, per category, in mm per metre of the input's rest
diagonal. Prints the Markdown table for docs/OPTIMIZE.md, then each morphkit run's own report beside three.js's
measure of it (why it lands where it does); the JSON of every step stays in DIR.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import re
import subprocess
import sys

from optimize_made import BIN, ROOT, captured_face
from optimize_peers import timed

TOOL = ROOT / "tools/engines/surface_distance.mjs"
SHARED = ROOT.parent / "shared/assets/gltf"
CATEGORIES = ("rest", "targets", "animations")
# Issue 55's goals: morphkit's distance over gltfpack's at rest / over targets and animations, and its time over
# gltfpack's.
GOAL_REST, GOAL_POSED, GOAL_TIME = 1.1, 0.7, 3.0


def gltfpack(source: pathlib.Path, out: pathlib.Path, ratio: float) -> float:
    seconds, done = timed([BIN / "gltfpack", "-i", source, "-o", out, "-si", f"{ratio}", "-slb", "-kn", "-km",
                           "-af", "0", "-noq"])
    if done.returncode != 0:
        raise RuntimeError(f"gltfpack failed on {source}: {done.stderr}")
    return seconds


def surface_distance(source: pathlib.Path, out: pathlib.Path, samples: int) -> dict:
    done = subprocess.run(["node", TOOL, source, out, "--samples", str(samples)], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"surface_distance.mjs failed on {out}: {done.stderr}")
    return json.loads(done.stdout)


def simplified_triangles(report: dict, triangles_in: int) -> int:
    """The output's triangles from the simplify pass's change lines ("... 16128 -> 8064 triangles ...")."""
    removed = 0
    for entry in report["passes"]:
        if entry["name"] == "simplify":
            for change in entry["changes"]:
                match = re.search(r"(\d+) -> (\d+) triangles", change)
                if match:
                    removed += int(match.group(1)) - int(match.group(2))
    return triangles_in - removed


def morphkit_at(cli: str, source: pathlib.Path, out: pathlib.Path, triangles_in: int,
                goal: int) -> tuple[float, dict, float, int]:
    """morphkit optimize at gltfpack's triangle count: (seconds of the last run, its report, R2, its triangles)."""
    ratio = goal / triangles_in
    for _ in range(3):
        out.unlink(missing_ok=True)
        seconds, done = timed([cli, "optimize", source, "--out", out, "--simplify", f"{ratio:.9g}", "--json",
                               "--no-progress"])
        if done.returncode != 0:
            raise RuntimeError(f"morphkit failed on {source}: {done.stderr}")
        report = json.loads(done.stdout)
        got = simplified_triangles(report, triangles_in)
        if got == goal:
            break
        ratio = min(1.0, ratio + (goal - got) / triangles_in)
    return seconds, report, ratio, got


def mm_per_m(measure: dict, category: str) -> float | None:
    entry = measure["categories"][category]
    return entry["mmPerM"] if entry else None


def posed_worst(measure: dict) -> float | None:
    values = [v for v in (mm_per_m(measure, "targets"), mm_per_m(measure, "animations")) if v is not None]
    return max(values) if values else None


def ratio_text(ours: float | None, theirs: float | None, goal: float) -> str:
    if ours is None or theirs is None:
        return "-"
    if theirs == 0:
        return "∞" if ours > 0 else "1"
    ratio = ours / theirs
    return f"**{ratio:.2f}**" if ratio > goal else f"{ratio:.2f}"


def figures(measure: dict) -> str:
    return " / ".join("-" if mm_per_m(measure, c) is None else f"{mm_per_m(measure, c):.3g}" for c in CATEGORIES)


def row(name: str, ratio: float, gp: dict, mk: dict, t_gp: float, t_mk: float) -> str:
    ratios = " / ".join(ratio_text(mm_per_m(mk, c), mm_per_m(gp, c), GOAL_REST if c == "rest" else GOAL_POSED)
                        for c in CATEGORIES)
    posed = ratio_text(posed_worst(mk), posed_worst(gp), GOAL_POSED)
    time_ratio = t_mk / t_gp
    time_text = f"**{time_ratio:.1f}**" if time_ratio > GOAL_TIME else f"{time_ratio:.1f}"
    return (f"| {name} | {ratio} | {gp['triangles']['input']} / {gp['triangles']['output']} / "
            f"{mk['triangles']['output']} | {figures(gp)} | {figures(mk)} | {ratios} | {posed} | "
            f"{t_gp:.2f} / {t_mk:.2f} ({time_text}) |")


def own_report(name: str, ratio: float, r2: float, report: dict, mk: dict) -> str:
    """morphkit's own figures beside three.js's: its surfaceErrors per category, the encoding's bound and error
    against the simplified mesh, and the simplify pass's change line (where it stopped and its largest collapse)."""
    own = {e["category"]: e["maxDistanceMmPerM"] for e in report["surfaceErrors"]}
    surfaces = " / ".join(f"{own[c]:.3g}" if c in own else "-" for c in CATEGORIES)
    diagonal = report["diagonalM"]
    change = next(e["changes"] for e in report["passes"] if e["name"] == "simplify")
    return (f"| {name} | {ratio} | {r2:.6g} | {surfaces} | {figures(mk)} | "
            f"{report['maxDistanceMmPerM']:.3g} (bound {report['boundMm'] / diagonal:.3g}) | {'; '.join(change)} |")


def inputs(cli: str, out: pathlib.Path) -> list[tuple[str, pathlib.Path]]:
    return [("MorphSkinBlob52", SHARED / "MorphSkinBlob52/MorphSkinBlob52.glb"),
            ("demo face (captured)", captured_face(cli, out)),
            ("Fox", SHARED / "Fox/glTF-Binary/Fox.glb")]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--out", default="out/simplify_peers")
    parser.add_argument("--ratios", default="0.5,0.25")
    parser.add_argument("--samples", type=int, default=100000, help="area-weighted samples per surface")
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print("| file | R | triangles in / gltfpack / morphkit | gltfpack mm/m rest / targets / animations "
          "| morphkit mm/m rest / targets / animations | morphkit / gltfpack (goal ≤ 1.1 / 0.7 / 0.7) "
          "| targets + animations (goal ≤ 0.7) | time gltfpack / morphkit s (goal ≤ 3×) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    own_rows = []
    for name, source in inputs(args.cli, out):
        for ratio in (float(r) for r in args.ratios.split(",")):
            stem = f"{source.stem}.{ratio}"
            gp_path, mk_path = out / f"{stem}.gltfpack.glb", out / f"{stem}.morphkit.glb"
            t_gp = gltfpack(source, gp_path, ratio)
            gp = surface_distance(source, gp_path, args.samples)
            t_mk, report, r2, _ = morphkit_at(args.cli, source, mk_path, gp["triangles"]["input"],
                                              gp["triangles"]["output"])
            mk = surface_distance(source, mk_path, args.samples)
            for suffix, data in (("gltfpack.json", gp), ("morphkit.json", mk), ("report.json", report)):
                (out / f"{stem}.{suffix}").write_text(json.dumps(data, indent=1, ensure_ascii=False))
            print(row(name, ratio, gp, mk, t_gp, t_mk), flush=True)
            own_rows.append(own_report(name, ratio, r2, report, mk))
    print("\n| file | R | R2 passed | morphkit's own surfaces mm/m rest / targets / animations "
          "| three.js's mm/m | encoding error mm/m (bound) | simplify pass |")
    print("|---|---:|---:|---:|---:|---:|---|")
    print("\n".join(own_rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
