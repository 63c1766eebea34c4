# SPDX-License-Identifier: MIT
"""tools/engines/pose_error.mjs: three.js's largest distance between a file and a changed copy, per pose category.

Each copy changes one thing by a known amount (a vertex, a target's delta, an animation key) and the script must
find that amount in that category alone; a copy with the same world positions under another layout (vertices
reordered, positions halved under a node scaled by 2) must measure 0. Like the engine tests
(tests/check/check_engines_test.cpp): skips without Node or scripts/install-engines on a user's machine, FAILs when
CI=true.
"""
from __future__ import annotations

import base64
import json
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

from conftest import in_ci, pack_views, vec3_accessor

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools/engines/pose_error.mjs"

# A unit quad in the z = 0 plane, two POSITION targets, and a LINEAR weights clip with keys at 0, 1 and 2 s.
QUAD = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], dtype=np.float32)
TRIANGLES = np.array([0, 1, 2, 0, 2, 3], dtype=np.uint16)
DELTAS = np.array([[[0, 0, 0.5], [0, 0, 0], [0, 0, 0], [0, 0, 0]],
                   [[0, 0, 0], [0, 0, 0], [0, 0.25, 0], [0, 0, 0]]], dtype=np.float32)
KEY_TIMES = np.array([0, 1, 2], dtype=np.float32)
KEY_WEIGHTS = np.array([[0, 0], [1, 0.5], [0.5, 1]], dtype=np.float32)


@pytest.fixture(scope="module")
def node() -> str:
    found = shutil.which("node")
    if found and (ROOT / "tools/engines/node_modules/three/package.json").is_file():
        return found
    if in_ci():
        pytest.fail("CI=true but node or tools/engines/node_modules/three is missing (scripts/install-engines)")
    pytest.skip("node or three.js missing: run scripts/install-engines")


def write_quad(path: pathlib.Path, positions: np.ndarray = QUAD, deltas: np.ndarray = DELTAS,
               weights: np.ndarray = KEY_WEIGHTS, order: np.ndarray | None = None, scale: float = 1.0) -> None:
    """The quad as a .gltf with its data in a data: URI; `order` stores the vertices permuted (the triangles follow),
    `scale` divides the positions and deltas and scales the node by it (the same world positions)."""
    order = np.arange(len(positions)) if order is None else order
    where = np.argsort(order)  # new index of each old vertex
    blobs = [positions[order] / scale, where[TRIANGLES].astype(np.uint16)]
    blobs += [d[order] / scale for d in deltas] + [KEY_TIMES, weights]
    data, views = pack_views(blobs)
    vec3 = vec3_accessor

    accessors = [vec3(0, blobs[0]), {"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"}]
    accessors += [vec3(2 + t, blobs[2 + t]) for t in range(len(deltas))]
    accessors += [{"bufferView": len(blobs) - 2, "componentType": 5126, "count": 3, "type": "SCALAR",
                   "min": [0.0], "max": [2.0]},
                  {"bufferView": len(blobs) - 1, "componentType": 5126, "count": weights.size, "type": "SCALAR"}]
    document = {
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": len(data),
                     "uri": "data:application/octet-stream;base64," + base64.b64encode(data).decode()}],
        "bufferViews": views,
        "accessors": accessors,
        "meshes": [{"name": "quad", "weights": [0.0, 0.0], "primitives": [{
            "attributes": {"POSITION": 0}, "indices": 1, "targets": [{"POSITION": 2}, {"POSITION": 3}]}]}],
        "nodes": [{"mesh": 0, "scale": [scale] * 3, "translation": [0.0, 0.0, 2.0]}],
        "scenes": [{"nodes": [0]}],
        "animations": [{"name": "talk", "samplers": [{"input": 4, "output": 5, "interpolation": "LINEAR"}],
                        "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}]}],
    }
    path.write_text(json.dumps(document))


def pose_error(node: str, a: pathlib.Path, b: pathlib.Path) -> dict:
    done = subprocess.run([node, SCRIPT, a, b], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def distances(report: dict) -> tuple[float, float, float]:
    return tuple(report["categories"][c]["m"] for c in ("rest", "targets", "animations"))


def test_a_file_against_itself_is_zero(node: str, tmp_path: pathlib.Path) -> None:
    write_quad(tmp_path / "a.gltf")
    report = pose_error(node, tmp_path / "a.gltf", tmp_path / "a.gltf")
    assert distances(report) == (0.0, 0.0, 0.0)
    # rest; each target alone; keys 0, 1, 2, midpoints 0.5, 1.5 (the clip end is the last key)
    assert report["poses"] == {"rest": 1, "targets": 2, "animations": 5}
    assert report["diagonalM"] == pytest.approx(2 ** 0.5)


def test_another_layout_of_the_same_world_positions_is_zero(node: str, tmp_path: pathlib.Path) -> None:
    write_quad(tmp_path / "a.gltf")
    write_quad(tmp_path / "b.gltf", order=np.array([2, 0, 3, 1]), scale=2.0)
    assert distances(pose_error(node, tmp_path / "a.gltf", tmp_path / "b.gltf")) == pytest.approx((0, 0, 0), abs=1e-6)


def test_a_moved_vertex_shows_in_every_pose(node: str, tmp_path: pathlib.Path) -> None:
    moved = QUAD.copy()
    moved[3, 1] += 0.003
    write_quad(tmp_path / "a.gltf")
    write_quad(tmp_path / "b.gltf", positions=moved)
    report = pose_error(node, tmp_path / "a.gltf", tmp_path / "b.gltf")
    assert distances(report) == pytest.approx((0.003, 0.003, 0.003), rel=1e-4)
    assert report["categories"]["rest"]["inputVertex"] == 3
    assert report["largest"]["mmPerM"] == pytest.approx(3.0 / 2 ** 0.5, rel=1e-4)


def test_a_changed_delta_shows_in_its_target_and_in_the_clip_by_its_weight(node: str, tmp_path: pathlib.Path) -> None:
    deltas = DELTAS.copy()
    deltas[1, 2, 1] += 0.004  # target 1, vertex 2
    write_quad(tmp_path / "a.gltf")
    write_quad(tmp_path / "b.gltf", deltas=deltas)
    report = pose_error(node, tmp_path / "a.gltf", tmp_path / "b.gltf")
    assert distances(report) == pytest.approx((0, 0.004, 0.004), rel=1e-4, abs=1e-9)  # target 1 is 1 at 2 s
    assert report["categories"]["targets"]["pose"] == "target 1 of mesh quad"
    assert report["categories"]["targets"]["inputVertex"] == 2
    assert report["categories"]["animations"]["pose"] == "animation 0 (talk) at 2 s"


def test_a_changed_last_key_shows_at_the_clip_end(node: str, tmp_path: pathlib.Path) -> None:
    """three.js loops a clip by default, so a time at its end would show its start: the clip end must be posed."""
    weights = KEY_WEIGHTS.copy()
    weights[2, 0] = 0.25  # target 0 (vertex 0 by 0.5 m) at 2 s: 0.5 → 0.25
    write_quad(tmp_path / "a.gltf")
    write_quad(tmp_path / "b.gltf", weights=weights)
    report = pose_error(node, tmp_path / "a.gltf", tmp_path / "b.gltf")
    assert distances(report) == pytest.approx((0, 0, 0.125), abs=1e-7)
    assert report["categories"]["animations"]["pose"] == "animation 0 (talk) at 2 s"
    assert report["categories"]["animations"]["inputVertex"] == 0
