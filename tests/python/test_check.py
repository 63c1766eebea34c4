# SPDX-License-Identifier: MIT
"""morphkit.check(path, engines=...): the same report as `morphkit check --json`, as a dict (docs/CHECK.md)."""
from __future__ import annotations

import json
import pathlib

import pytest

import morphkit
from conftest import run_cli


def test_check_is_the_cli_report(demo_glb: pathlib.Path, cli: str) -> None:
    report = morphkit.check(demo_glb, engines=["three", "filament"], times=3)
    done = run_cli(cli, "check", demo_glb, "--engines", "three,filament", "--times", "3", "--json")
    assert done.returncode == 0, done.stderr
    assert report == json.loads(done.stdout)
    assert [e["name"] for e in report["engines"]] == ["three", "filament"]
    assert morphkit.check(demo_glb, engines="three,filament", times=3) == report
    every = morphkit.check(str(demo_glb), times=2)
    assert [e["name"] for e in every["engines"]] == ["three", "babylon", "filament", "godot", "bevy", "playcanvas",
                                                    "univrm"]
    for engine in every["engines"]:
        for rule in engine["rules"]:
            assert rule["applies"] or rule["deviation"] is None  # not applicable is never a 0


def test_check_errors_are_the_cli_errors(demo_glb: pathlib.Path, tmp_path: pathlib.Path) -> None:
    with pytest.raises(morphkit.InvalidArgumentError) as e:
        morphkit.check(demo_glb, engines=["unity"])
    assert "engines 'unity': unknown engine (known: three, babylon, filament, godot, bevy, playcanvas, univrm, or all)" in str(e.value)
    with pytest.raises(morphkit.FileNotFoundError_):
        morphkit.check(tmp_path / "missing.glb")
    with pytest.raises(morphkit.InvalidArgumentError):
        morphkit.check(demo_glb, times=0)
