# SPDX-License-Identifier: MIT
"""The files bench/optimize_peers.py --made makes itself: issue 53's classes that ../shared has no file of.

- demo_captured.glb: the demo's face (`make-demo`: 20k vertices, 52 targets) with make-demo's capture baked into an
  animation (`animate --weights-csv`, 240 keys), as scripts/demo does.
- demo_captured_quantized.glb: that face through `gltf-transform quantize` (a face another tool already quantized).
- AnimatedMorphCube_x100.gltf: AnimatedMorphCube with every POSITION and POSITION delta times 100 (coordinates in
  the hundreds, unskinned).
- Fox_baked_vertex_animation.glb: a vertex animation baked into targets: Fox's `Survey` clip posed by morphkit at
  24 Hz (83 frames), one POSITION-only target per frame (its world positions minus the rest pose's), unskinned,
  driven by a LINEAR weights clip whose key k holds frame k alone at weight 1, so it plays the frames in turn.
"""
from __future__ import annotations

import json
import pathlib
import struct
import subprocess

import numpy as np

import morphkit

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared/assets/gltf"
BIN = ROOT / "tools/compressors/node_modules/.bin"


def made_files(cli: str, out: pathlib.Path) -> list[pathlib.Path]:
    face = captured_face(cli, out)
    return [face, quantized_face(face, out), scaled_cube(out), baked_vertex_animation(out)]


def captured_face(cli: str, out: pathlib.Path) -> pathlib.Path:
    face, captured = out / "demo.glb", out / "demo_captured.glb"
    subprocess.run([cli, "make-demo", face], capture_output=True, check=True)
    subprocess.run([cli, "animate", face, "--weights-csv", out / "demo_capture.csv", "--out", captured],
                   capture_output=True, check=True)
    return captured


def quantized_face(face: pathlib.Path, out: pathlib.Path) -> pathlib.Path:
    quantized = out / f"{face.stem}_quantized.glb"
    subprocess.run([BIN / "gltf-transform", "quantize", face, quantized], capture_output=True, check=True)
    return quantized


def scaled_cube(out: pathlib.Path) -> pathlib.Path:
    source = SHARED / "AnimatedMorphCube/glTF"
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


def baked_vertex_animation(out: pathlib.Path, clip: str = "Survey", rate: float = 24.0) -> pathlib.Path:
    fox = morphkit.load(SHARED / "Fox/glTF-Binary/Fox.glb")
    duration = next(a.duration for a in fox.animations if a.name == clip)
    times = np.linspace(0.0, duration, int(round(duration * rate)) + 1, dtype=np.float32)
    rest = fox.pose(path="reference", positions_only=True)[0].positions[0].astype(np.float32)
    frames = fox.pose(anim=clip, times=times.tolist(), path="reference", positions_only=True)[0].positions
    deltas = frames.astype(np.float32) - rest
    weights = np.eye(len(times), dtype=np.float32)  # key k: frame k alone
    path = out / "Fox_baked_vertex_animation.glb"
    write_glb(path, [rest, *deltas, times, weights.reshape(-1)], {
        "meshes": [{"name": "fox_baked", "weights": [0.0] * len(times), "primitives": [{
            "attributes": {"POSITION": 0}, "targets": [{"POSITION": 1 + k} for k in range(len(times))]}],
            "extras": {"targetNames": [f"frame_{k:03}" for k in range(len(times))]}}],
        "nodes": [{"name": "fox_baked", "mesh": 0}],
        "scenes": [{"nodes": [0]}],
        "animations": [{"name": clip, "samplers": [{"input": len(times) + 1, "output": len(times) + 2,
                                                    "interpolation": "LINEAR"}],
                        "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}]}],
    })
    return path


def write_glb(path: pathlib.Path, arrays: list[np.ndarray], document: dict) -> None:
    """`document` with one float accessor per array (VEC3 for (n, 3), else SCALAR), in order, as a .glb (§4.4)."""
    data, views, accessors = b"", [], []
    for array in arrays:
        vec3 = array.ndim == 2 and array.shape[1] == 3
        views.append({"buffer": 0, "byteOffset": len(data), "byteLength": array.nbytes})
        accessor = {"bufferView": len(views) - 1, "componentType": 5126, "count": len(array) if vec3 else array.size,
                    "type": "VEC3" if vec3 else "SCALAR"}
        if vec3 or array.ndim == 1:  # POSITION and animation inputs need min and max (§5.1.1, §5.10.1)
            accessor["min"] = np.atleast_1d(array.min(axis=0)).tolist()
            accessor["max"] = np.atleast_1d(array.max(axis=0)).tolist()
        accessors.append(accessor)
        data += array.tobytes()
    text = json.dumps({"asset": {"version": "2.0", "generator": "bench/optimize_made.py"},
                       "buffers": [{"byteLength": len(data)}], "bufferViews": views, "accessors": accessors,
                       **document}).encode()
    text += b" " * (-len(text) % 4)
    data += b"\0" * (-len(data) % 4)
    path.write_bytes(struct.pack("<4sII", b"glTF", 2, 28 + len(text) + len(data)) +
                     struct.pack("<I4s", len(text), b"JSON") + text + struct.pack("<I4s", len(data), b"BIN\0") + data)
