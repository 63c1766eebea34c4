# SPDX-License-Identifier: MIT
"""morphkit.optimize(path, out, ...): the CLI's work and `morphkit optimize --json`'s report (docs/OPTIMIZE.md)."""
from __future__ import annotations

import json
import math
import os
import pathlib
import subprocess
import sys

import pytest

import morphkit
from conftest import run_cli


def test_optimize_writes_the_cli_file_and_report(demo_glb: pathlib.Path, tmp_path: pathlib.Path, cli: str) -> None:
    report = morphkit.optimize(demo_glb, tmp_path / "py.glb", max_error_mm=0.05)
    done = run_cli(cli, "optimize", demo_glb, "--out", tmp_path / "cli.glb", "--max-error", "0.05", "--json")
    assert done.returncode == 0, done.stderr
    expected = json.loads(done.stdout)
    assert (tmp_path / "py.glb").read_bytes() == (tmp_path / "cli.glb").read_bytes()
    for key in ("boundMm", "maxDistanceMm", "inputBytes", "outputBytes", "before", "after", "errors", "passes"):
        assert report[key] == expected[key], key
    assert report["inputBytes"] == demo_glb.stat().st_size  # computed once, by the library
    assert [p["name"] for p in report["passes"]] == ["drop-attributes", "drop-direction-deltas", "weld",
                                                     "simplify", "node-dequantization", "textures", "reorder"]
    assert report["maxDistanceMm"] <= report["boundMm"] == pytest.approx(0.05)
    assert [e["category"] for e in report["errors"]] == ["rest", "targets", "default weights", "animations"]
    asset = morphkit.load(tmp_path / "py.glb")  # the output loads and poses
    assert asset.pose(anim=0, times=[0.5])[0].positions.shape[2] == 3


def test_optimize_refusals_write_nothing(demo_glb: pathlib.Path, tmp_path: pathlib.Path) -> None:
    out = tmp_path / "out.glb"
    for bad in ({"max_error_mm": 0.0}, {"max_error_mm": -1.0}, {"max_error_rel": math.nan},
                {"max_error_mm": 1.0, "max_error_rel": 1e-4}):
        with pytest.raises(morphkit.InvalidArgumentError):
            morphkit.optimize(demo_glb, out, **bad)
    with pytest.raises(morphkit.InvalidArgumentError, match="itself"):
        morphkit.optimize(demo_glb, demo_glb)
    with pytest.raises(morphkit.FileNotFoundError_):
        morphkit.optimize(tmp_path / "missing.glb", out)
    assert not out.exists()



def test_optimize_replaces_an_existing_out_as_the_cli_does(demo_glb: pathlib.Path, tmp_path: pathlib.Path) -> None:
    # The overwrite rule (docs/CLI.md): a file output is replaced whole, by the CLI and Python alike.
    out = tmp_path / "out.glb"
    out.write_bytes(b"old")
    report = morphkit.optimize(demo_glb, out)
    assert out.read_bytes()[:4] == b"glTF"
    assert out.stat().st_size == report["outputBytes"]


def test_optimize_skip_passes(demo_glb: pathlib.Path, tmp_path: pathlib.Path) -> None:
    report = morphkit.optimize(demo_glb, tmp_path / "a.glb", skip_passes=["node-dequantization"], keep_attributes=True)
    assert [p["ran"] for p in report["passes"]] == [True, True, True, True, False, True, True]
    with pytest.raises(morphkit.InvalidArgumentError, match="no pass is named 'resample'"):
        morphkit.optimize(demo_glb, tmp_path / "b.glb", skip_passes=["resample"])
    assert not (tmp_path / "b.glb").exists()


def test_optimize_lod_writes_a_file_per_level(demo_glb: pathlib.Path, tmp_path: pathlib.Path) -> None:
    out = tmp_path / "face.glb"
    report = morphkit.optimize(demo_glb, out, lod=[0.5])
    level = tmp_path / "face.lod1.glb"
    assert out.exists() and level.exists()
    assert [(lod["ratio"], lod["out"]) for lod in report["lods"]] == [(0.5, str(level))]
    assert level.stat().st_size == report["lods"][0]["outputBytes"] < report["outputBytes"]
    assert report["lods"][0]["surfaceErrors"] and "surfaceErrors" not in report
    simplified = morphkit.optimize(demo_glb, tmp_path / "half.glb", simplify=0.5, simplify_error_mm=100.0)
    assert simplified["surfaceErrors"] and "lods" not in simplified


def test_optimize_bad_simplify_options_raise_and_write_nothing(demo_glb: pathlib.Path, tmp_path: pathlib.Path) -> None:
    out = tmp_path / "out.glb"
    for bad in ({"simplify": 0.0}, {"simplify": 1.5}, {"simplify": math.nan}, {"lod": [0.5, 0.0]},
                {"lod": [0.5], "simplify": 0.5}, {"simplify_error_mm": 1.0}, {"simplify": 0.5, "simplify_error_mm": 0.0}):
        with pytest.raises(morphkit.InvalidArgumentError):
            morphkit.optimize(demo_glb, out, **bad)
    assert not out.exists() and not (tmp_path / "out.lod1.glb").exists()


def test_optimize_for_engine_matches_the_cli(demo_glb: pathlib.Path, tmp_path: pathlib.Path, cli: str) -> None:
    report = morphkit.optimize(demo_glb, tmp_path / "py.glb", for_engine="playcanvas")
    done = run_cli(cli, "optimize", demo_glb, "--out", tmp_path / "cli.glb", "--for", "playcanvas", "--json")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "py.glb").read_bytes() == (tmp_path / "cli.glb").read_bytes()
    assert report["forEngine"] == json.loads(done.stdout)["forEngine"]
    assert report["forEngine"]["name"] == "playcanvas"
    assert b"EXT_meshopt_compression" not in (tmp_path / "py.glb").read_bytes()
    assert morphkit.optimize(demo_glb, tmp_path / "any.glb")["forEngine"] is None
    with pytest.raises(morphkit.InvalidArgumentError, match="does not decode EXT_texture_webp"):
        morphkit.optimize(demo_glb, tmp_path / "b.glb", for_engine="filament", textures="webp")
    with pytest.raises(morphkit.InvalidArgumentError, match="unknown engine"):
        morphkit.optimize(demo_glb, tmp_path / "b.glb", for_engine="unity")
    assert not (tmp_path / "b.glb").exists()


def test_optimize_render_check_matches_the_cli(gpu: None, tmp_path: pathlib.Path, cli: str) -> None:
    demo = tmp_path / "textured.glb"
    done = run_cli(cli, "make-demo", demo, "--vertices", "600", "--targets", "4", "--material", "textured",
                   "--texture-size", "128")
    assert done.returncode == 0, done.stderr
    report = morphkit.optimize(demo, tmp_path / "py.glb", textures="webp")  # checked unasked
    done = run_cli(cli, "optimize", demo, "--out", tmp_path / "cli.glb", "--textures", "webp", "--json")
    assert done.returncode == 0, done.stderr
    assert report["renderDiff"] == json.loads(done.stdout)["renderDiff"]
    diff = report["renderDiff"]
    assert (diff["width"], diff["height"]) == (256, 256)
    assert len(diff["poses"]) == 4 and diff["poses"][0]["pose"] == "the rest pose (every weight 0)"
    assert 0 < diff["worstMean"] < 2
    assert "renderDiff" not in morphkit.optimize(demo, tmp_path / "off.glb", textures="webp", render_check=False)
    same = morphkit.optimize(demo, tmp_path / "keep.glb", render_check=True)  # geometry alone: near nothing
    assert len(same["renderDiff"]["poses"]) == 4 and same["renderDiff"]["worstMean"] < 1


def test_optimize_render_check_without_a_device(tmp_path: pathlib.Path, cli: str) -> None:
    """In a child whose Vulkan loader finds no driver: unasked a note, asked NoDeviceError (the CLI's rule)."""
    demo = tmp_path / "textured.glb"
    done = run_cli(cli, "make-demo", demo, "--vertices", "600", "--targets", "4", "--material", "textured",
                   "--texture-size", "128")
    assert done.returncode == 0, done.stderr
    script = (
        "import sys, morphkit\n"
        "r = morphkit.optimize(sys.argv[1], sys.argv[2], textures='webp')\n"
        "print('renderDiff' in r, any(n.startswith('render check skipped: ') for n in r['notes']))\n"
        "try:\n"
        "    morphkit.optimize(sys.argv[1], sys.argv[2], render_check=True)\n"
        "except morphkit.NoDeviceError:\n"
        "    print('raised')\n")
    env = dict(os.environ, VK_ICD_FILENAMES="/nonexistent/icd.json")
    done = subprocess.run([sys.executable, "-c", script, str(demo), str(tmp_path / "out.glb")], env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True", "raised"], done.stdout + done.stderr
