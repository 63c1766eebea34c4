# SPDX-License-Identifier: MIT
"""Renderer and the GPU pose on the Vulkan device (lavapipe in CI), validation layer on (MORPHKIT_VALIDATION=1)."""
from __future__ import annotations

import pathlib
import threading

import numpy as np
import pytest

import morphkit
from conftest import ASSETS, read_png, run_cli, shared_models

MORPH_MODELS = [m for m in shared_models() if "MorphSkinBlob52" in str(m) or "AnimatedMorphCube" in str(m)
                or "SkinMorphEdgeCases" in str(m) or "Fox" in str(m)]


@pytest.mark.parametrize("model", MORPH_MODELS, ids=[str(m.relative_to(ASSETS)) for m in MORPH_MODELS])
def test_gpu_pose_matches_the_cpu(assets: pathlib.Path, gpu: None, model: pathlib.Path) -> None:
    asset = morphkit.load(model)
    anim = 0 if asset.animations else None
    times = np.linspace(0.0, 1.0, 4)
    cpu = asset.pose(anim=anim, times=times, device="cpu", path="reference")
    gpu_result = asset.pose(anim=anim, times=times, device="gpu")
    assert gpu_result.device == "gpu"
    for c, g in zip(cpu.primitives, gpu_result.primitives):
        assert (c.node, c.mesh, c.primitive) == (g.node, g.mesh, g.primitive)
        assert g.positions.dtype == np.float32 and g.positions.shape == c.positions.shape
        scale = max(1.0, float(np.abs(c.positions).max(initial=0.0)))
        np.testing.assert_allclose(g.positions, c.positions, rtol=0, atol=2e-5 * scale)
        if c.normals is not None:
            np.testing.assert_allclose(g.normals, c.normals, rtol=0, atol=2e-4)
        np.testing.assert_array_equal(g.weights, c.weights)


def test_render_equals_the_cli_frames(gpu: None, cli: str, demo_glb: pathlib.Path, tmp_path: pathlib.Path) -> None:
    done = run_cli(cli, "render", demo_glb, "--anim", "talk", "--frames", "3:5", "--size", "48x40", "--out",
                   tmp_path / "frames", "--no-video", "--validation")
    assert done.returncode == 0, done.stderr
    asset = morphkit.load(demo_glb)
    with morphkit.Renderer(size=(48, 40), validation=True) as renderer:
        images = renderer.render(asset, "talk", frames=[3, 4])
        assert renderer.validation_messages() == []
    assert images.shape == (2, 40, 48, 4) and images.dtype == np.uint8 and images.flags.c_contiguous
    for i, frame in enumerate([3, 4]):
        np.testing.assert_array_equal(images[i], read_png(tmp_path / "frames" / f"frame_{frame:04d}.png"))
    assert not np.array_equal(images[0], images[1])


def test_render_with_weights_and_a_capture_equals_the_cli(assets: pathlib.Path, gpu: None, cli: str,
                                                           tmp_path: pathlib.Path) -> None:
    model = ASSETS / "MorphSkinBlob52/MorphSkinBlob52.glb"
    capture = ASSETS.parent / "capture" / "sample_capture.csv"
    blob = morphkit.load(model)
    common = ["--size", "32x24", "--no-video", "--no-contact-sheet"]
    done = run_cli(cli, "render", model, "--anim", "0", "--frames", "1:2", "--weights", "jawOpen=0.8", *common,
                   "--out", tmp_path / "weights")
    assert done.returncode == 0, done.stderr
    done = run_cli(cli, "render", model, "--weights-csv", capture, "--fps", "2", *common, "--out", tmp_path / "capture")
    assert done.returncode == 0, done.stderr
    cli_capture = sorted((tmp_path / "capture").glob("frame_*.png"))
    with morphkit.Renderer(size=(32, 24)) as renderer:
        weighted = renderer.render(blob, 0, frames=[1], weights={"jawOpen": 0.8})
        plain = renderer.render(blob, 0, frames=[1])
        captured = renderer.render(blob, capture=capture, fps=2)  # frames=None: the capture's length, as the CLI
    np.testing.assert_array_equal(weighted[0], read_png(tmp_path / "weights/frame_0001.png"))
    assert not np.array_equal(weighted, plain)
    assert captured.shape[0] == len(cli_capture) > 1
    for i, png in enumerate(cli_capture):
        np.testing.assert_array_equal(captured[i], read_png(png))


def test_renderer_arguments_and_lifetime(gpu: None, demo_glb: pathlib.Path) -> None:
    asset = morphkit.load(demo_glb)
    with pytest.raises(morphkit.InvalidArgumentError, match="size"):
        morphkit.Renderer(size=(0, 10))
    with pytest.raises(morphkit.InvalidArgumentError, match="morph_path"):
        morphkit.Renderer(morph_path="fast")  # type: ignore[arg-type]
    renderer = morphkit.Renderer(size=(16, 16), morph_path="compute")
    assert renderer.size == (16, 16) and renderer.device_name
    whole = renderer.render(asset, "blink", fps=4)  # frames=None: the whole clip, as `morphkit render`
    duration = next(a.duration for a in asset.animations if a.name == "blink")
    assert whole.shape[0] == int(duration * 4 + 1e-9) + 1
    with pytest.raises(morphkit.InvalidArgumentError, match="anim 9: no animation of that index"):
        renderer.render(asset, 9)
    renderer.close()
    with pytest.raises(morphkit.InvalidArgumentError, match="closed"):
        renderer.render(asset)


def test_the_look_keywords_equal_the_cli(gpu: None, cli: str, demo_glb: pathlib.Path, tmp_path: pathlib.Path) -> None:
    """environment, tone_mapping, exposure, light, background and msaa are the CLI's options of the same names."""
    look = {"environment": "none", "tone_mapping": "aces", "exposure": 1.0, "light": "default",
            "background": "10,200,30", "msaa": 1}
    args = ["--environment", "none", "--tone-mapping", "aces", "--exposure", "1", "--light", "default",
            "--background", "10,200,30", "--msaa", "1"]
    done = run_cli(cli, "render", demo_glb, "--anim", "talk", "--frames", "2:3", "--size", "32x24", "--out",
                   tmp_path / "look", "--no-video", *args)
    assert done.returncode == 0, done.stderr
    asset = morphkit.load(demo_glb)
    with morphkit.Renderer(size=(32, 24), **look) as renderer:  # type: ignore[arg-type]
        image = renderer.render(asset, "talk", frames=[2])[0]
    np.testing.assert_array_equal(image, read_png(tmp_path / "look" / "frame_0002.png"))
    assert tuple(image[0, 0]) == (10, 200, 30, 255)  # the background colour, sRGB as given
    with morphkit.Renderer(size=(32, 24)) as renderer:
        assert not np.array_equal(renderer.render(asset, "talk", frames=[2])[0], image)
    for bad in ({"tone_mapping": "filmic"}, {"light": "sun"}, {"background": "1,2"}, {"msaa": 2},
                {"exposure": float("nan")}, {"environment_intensity": -1.0}):
        with pytest.raises(morphkit.InvalidArgumentError):
            morphkit.Renderer(size=(8, 8), **bad)  # type: ignore[arg-type]
    with pytest.raises(morphkit.Error, match="missing.hdr"):
        morphkit.Renderer(size=(8, 8), environment=str(tmp_path / "missing.hdr"))


def test_two_renderers_in_two_threads(gpu: None, demo_glb: pathlib.Path) -> None:
    """The GIL is released while rendering: two threads, two renderers, the same frames."""
    asset = morphkit.load(demo_glb)
    results: dict[int, np.ndarray] = {}

    def work(slot: int) -> None:
        with morphkit.Renderer(size=(24, 24)) as renderer:
            results[slot] = renderer.render(asset, "talk", frames=range(3))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    np.testing.assert_array_equal(results[0], results[1])
