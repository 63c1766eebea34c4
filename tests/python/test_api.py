# SPDX-License-Identifier: MIT
"""morphkit's Python API against the CLI's JSON on the shared models: info(), pose(), errors, arrays."""
from __future__ import annotations

import ast
import inspect
import json
import pathlib
import pydoc
import threading

import numpy as np
import pytest

import morphkit
from conftest import ASSETS, model_id, run_cli, shared_models

MODELS = shared_models()


@pytest.mark.parametrize("model", MODELS, ids=[model_id(m) for m in MODELS])
def test_info_is_the_inspect_json(assets: pathlib.Path, cli: str, model: pathlib.Path) -> None:
    done = run_cli(cli, "inspect", model, "--json")
    assert done.returncode == 0, done.stderr
    assert morphkit.load(str(model)).info() == json.loads(done.stdout)


def test_read_files_loads_what_mapping_loads(demo_glb: pathlib.Path) -> None:
    assert demo_glb.stat().st_size > 65536  # over the size below which the loader reads anyway
    mapped = morphkit.load(demo_glb)
    read = morphkit.load(demo_glb, read_files=True)
    assert read.info() == mapped.info()
    a = mapped.pose(anim=0, times=[0.25], path="fast")
    b = read.pose(anim=0, times=[0.25], path="fast")
    for pa, pb in zip(a.primitives, b.primitives, strict=True):
        np.testing.assert_array_equal(pa.positions, pb.positions)


@pytest.mark.parametrize("model", MODELS, ids=[model_id(m) for m in MODELS])
def test_pose_equals_the_cli_json(assets: pathlib.Path, cli: str, model: pathlib.Path, tmp_path: pathlib.Path) -> None:
    asset = morphkit.load(model)
    anim = 0 if asset.animations else None
    times = [0.0, 0.3, 0.7]
    args = ["pose", model, "--time", "0,0.3,0.7", "--out", tmp_path / "pose.json"]
    if anim is not None:
        args += ["--anim", "0"]
    done = run_cli(cli, *args)
    assert done.returncode == 0, done.stderr
    cases = json.loads((tmp_path / "pose.json").read_text())["cases"]
    # The CLI's default CPU path is the reference one; its floats print as the shortest float32 round trip.
    result = asset.pose(anim=anim, times=times, path="reference")
    assert result.animation == anim
    np.testing.assert_array_equal(result.times, times)
    for frame, case in enumerate(cases):
        assert len(case["meshes"]) == len(result.primitives)
        for mesh, prim in zip(case["meshes"], result.primitives):
            assert (mesh["node"], mesh["mesh"], mesh["primitive"], mesh["skinned"]) == (
                prim.node, prim.mesh, prim.primitive, prim.skinned)
            np.testing.assert_array_equal(prim.positions[frame].ravel(), np.asarray(mesh["positions"], dtype=np.float32))
            if mesh["normals"] is None:
                assert prim.normals is None
            else:
                np.testing.assert_array_equal(prim.normals[frame].ravel(), np.asarray(mesh["normals"], dtype=np.float32))
            np.testing.assert_array_equal(prim.weights[frame], np.asarray(mesh["weights"], dtype=np.float32))
    # The fast path agrees within float precision.
    fast = asset.pose(anim=anim, times=times, path="fast", threads=2)
    for a, b in zip(fast.primitives, result.primitives):
        scale = max(1.0, float(np.abs(b.positions).max(initial=0.0)))
        np.testing.assert_allclose(a.positions, b.positions, atol=1e-5 * scale, rtol=0)


def test_positions_only_keeps_positions_and_drops_normals(assets: pathlib.Path) -> None:
    blob = morphkit.load(ASSETS / "MorphSkinBlob52/MorphSkinBlob52.glb")  # morph targets, skin, normals, tangents
    times = np.linspace(0, 1, 4)
    for path in ("fast", "reference"):
        full = blob.pose(anim="Talk", times=times, path=path)
        only = blob.pose(anim="Talk", times=times, path=path, positions_only=True)
        for a, b in zip(only.primitives, full.primitives):
            np.testing.assert_array_equal(a.positions, b.positions)
            assert a.normals is None and b.normals is not None
    with pytest.raises(morphkit.InvalidArgumentError, match="positions_only"):
        blob.pose(anim="Talk", times=times, device="gpu", positions_only=True)


def test_arrays_shapes_dtypes_and_layout(assets: pathlib.Path) -> None:
    fox = morphkit.load(ASSETS / "Fox/glTF-Binary/Fox.glb")
    result = fox.pose(anim="Run", times=np.linspace(0, 1, 5))
    assert len(result) == 1 and result.device == "cpu"
    prim = result[0]
    assert prim.positions.shape == (5, 1728, 3)
    assert prim.positions.dtype == np.float32 and prim.positions.flags.c_contiguous
    assert prim.normals is None  # Fox has no NORMAL
    assert prim.weights.shape == (5, 0) and prim.weights.dtype == np.float32
    assert result.times.dtype == np.float64 and prim.skinned and prim.name == f"node{prim.node}_mesh0_prim0"
    # Frames differ (the fox runs) and nothing is left unwritten.
    assert np.isfinite(prim.positions).all()
    assert not np.array_equal(prim.positions[0], prim.positions[2])
    # MorphPrimitivesTest: two primitives of one mesh, both with normals, one weight each.
    prims = morphkit.load(ASSETS / "MorphPrimitivesTest/glTF-Binary/MorphPrimitivesTest.glb").pose()
    assert [p.primitive for p in prims.primitives] == [0, 1]
    assert all(p.normals is not None and p.normals.shape == p.positions.shape for p in prims.primitives)
    np.testing.assert_array_equal(prims[0].weights, [[0.5]])
    assert fox.pose(times=[]).primitives[0].positions.shape == (0, 1728, 3)


def test_npy_from_the_cli_equals_numpy(assets: pathlib.Path, cli: str, tmp_path: pathlib.Path) -> None:
    model = ASSETS / "Fox/glTF-Binary/Fox.glb"
    done = run_cli(cli, "pose", model, "--anim", "1", "--time", "0:1:0.25", "--out", tmp_path / "fox.npy")
    assert done.returncode == 0, done.stderr
    positions = morphkit.load(model).pose(anim=1, times=[0, 0.25, 0.5, 0.75], path="reference")[0].positions
    np.testing.assert_array_equal(np.load(tmp_path / "fox.npy"), positions)
    np.save(tmp_path / "numpy.npy", positions)  # same header and padding as NumPy's own writer
    assert (tmp_path / "numpy.npy").read_bytes() == (tmp_path / "fox.npy").read_bytes()
    done = run_cli(cli, "pose", ASSETS / "MorphPrimitivesTest/glTF-Binary/MorphPrimitivesTest.glb", "--time", "0,1",
                   "--out", tmp_path / "p.npz")
    assert done.returncode == 0, done.stderr
    with np.load(tmp_path / "p.npz") as npz:
        assert sorted(npz.files) == ["node1_mesh0_prim0_normals", "node1_mesh0_prim0_positions",
                                     "node1_mesh0_prim1_normals", "node1_mesh0_prim1_positions", "times"]
        np.testing.assert_array_equal(npz["times"], [0.0, 1.0])
        assert npz["node1_mesh0_prim1_positions"].shape[0] == 2


def test_target_names_and_animations(assets: pathlib.Path) -> None:
    blob = morphkit.load(ASSETS / "MorphSkinBlob52/MorphSkinBlob52.glb")
    info = blob.info()
    assert blob.target_names == info["meshes"][0]["targetNames"] and len(blob.target_names) == 52
    assert [a.name for a in blob.animations] == [a["name"] for a in info["animations"]]
    assert [a.duration for a in blob.animations] == [a["duration"] for a in info["animations"]]
    assert [a.index for a in blob.animations] == [0, 1, 2]
    assert morphkit.load(ASSETS / "SimpleSkin/glTF/SimpleSkin.gltf").target_names == []


CAPTURE = pathlib.Path(ASSETS).parent / "capture" / "sample_capture.csv"


def cli_pose(cli: str, tmp_path: pathlib.Path, model: pathlib.Path, *args: object) -> list[dict]:
    out = tmp_path / "cli_pose.json"
    done = run_cli(cli, "pose", model, *args, "--out", out)
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text())["cases"]


def assert_equals_cli(result: morphkit.PoseResult, cases: list[dict]) -> None:
    for frame, case in enumerate(cases):
        for prim, mesh in zip(result.primitives, case["meshes"]):
            np.testing.assert_array_equal(prim.weights[frame], np.float32(mesh["weights"]))
            np.testing.assert_array_equal(prim.positions[frame].ravel(), np.float32(mesh["positions"]))


def test_weights_by_name_equal_the_cli(assets: pathlib.Path, cli: str, tmp_path: pathlib.Path) -> None:
    model = ASSETS / "MorphSkinBlob52/MorphSkinBlob52.glb"
    blob = morphkit.load(model)
    weights = {"jawOpen": 0.8, "eyeBlinkLeft": 1.0}
    result = blob.pose(anim=0, times=[0.0, 0.5], weights=weights, path="reference")
    assert_equals_cli(result, cli_pose(cli, tmp_path, model, "--anim", "0", "--time", "0,0.5",
                                       "--weights", "jawOpen=0.8,eyeBlinkLeft=1"))
    names = blob.target_names
    w = result.primitives[0].weights
    assert w[0, names.index("jawOpen")] == np.float32(0.8) and w[1, names.index("eyeBlinkLeft")] == 1.0
    # Case-insensitive on request only; an unknown name lists the closest ones.
    with pytest.raises(morphkit.InvalidArgumentError, match="no target named 'JawOpen'.*closest: jawOpen"):
        blob.pose(weights={"JawOpen": 1.0})
    folded = blob.pose(weights={"JawOpen": 0.8}, ignore_case=True).primitives[0].weights
    assert folded[0, names.index("jawOpen")] == np.float32(0.8)
    with pytest.raises(morphkit.InvalidArgumentError, match="not finite"):
        blob.pose(weights={"jawOpen": float("nan")})
    assert blob.pose(weights={}).primitives[0].positions.shape == (1, 8383, 3)


def test_vrm_expressions_by_name_equal_the_cli(cli: str, tmp_path: pathlib.Path) -> None:
    """A VRM avatar's expressions by name in a weights dict, as `pose --weights` takes them (docs/FACE_CAPTURE.md)."""
    model = tmp_path / "face.vrm"
    done = run_cli(cli, "make-demo", model, "--vrm", "--vertices", "300", "--no-capture")
    assert done.returncode == 0, done.stderr
    face = morphkit.load(model)
    result = face.pose(weights={"happy": 1.0, "aa": 0.6, "blink": 1.0}, path="reference")
    assert_equals_cli(result, cli_pose(cli, tmp_path, model, "--anim", "rest", "--weights", "happy=1,aa=0.6,blink=1"))
    names = face.target_names
    w = result.primitives[0].weights[0]
    # happy binds the smiles at 1 and blends blinks away (overrideBlink blend); aa is jawOpen.
    assert w[names.index("mouthSmileLeft")] == 1.0 and w[names.index("cheekSquintLeft")] == np.float32(0.5)
    assert w[names.index("jawOpen")] == np.float32(0.6) and w[names.index("eyeBlinkLeft")] == 0.0


def test_weights_by_name_on_the_gpu_equal_the_cpu(assets: pathlib.Path, gpu: None) -> None:
    blob = morphkit.load(ASSETS / "MorphSkinBlob52/MorphSkinBlob52.glb")
    kwargs = dict(anim=1, times=[0.25, 1.0], weights={"mouthSmileLeft": 0.7, "jawOpen": 0.3})
    cpu = blob.pose(**kwargs).primitives[0]
    on_gpu = blob.pose(device="gpu", **kwargs).primitives[0]
    np.testing.assert_array_equal(cpu.weights, on_gpu.weights)
    extent = float(np.ptp(cpu.positions, axis=1).max())
    np.testing.assert_allclose(on_gpu.positions, cpu.positions, rtol=0, atol=1e-5 * extent)


def test_gpu_memory_bounds_the_frames_in_flight(assets: pathlib.Path, gpu: None) -> None:
    # One frame of MorphSkinBlob52 is about 0.4 MB on the device: 1 MB gives chunks of one frame, the same
    # positions as the default budget; 0 is refused before any work.
    blob = morphkit.load(ASSETS / "MorphSkinBlob52/MorphSkinBlob52.glb")
    times = [0.0, 0.3, 0.6, 0.9, 1.2]
    whole = blob.pose(anim=0, times=times, device="gpu").primitives[0].positions
    chunked = blob.pose(anim=0, times=times, device="gpu", gpu_memory_mb=1).primitives[0].positions
    np.testing.assert_array_equal(whole, chunked)
    with pytest.raises(morphkit.InvalidArgumentError, match="gpu_memory_mb"):
        blob.pose(anim=0, times=times, device="gpu", gpu_memory_mb=0)


def test_pose_csv_equals_the_cli(assets: pathlib.Path, cli: str, tmp_path: pathlib.Path) -> None:
    model = ASSETS / "MorphSkinBlob52/MorphSkinBlob52.glb"
    blob = morphkit.load(model)
    result = blob.pose_csv(CAPTURE, times=[0.0, 0.5, 1.25], path="reference")
    assert_equals_cli(result, cli_pose(cli, tmp_path, model, "--weights-csv", CAPTURE, "--time", "0,0.5,1.25"))
    assert np.count_nonzero(result.primitives[0].weights) > 0
    # Default times: the capture's rows.
    rows = sum(1 for _ in CAPTURE.open()) - 1
    assert blob.pose_csv(CAPTURE).primitives[0].positions.shape[0] == rows
    # A map renames a column (dict or file); an unknown target in it is an error.
    mapped = blob.pose_csv(CAPTURE, times=[0.5], map={"JawOpen": {"target": "jawOpen", "scale": 0.5}})
    plain = result.primitives[0].weights[1]
    assert mapped.primitives[0].weights[0, blob.target_names.index("jawOpen")] == pytest.approx(0.5 * plain[blob.target_names.index("jawOpen")])
    with pytest.raises(morphkit.InvalidArgumentError, match="map"):
        blob.pose_csv(CAPTURE, map={"JawOpen": "noSuchTarget"})
    bad = tmp_path / "bad.csv"
    bad.write_text(CAPTURE.read_text().splitlines()[0] + "\n14:03:52:28.207,61,abc\n")
    with pytest.raises(morphkit.InvalidCsvError, match="line 2") as e:
        blob.pose_csv(bad)
    assert e.value.code == "invalid_csv" and isinstance(e.value, ValueError)


def test_load_capture_reads_every_format(tmp_path: pathlib.Path) -> None:
    times, weights, names, report = morphkit.load_capture(CAPTURE)
    assert report["format"] == "livelink" and report["rows"] == 120 and report["scale"] == 1.0
    assert weights.dtype == np.float32 and weights.shape == (120, len(names)) == (120, 61)
    assert times.shape == (120,) and times[0] == 0.0 and np.all(np.diff(times) > 0)
    jaw = names.index("JawOpen")
    # The same capture as MediaPipe JSON Lines, Audio2Face JSON and iFacialMocap packets (0-100).
    rows = range(0, 120, 10)
    mp = tmp_path / "mp.jsonl"
    mp.write_text("".join(json.dumps({"timestampMs": 1000.0 * float(times[r]), "faceBlendshapes": [{"categories": [
        {"categoryName": "jawOpen", "score": float(weights[r, jaw])}]}]}) + "\n" for r in rows))
    t, w, n, rep = morphkit.load_capture(mp)
    assert rep["format"] == "mediapipe" and n == ["jawOpen"]
    np.testing.assert_allclose(t, times[list(rows)], atol=1e-6)
    np.testing.assert_array_equal(w[:, 0], weights[list(rows), jaw])
    a2f = tmp_path / "a2f.json"
    a2f.write_text(json.dumps({"exportFps": 6, "numPoses": 1, "numFrames": len(rows), "facsNames": ["jawOpen"],
                               "weightMat": [[float(weights[r, jaw])] for r in rows]}))
    t, w, n, rep = morphkit.load_capture(a2f, "a2f")
    assert rep["format"] == "a2f" and rep["duration"] == pytest.approx((len(rows) - 1) / 6)
    np.testing.assert_array_equal(w[:, 0], weights[list(rows), jaw])
    ifm = tmp_path / "ifm.txt"
    ifm.write_text("".join(f"jawOpen-{round(100 * float(weights[r, jaw]))}|=head#0,0,0,0,0,0|\n" for r in rows))
    t, w, n, rep = morphkit.load_capture(ifm, capture_fps=30)
    assert rep["format"] == "ifacialmocap" and rep["scale"] == 100.0
    np.testing.assert_allclose(w[:, 0], weights[list(rows), jaw], atol=0.005 + 1e-6)
    with pytest.raises(morphkit.InvalidCsvError, match="--capture-fps"):
        morphkit.load_capture(ifm)
    with pytest.raises(morphkit.InvalidArgumentError, match="format"):
        morphkit.load_capture(ifm, "bvh")
    bad = tmp_path / "bad.json"
    bad.write_text('[{"timestamp_ms": 0, "blendshapes": [{"category_name": "jawOpen", "score": "x"}]}]')
    with pytest.raises(morphkit.InvalidArgumentError, match=r"frames\[0\]\.blendshapes\[0\]\.score"):
        morphkit.load_capture(bad)
    # The CLI's clean-up (io's cleanCapture), step by step: neutral, smooth, offset, resample.
    t, w, n, rep = morphkit.load_capture(CAPTURE, neutral=0.5, smooth="one-euro", offset=-0.1, fps=30)
    assert [step.split(":")[0] for step in rep["steps"]] == ["scale", "neutral", "smooth", "offset", "resample"]
    shapes = [i for i, name in enumerate(n) if not name.endswith(("Yaw", "Pitch", "Roll"))]  # rotations: radians
    assert rep["rows"] == 120 and len(shapes) == 52 and np.all(w[:, shapes] >= 0.0)  # the neutral clamps at 0
    np.testing.assert_allclose(np.diff(t)[:-1], 1 / 30, atol=1e-5)  # the capture's last time is kept as the last row
    assert 0.0 < t[-1] - t[-2] <= 1 / 30 + 1e-6
    assert t[0] == 0.0 and t[-1] <= times[-1] - 0.1 + 1e-6
    _, w_face, _, rep_face = morphkit.load_capture(CAPTURE, neutral=CAPTURE)
    assert rep_face["steps"][1].startswith("neutral: the mean of ") and np.all(w_face <= weights + 1e-6)
    with pytest.raises(morphkit.InvalidArgumentError, match="smooth"):
        morphkit.load_capture(CAPTURE, smooth="gauss")
    with pytest.raises(morphkit.InvalidArgumentError, match="neutral"):
        morphkit.load_capture(CAPTURE, neutral=-1.0)
    with pytest.raises(morphkit.InvalidArgumentError, match="offset"):
        morphkit.load_capture(CAPTURE, offset=-1000.0)
    with pytest.raises(morphkit.InvalidArgumentError, match="capture offset: must be a finite number"):
        morphkit.load_capture(CAPTURE, offset=float("nan"))
    with pytest.raises(morphkit.InvalidArgumentError, match="resample fps: must be a finite number >= 0"):
        morphkit.load_capture(CAPTURE, fps=-1.0)
    # pose_csv takes any format: the MediaPipe file poses as its rows' values by name.
    model = ASSETS / "MorphSkinBlob52/MorphSkinBlob52.glb"
    blob = morphkit.load(model)
    by_capture = blob.pose_csv(mp, times=[float(times[10])], path="reference")
    by_weights = blob.pose(times=[0.0], weights={"jawOpen": float(weights[10, jaw])}, path="reference")
    np.testing.assert_array_equal(by_capture.primitives[0].positions, by_weights.primitives[0].positions)


def test_version_is_the_cli_version(cli: str) -> None:
    done = run_cli(cli, "--version")
    assert done.returncode == 0 and morphkit.__version__ in done.stdout


def cli_error(cli: str, *args: object) -> str:
    done = run_cli(cli, *args)
    assert done.returncode == 1, done.stderr
    prefix = "morphkit: error: "
    assert done.stderr.startswith(prefix)
    return done.stderr[len(prefix):].strip()


def test_errors_are_typed_and_carry_the_cli_message(assets: pathlib.Path, cli: str, tmp_path: pathlib.Path) -> None:
    missing = tmp_path / "missing.glb"
    with pytest.raises(morphkit.FileNotFoundError_) as e:
        morphkit.load(missing)
    assert isinstance(e.value, morphkit.Error) and isinstance(e.value, FileNotFoundError)
    assert e.value.code == "file_not_found"
    assert str(e.value) == cli_error(cli, "inspect", missing)

    bad_json = tmp_path / "bad.gltf"
    bad_json.write_text('{"asset": {"version": "2.0"}, "nodes": [')
    with pytest.raises(morphkit.InvalidJsonError) as e:
        morphkit.load(bad_json)
    assert isinstance(e.value, morphkit.InvalidAssetError) and str(e.value) == cli_error(cli, "inspect", bad_json)

    bad_rule = tmp_path / "rule.gltf"
    bad_rule.write_text('{"asset": {"version": "2.0"}, "nodes": [{"mesh": 3}]}')
    with pytest.raises(morphkit.InvalidGltfError) as e:
        morphkit.load(bad_rule)
    assert str(e.value) == cli_error(cli, "inspect", bad_rule)

    escaping = tmp_path / "sub" / "escape.gltf"
    escaping.parent.mkdir()
    escaping.write_text('{"asset": {"version": "2.0"}, "buffers": [{"uri": "../outside.bin", "byteLength": 4}]}')
    (tmp_path / "outside.bin").write_bytes(b"\0" * 4)
    with pytest.raises(morphkit.PathEscapesFolderError):
        morphkit.load(escaping)
    morphkit.load(escaping, allow_external_paths=True)

    fox = morphkit.load(ASSETS / "Fox/glTF-Binary/Fox.glb")
    with pytest.raises(morphkit.InvalidArgumentError, match="anim 7: no animation of that index"):
        fox.pose(anim=7)
    with pytest.raises(morphkit.InvalidArgumentError, match="anim 'Fly': no animation of that name"):
        fox.pose(anim="Fly")
    with pytest.raises(morphkit.InvalidArgumentError, match="device"):
        fox.pose(device="tpu")  # type: ignore[arg-type]
    with pytest.raises(morphkit.InvalidArgumentError, match="path"):
        fox.pose(path="slow")  # type: ignore[arg-type]
    with pytest.raises(morphkit.InvalidArgumentError, match="times"):
        fox.pose(times=[[0.0, 1.0]])
    with pytest.raises(morphkit.InvalidArgumentError, match="not finite"):
        fox.pose(times=[float("nan")])
    with pytest.raises(morphkit.InvalidArgumentError, match="scene"):
        fox.pose(scene=-1)


def test_posing_releases_the_gil(assets: pathlib.Path) -> None:
    """While one thread poses, another keeps running Python code (no timing: counts, not seconds)."""
    blob = morphkit.load(ASSETS / "MorphSkinBlob52/MorphSkinBlob52.glb")
    counter = [0]
    seen: dict[str, int] = {}
    done = threading.Event()

    def worker() -> None:
        seen["before"] = counter[0]
        blob.pose(anim=0, times=np.linspace(0, 2, 120), path="reference")
        seen["after"] = counter[0]
        done.set()

    thread = threading.Thread(target=worker)
    thread.start()
    while not done.is_set():
        counter[0] += 1
    thread.join()
    # With the GIL held for the whole call the main loop could not advance during it.
    assert seen["after"] - seen["before"] > 1000


def test_animation_names_resolve_as_in_the_cli(assets: pathlib.Path, cli: str) -> None:
    path = ASSETS / "Fox/glTF-Binary/Fox.glb"
    fox = morphkit.load(path)
    walk = fox.pose(anim=1, times=[0.5]).primitives[0].positions
    for name in ("Walk", "walk", "WALK"):  # exact, else the one name equal ignoring case
        np.testing.assert_array_equal(fox.pose(anim=name, times=[0.5]).primitives[0].positions, walk)
    assert fox.pose(anim="rest").animation is None
    listing = "(the file has 0 'Survey', 1 'Walk', 2 'Run'; 'rest': the rest pose)"
    with pytest.raises(morphkit.InvalidArgumentError) as e:
        fox.pose(anim="Wakl")
    assert str(e.value) == f"{path}: anim 'Wakl': no animation of that name; did you mean 'Walk'? {listing}"
    assert cli_error(cli, "pose", path, "--anim", "Wakl") == str(e.value).replace("anim 'Wakl'", "--anim 'Wakl'")
    with pytest.raises(morphkit.InvalidArgumentError) as e:
        fox.pose(anim="Fly")
    assert str(e.value) == f"{path}: anim 'Fly': no animation of that name {listing}"  # nothing close enough
    with pytest.raises(morphkit.InvalidArgumentError) as e:
        fox.pose(anim="")
    assert str(e.value) == (f"{path}: anim '': expected an index, a name or 'rest' "
                            "(the file has 0 'Survey', 1 'Walk', 2 'Run')")


def pyi_docs() -> dict[str, str]:
    """{"Asset.pose": docstring, ...} for every documented class, function, method and property of the .pyi."""
    pyi = pathlib.Path(morphkit.__file__).parent / "_morphkit.pyi"
    docs: dict[str, str] = {}
    for node in ast.parse(pyi.read_text()).body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            docs[node.name] = ast.get_docstring(node) or ""
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                if isinstance(member, ast.FunctionDef):
                    docs[f"{node.name}.{member.name}"] = ast.get_docstring(member) or ""
    return docs


def runtime_doc(name: str) -> str:
    """The runtime docstring of morphkit.<name>, without the signature line pybind11 puts first."""
    obj: object = morphkit
    for part in name.split("."):
        obj = inspect.getattr_static(obj, part) if isinstance(obj, type) else getattr(obj, part)
    doc = getattr(obj, "__doc__", None) or ""
    short = name.rsplit(".", 1)[-1]
    if not isinstance(obj, (type, property)) and doc.startswith(f"{short}("):
        doc = doc.split("\n", 1)[1] if "\n" in doc else ""
    return inspect.cleandoc(doc)


def test_runtime_docstrings_are_the_pyi_text() -> None:
    docs = pyi_docs()
    assert "Asset.pose" in docs and "Renderer.render" in docs
    mismatched = {name: (runtime_doc(name), text) for name, text in docs.items() if runtime_doc(name) != text}
    assert mismatched == {}
    assert "anim: an animation index or name" in pydoc.render_doc(morphkit.Asset.pose)


def test_the_namespace_holds_only_the_api() -> None:
    public = {name for name in dir(morphkit) if not name.startswith("_")}
    assert public - {"batch"} == set(morphkit.__all__)  # no `annotations` or other import leftovers


def test_the_error_table_lists_every_class() -> None:
    from morphkit import _errors
    text = (pathlib.Path(__file__).parents[2] / "docs" / "PYTHON.md").read_text()
    table = text[text.index("| class | also a | code |"):text.index("## Tests")]
    classes = [getattr(_errors, name) for name in _errors.__all__ if isinstance(getattr(_errors, name), type)]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    for cls in classes:
        row = next((r for r in rows if f"`{cls.__name__}`" in r.split("|")[1]), None)
        assert row is not None, f"{cls.__name__} is missing from docs/PYTHON.md's error table"
        assert f"`{cls.code}`" in row.split("|")[3], (cls.__name__, row)
