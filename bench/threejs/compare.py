#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""morphkit's CPU paths against three.js's CPU morph + skin path, in the same run, same sampling.

    bench/threejs/compare.py FILE [--anim A ...] [--frames 30] [--rounds 3] [--repetitions 10] [--threads N]
                             [--morphkit PATH] [--json]

For each animation (default: every animation of FILE), runs `morphkit bench FILE --paths reference,fast --json`
and `morphkit bench FILE --paths fast --positions-only --json` (the same work as three.js: positions only)
and `node bench/threejs/deform.mjs FILE --json` alternately `--rounds` times (so a load change on the machine hits
both), each run taking the best of `--repetitions` passes over the frames, keeps each one's best, and prints ms per frame and the ratio three.js / morphkit. Before timing, it checks
that both compute the same thing: three.js's world-space positions at t = 0.37 d against `morphkit pose --json`
(max abs difference over the bounding-box diagonal). Needs scripts/install-three and a built morphkit.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def run_json(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def check_same_positions(args, anim, duration):
    """Max |three.js - morphkit| over positions at one time, relative to the bbox diagonal."""
    t = 0.37 * duration
    with tempfile.TemporaryDirectory() as tmp:
        dump = os.path.join(tmp, "three.json")
        subprocess.run(["node", os.path.join(HERE, "deform.mjs"), args.file, "--anim", anim, "--frames", "1",
                        "--repetitions", "1", "--dump", repr(t), dump], check=True, capture_output=True)
        three = json.load(open(dump))["meshes"]
    pose = run_json([args.morphkit, "pose", args.file, "--anim", anim, "--time", repr(t), "--cpu-path", "fast", "--json"])
    ours = [m["positions"] for m in pose["cases"][0]["meshes"]]
    if len(ours) != len(three) or any(len(a) != len(b) for a, b in zip(ours, three)):
        return None  # traversal orders differ (several meshes): not compared
    worst = 0.0
    for a, b in zip(ours, three):
        lo = [min(a[i::3]) for i in range(3)]
        hi = [max(a[i::3]) for i in range(3)]
        diag = math.dist(lo, hi) or 1.0
        worst = max(worst, max(abs(x - y) for x, y in zip(a, b)) / diag)
    return worst


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file")
    p.add_argument("--anim", action="append", help="animation index or name (repeatable; default: every animation)")
    p.add_argument("--frames", type=int, default=30)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--repetitions", type=int, default=10, help="passes over the frames per run, best kept (both engines)")
    p.add_argument("--threads", type=int, default=0, help="morphkit fast path at 1..N threads (default: all)")
    p.add_argument("--morphkit", default=os.path.join(ROOT, "build", "release", "src", "cli", "morphkit"))
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    if not os.path.exists(os.path.join(HERE, "node_modules", "three")):
        sys.exit("compare.py: error: three.js is not installed (run scripts/install-three)")

    anims = args.anim
    if not anims:
        info = run_json([args.morphkit, "inspect", args.file, "--json"])
        anims = [str(i) for i in range(len(info.get("animations", [])))] or [""]
    load_before = os.getloadavg()
    results = []
    for anim in anims:
        anim_args = ["--anim", anim] if anim else []
        best_three, best_ours = None, {}
        check = None
        for r in range(args.rounds):
            reps = ["--repetitions", str(args.repetitions)]
            three = run_json(["node", os.path.join(HERE, "deform.mjs"), args.file, *anim_args, "--frames", str(args.frames),
                              *reps, "--json"])
            ours = run_json([args.morphkit, "bench", args.file, *anim_args, "--paths", "reference,fast", "--frames",
                             str(args.frames), "--threads", str(args.threads), *reps, "--json"])
            if check is None and three["animation"]:
                check = check_same_positions(args, anim, three["animation"]["duration"])
            if best_three is None or three["ms_per_frame"] < best_three["ms_per_frame"]:
                best_three = three
            # The same work as three.js: posed positions only (bench --positions-only), rows "positions/N".
            positions = run_json([args.morphkit, "bench", args.file, *anim_args, "--paths", "fast", "--positions-only",
                                  "--frames", str(args.frames), "--threads", str(args.threads), *reps, "--json"])
            for row in ours["rows"] + [dict(r, path="positions") for r in positions["rows"]]:
                key = f'{row["path"]}/{row.get("threads", 1)}'
                if key not in best_ours or row["msPerFrame"] < best_ours[key]:  # morphkit's JSON is camelCase
                    best_ours[key] = row["msPerFrame"]
        name = best_three["animation"]["name"] if best_three["animation"] else "rest pose"
        results.append({"animation": name, "threejs_ms": best_three["ms_per_frame"], "morphkit_ms": best_ours,
                        "ratio": {k: best_three["ms_per_frame"] / v for k, v in best_ours.items()},
                        "max_position_difference_over_diagonal": check, "engine": best_three["engine"],
                        "vertices": best_three["vertices"]})
    load_after = os.getloadavg()
    report = {"file": args.file, "frames": args.frames, "rounds": args.rounds, "cpus": os.cpu_count(),
              "loadavg_before": load_before, "loadavg_after": load_after, "results": results}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{args.file}: {results[0]['vertices'] if results else '?'} vertices, {args.frames} frames, best of {args.rounds} "
          f"alternating rounds; {results[0]['engine'] if results else ''}; {os.cpu_count()} CPUs, load average "
          f"{load_before[0]:.2f} before, {load_after[0]:.2f} after")
    order = {"reference": 0, "fast": 1, "positions": 2}
    keys = sorted({k for r in results for k in r["morphkit_ms"]}, key=lambda k: (order[k.split("/")[0]], int(k.split("/")[1])))
    header = f"{'animation':<10} {'three.js':>9} " + " ".join(f"{k:>12}" for k in keys) + "   three.js / morphkit"
    print(header)
    for r in results:
        cells = " ".join(f"{r['morphkit_ms'][k]:>12.3f}" for k in keys)
        ratios = ", ".join(f"{k} {r['ratio'][k]:.1f}x" for k in keys)
        check = r["max_position_difference_over_diagonal"]
        note = "" if check is None else f"   (positions agree to {check:.1e} x diagonal)"
        print(f"{r['animation']:<10} {r['threejs_ms']:>9.3f} {cells}   {ratios}{note}")
    print("(ms per frame; reference and fast rows deform positions, normals and tangents; positions rows (the fast path,\n"
          " --positions-only) and three.js deform positions only)")


if __name__ == "__main__":
    main()
