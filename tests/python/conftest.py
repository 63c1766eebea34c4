# SPDX-License-Identifier: MIT
"""Shared fixtures of the Python suite (run by ctest through scripts/test; see docs/PYTHON.md).

Like the C++ suite: tests that need ../shared or a Vulkan device skip on a user's machine and FAIL when CI=true.
The environment comes from tests/CMakeLists.txt: PYTHONPATH (the build tree's package), MORPHKIT_CLI,
MORPHKIT_SHARED_DIR, MORPHKIT_VALIDATION=1 (the Vulkan validation layer on every context).
"""
from __future__ import annotations

import os
import pathlib
import shutil
import struct
import subprocess
import zlib

import numpy as np
import pytest

import morphkit

SHARED = pathlib.Path(os.environ.get("MORPHKIT_SHARED_DIR", "../shared"))
ASSETS = SHARED / "assets" / "gltf"


def in_ci() -> bool:
    return os.environ.get("CI") == "true"


def pack_views(blobs: list) -> tuple[bytes, list[dict]]:
    """numpy arrays laid out in one buffer, each 4-byte aligned: the bytes and a bufferView per array (tests that
    write small glTF files of their own)."""
    data, views = b"", []
    for blob in blobs:
        views.append({"buffer": 0, "byteOffset": len(data), "byteLength": blob.nbytes})
        data += blob.tobytes() + b"\0" * (-blob.nbytes % 4)
    return data, views


def vec3_accessor(view: int, values) -> dict:
    """A float VEC3 accessor over bufferView `view` holding `values` (n x 3), with the min/max POSITION needs."""
    return {"bufferView": view, "componentType": 5126, "count": len(values), "type": "VEC3",
            "min": values.min(axis=0).tolist(), "max": values.max(axis=0).tolist()}


def shared_models() -> list[pathlib.Path]:
    """Every .gltf / .glb under ../shared/assets/gltf, sorted (empty when ../shared is missing)."""
    if not ASSETS.is_dir():
        return []
    return sorted(p for p in ASSETS.rglob("*") if p.suffix in (".gltf", ".glb"))


def model_id(path: pathlib.Path) -> str:
    return str(path.relative_to(ASSETS))


@pytest.fixture
def assets() -> pathlib.Path:
    if not ASSETS.is_dir():
        if in_ci():
            pytest.fail("CI=true but ../shared is missing")
        pytest.skip("../shared not found (MORPHKIT_REQUIRE_SHARED)")
    return ASSETS


@pytest.fixture(scope="session")
def cli() -> str:
    path = os.environ.get("MORPHKIT_CLI") or shutil.which("morphkit")
    if not path:
        pytest.fail("no morphkit CLI: set MORPHKIT_CLI")
    return path


def run_cli(cli: str, *args: str, cwd: str | os.PathLike[str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([cli, *map(str, args)], cwd=cwd, capture_output=True, text=True, check=False)


@pytest.fixture(scope="session")
def gpu() -> None:
    """Skips without a Vulkan device on a user's machine; fails under CI=true (MORPHKIT_REQUIRE_GPU)."""
    try:
        morphkit.Renderer(size=(8, 8)).close()
    except morphkit.NoDeviceError as e:
        if in_ci():
            pytest.fail(f"CI=true but no Vulkan device: {e}")
        pytest.skip(f"{e} (MORPHKIT_REQUIRE_GPU)")


@pytest.fixture
def demo_glb(tmp_path: pathlib.Path, cli: str) -> pathlib.Path:
    """The built-in demo asset, small: 1500 vertices, 12 targets (as tests/render/render_command_test.cpp)."""
    path = tmp_path / "demo.glb"
    done = run_cli(cli, "make-demo", path, "--vertices", "1500", "--targets", "12")
    assert done.returncode == 0, done.stderr
    return path


def read_png(path: str | os.PathLike[str]) -> np.ndarray:
    """An 8-bit RGBA, non-interlaced PNG (what morphkit writes) as uint8 (H, W, 4)."""
    data = pathlib.Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert (depth, color, interlace) == (8, 6, 0)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(height, 1 + width * 4)
    out = np.zeros((height, width * 4), dtype=np.int32)
    for y in range(height):  # PNG filters (ISO 15948 §9): None, Sub, Up, Average, Paeth; 4 bytes per pixel
        kind, line = raw[y, 0], raw[y, 1:].astype(np.int32)
        up = out[y - 1] if y else np.zeros_like(line)
        if kind in (0, 2):
            out[y] = (line + (up if kind == 2 else 0)) & 0xFF
            continue
        row = np.zeros_like(line)
        for x in range(line.size):
            left = row[x - 4] if x >= 4 else 0
            if kind == 1:
                pred = left
            elif kind == 3:
                pred = (left + up[x]) // 2
            else:
                upleft = up[x - 4] if x >= 4 else 0
                p = left + up[x] - upleft
                pa, pb, pc = abs(p - left), abs(p - up[x]), abs(p - upleft)
                pred = left if pa <= pb and pa <= pc else (up[x] if pb <= pc else upleft)
            row[x] = (line[x] + pred) & 0xFF
        out[y] = row
    return out.astype(np.uint8).reshape(height, width, 4)
