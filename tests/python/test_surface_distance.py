# SPDX-License-Identifier: MIT
"""tools/engines/surface_distance.mjs (three.js + three-mesh-bvh, issue 55's independent measure of simplification):
a file against itself measures ~0, and a copy with one known change measures that change in its own category alone.

The files are written here: a flat 1 m grid with two morph targets (0 lifts the whole grid, 1 raises a corner) and
one animation that drives target 0 alone. Skips without Node or scripts/install-engines' modules on a user's machine;
fails under CI=true.
"""
from __future__ import annotations

import json
import math
import pathlib
import shutil
import struct
import subprocess

import numpy as np
import pytest

from conftest import in_ci, pack_views, vec3_accessor

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools/engines/surface_distance.mjs"
MODULES = ROOT / "tools/engines/node_modules"
CELLS = 8  # the grid's quads per side: 81 vertices, 128 triangles
MOVED = (CELLS // 2) * (CELLS + 1) + CELLS // 2  # the centre vertex, far from the raised corner
OFFSET = 0.01  # metres: 10 mm


@pytest.fixture(scope="module")
def node() -> str:
    path = shutil.which("node")
    if path and (MODULES / "three/package.json").is_file() and (MODULES / "three-mesh-bvh/package.json").is_file():
        return path
    if in_ci():
        pytest.fail("CI=true but node or three-mesh-bvh is missing (scripts/install-engines)")
    pytest.skip("node or three-mesh-bvh not installed (scripts/install-engines)")


def grid_glb(path: pathlib.Path, base: np.ndarray | None = None, corner: np.ndarray | None = None,
             key_weight: float = 1.0) -> pathlib.Path:
    """The grid .glb; `base` and `corner` replace the rest positions and target 1's deltas, `key_weight` is target
    0's weight at the animation's middle key (t = 1 s)."""
    n = CELLS + 1
    ys, xs = np.mgrid[0:n, 0:n] / CELLS
    rest = np.stack([xs.ravel(), ys.ravel(), np.zeros(n * n)], axis=1).astype(np.float32)
    lift = np.tile(np.array([0, 0, 0.1], np.float32), (n * n, 1))
    raise_corner = np.zeros((n * n, 3), np.float32)
    raise_corner[0, 2] = 0.05
    quads = [(y * n + x, y * n + x + 1, (y + 1) * n + x + 1, (y + 1) * n + x) for y in range(CELLS) for x in range(CELLS)]
    indices = np.array([[a, b, c, a, c, d] for a, b, c, d in quads], np.uint16).ravel()
    times = np.array([0, 1, 2], np.float32)
    weights = np.array([0, 0, key_weight, 0, 0, 0], np.float32)  # 3 keys x 2 targets
    blobs = [base if base is not None else rest, lift, corner if corner is not None else raise_corner,
             indices, times, weights]
    data, views = pack_views(blobs)
    vec3 = vec3_accessor

    document = {
        "asset": {"version": "2.0"},
        "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 3,
                                    "targets": [{"POSITION": 1}, {"POSITION": 2}]}],
                    "weights": [0, 0], "extras": {"targetNames": ["lift", "corner"]}}],
        "accessors": [vec3(0, blobs[0]), vec3(1, blobs[1]), vec3(2, blobs[2]),
                      {"bufferView": 3, "componentType": 5123, "count": len(indices), "type": "SCALAR"},
                      {"bufferView": 4, "componentType": 5126, "count": 3, "type": "SCALAR", "min": [0], "max": [2]},
                      {"bufferView": 5, "componentType": 5126, "count": 6, "type": "SCALAR"}],
        "bufferViews": views,
        "buffers": [{"byteLength": len(data)}],
        "animations": [{"name": "lift", "samplers": [{"input": 4, "output": 5, "interpolation": "LINEAR"}],
                        "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}]}],
    }
    text = json.dumps(document).encode()
    text += b" " * (-len(text) % 4)
    path.write_bytes(struct.pack("<4sII", b"glTF", 2, 12 + 8 + len(text) + 8 + len(data)) +
                     struct.pack("<I4s", len(text), b"JSON") + text + struct.pack("<I4s", len(data), b"BIN\0") + data)
    return path


def measure(node: str, a: pathlib.Path, b: pathlib.Path) -> dict:
    done = subprocess.run([node, str(TOOL), str(a), str(b), "--samples", "2000"], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def distances(result: dict) -> dict[str, float]:
    return {category: entry["mm"] for category, entry in result["categories"].items()}


def rest_positions() -> np.ndarray:
    ys, xs = np.mgrid[0:CELLS + 1, 0:CELLS + 1] / CELLS
    return np.stack([xs.ravel(), ys.ravel(), np.zeros(xs.size)], axis=1).astype(np.float32)


def test_a_file_against_itself_measures_zero(node: str, tmp_path: pathlib.Path) -> None:
    grid = grid_glb(tmp_path / "grid.glb")
    result = measure(node, grid, grid)
    assert result["triangles"] == {"input": 2 * CELLS * CELLS, "output": 2 * CELLS * CELLS}
    # rest, 2 targets, keys 0 / 0.5 / 1 / 1.5 / 2 (the end is the last key)
    assert {c: e["poses"] for c, e in result["categories"].items()} == {"rest": 1, "targets": 2, "animations": 5}
    assert max(distances(result).values()) < 1e-4


def test_a_moved_vertex_shows_at_every_pose(node: str, tmp_path: pathlib.Path) -> None:
    base = rest_positions()
    base[MOVED, 2] += OFFSET
    result = measure(node, grid_glb(tmp_path / "grid.glb"), grid_glb(tmp_path / "moved.glb", base=base))
    for category, mm in distances(result).items():
        assert mm == pytest.approx(OFFSET * 1000, abs=1e-3), category
    rest = result["categories"]["rest"]
    assert rest["mmPerM"] == pytest.approx(OFFSET * 1000 / math.sqrt(2), abs=1e-3)
    assert rest["direction"] == "output→input"
    assert rest["at"] == pytest.approx([0.5, 0.5, OFFSET], abs=1e-6)


def test_a_changed_target_delta_shows_in_targets_alone(node: str, tmp_path: pathlib.Path) -> None:
    corner = np.zeros((len(rest_positions()), 3), np.float32)
    corner[0, 2] = 0.05
    corner[MOVED, 2] = OFFSET  # target 1 (never animated) now raises the centre too
    result = measure(node, grid_glb(tmp_path / "grid.glb"), grid_glb(tmp_path / "target.glb", corner=corner))
    got = distances(result)
    assert got["targets"] == pytest.approx(OFFSET * 1000, abs=1e-3)
    assert got["rest"] < 1e-4 and got["animations"] < 1e-4
    assert result["categories"]["targets"]["pose"] == "target 1 (corner)"


def test_a_changed_key_shows_in_animations_alone(node: str, tmp_path: pathlib.Path) -> None:
    result = measure(node, grid_glb(tmp_path / "grid.glb"), grid_glb(tmp_path / "key.glb", key_weight=0.5))
    got = distances(result)
    assert got["animations"] == pytest.approx(0.05 * 1000, abs=1e-3)  # lift 0.1 m at weight 1 against 0.5
    assert got["rest"] < 1e-4 and got["targets"] < 1e-4
    assert result["categories"]["animations"]["pose"] == "animation 0 (lift) at 1 s"
