"""Types of the morphkit._morphkit extension (src/python/module.cpp), re-exported by morphkit."""
from __future__ import annotations

import os
from typing import Any, Iterable, Literal, Mapping, Sequence

import numpy as np
import numpy.typing as npt

__version__: str

class AnimationInfo:
    """One animation of an asset."""

    @property
    def index(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def duration(self) -> float:
        """Seconds: the last key time over the animation's samplers."""

class PosedPrimitive:
    """One posed (node, mesh, primitive) over every frame of a pose call, world space."""

    @property
    def node(self) -> int: ...
    @property
    def mesh(self) -> int: ...
    @property
    def primitive(self) -> int: ...
    @property
    def skinned(self) -> bool: ...
    @property
    def name(self) -> str:
        """"node<N>_mesh<M>_prim<P>", as in .npz files written by `morphkit pose`."""
    @property
    def positions(self) -> npt.NDArray[np.float32]:
        """(frames, vertices, 3) float32."""
    @property
    def normals(self) -> npt.NDArray[np.float32] | None:
        """(frames, vertices, 3) float32, unit length; None when the primitive has no NORMAL."""
    @property
    def weights(self) -> npt.NDArray[np.float32]:
        """(frames, targets) float32: the morph weights each frame used."""

class PoseResult:
    """What Asset.pose returns."""

    @property
    def times(self) -> npt.NDArray[np.float64]:
        """(frames,) seconds."""
    @property
    def animation(self) -> int | None:
        """The animation index, or None for the rest pose."""
    @property
    def scene(self) -> int: ...
    @property
    def device(self) -> Literal["cpu", "gpu"]: ...
    @property
    def primitives(self) -> list[PosedPrimitive]:
        """Sorted by node, mesh, primitive; a mesh instanced by two nodes appears twice."""
    def __len__(self) -> int: ...
    def __getitem__(self, index: int) -> PosedPrimitive: ...

class Asset:
    """A loaded, validated glTF 2.0 asset (morphkit.load)."""

    @property
    def path(self) -> str: ...
    def info(self) -> dict[str, Any]:
        """The data of `morphkit inspect --json`, as a dict (schema in docs/CLI.md)."""
    @property
    def target_names(self) -> list[str]:
        """Distinct morph target names (mesh.extras.targetNames), mesh then target order."""
    @property
    def animations(self) -> list[AnimationInfo]:
        """The asset's animations in file order."""
    def pose(
        self,
        anim: int | str | None = None,
        times: Sequence[float] | npt.ArrayLike = (0.0,),
        weights: Mapping[str, float] | None = None,
        ignore_case: bool = False,
        device: Literal["cpu", "gpu"] = "cpu",
        path: Literal["fast", "reference"] = "fast",
        scene: int | str | None = None,
        threads: int = 1,
        positions_only: bool = False,
        gpu_memory_mb: int = 256,
    ) -> PoseResult:
        """Morph, then skin, every (node, primitive) of `scene` at each time (seconds).

        anim: an animation index or name; None poses the rest pose (node/mesh weights). A name matches exactly,
            else the one animation equal to it ignoring case (the CLI's --anim; "rest" is the rest pose unless an
            animation is so named); an unknown name raises InvalidArgumentError naming the closest one.
        weights: {target name: value}, set on every mesh carrying the name, on top of the animation or rest
            weights (the CLI's --weights). On a VRM avatar a name may be an expression ("happy", "aa"): its
            binds with isBinary and the override rules (docs/FACE_CAPTURE.md). An unknown name raises
            InvalidArgumentError listing the closest names.
        ignore_case: match weight names case-insensitively (ARKit's jawOpen vs a capture's JawOpen).
        scene: a scene index or name, by the same rules as anim (the CLI's --scene); None: the file's scene.
        device: "cpu" or "gpu" (Vulkan compute; the same result within float precision).
        path: the CPU path, "fast" (packed deltas) or "reference" (scalar, double accumulation).
        threads: CPU worker threads for this call (0: every core).
        positions_only: pose positions only (normals None; about 1.8x faster on the fast path; positions identical
            to a full pose's). CPU only: with device="gpu" it raises InvalidArgumentError.
        gpu_memory_mb: device="gpu": MB of posed vertices in flight (the CLI's --gpu-memory-mb; frames are posed in
            two chunks of half of it); below one frame's output raises InvalidArgumentError naming the bytes one
            frame needs.
        The GIL is released while posing; arrays are allocated once and filled in place.
        """
    def pose_csv(
        self,
        capture: str | os.PathLike[str],
        *,
        times: Sequence[float] | npt.ArrayLike | None = None,
        csv_fps: float = 60.0,
        map: Mapping[str, str | Mapping[str, Any] | None] | str | os.PathLike[str] | None = None,
        anim: int | str | None = None,
        weights: Mapping[str, float] | None = None,
        ignore_case: bool = False,
        device: Literal["cpu", "gpu"] = "cpu",
        path: Literal["fast", "reference"] = "fast",
        scene: int | str | None = None,
        threads: int = 1,
        positions_only: bool = False,
        gpu_memory_mb: int = 256,
    ) -> PoseResult:
        """Play a face capture (Live Link Face CSV, docs/FACE_CAPTURE.md) on the asset, like the CLI's --weights-csv.

        Columns match target names case-insensitively (LINEAR between rows); the 9 rotation columns are unused
        unless mapped. times: seconds from the first row (default: every row's time). csv_fps: the timecodes'
        frame rate. map: {column: target} or {column: {"target": t, "scale": s}}, or a JSON file of that form.
        anim: an animation the capture plays on top of (default: the rest pose). weights: overrides applied last.
        Raises a morphkit.Error subclass naming the line and column of a bad CSV.
        """

def load(path: str | os.PathLike[str], *, allow_external_paths: bool = False, read_files: bool = False) -> Asset:
    """Load and validate a .gltf / .glb file; raises a morphkit.Error subclass on bad input.

    The file is mapped; read_files=True reads it into memory instead (the CLI's --read-files: for a file that
    may change while the Asset lives, or a machine whose page faults are slow). The result is the same.
    """

def check(
    path: str | os.PathLike[str],
    engines: str | Sequence[str] | None = None,
    *,
    times: int = 10,
    threads: int = 1,
    allow_external_paths: bool = False,
    read_files: bool = False,
) -> dict[str, Any]:
    """How each engine will show the file: `morphkit check --json`'s report as a dict (docs/CHECK.md).

    engines: None or "all" (every profile), "three,bevy", or a list of names (three, babylon, filament, godot,
    bevy); an unknown name raises InvalidArgumentError naming the known ones. times: sample times per animation.
    Per engine: "deviation" (null when no geometric rule applies), "rules" (each with "applies", "where" and its
    own "deviation"), "hazards" (load refusals, dropped targets, extensions) and "loads".
    """

def optimize(
    path: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    max_error_mm: float | None = None,
    max_error_rel: float | None = None,
    meshopt: bool = True,
    keep_attributes: bool = False,
    keep_nodes: bool = False,
    skip_passes: Sequence[str] = (),
    textures: str = "keep",
    texture_size: int = 0,
    texture_min_psnr: float = 35.0,
    simplify: float | None = None,
    simplify_error_mm: float | None = None,
    lod: Sequence[float] = (),
    for_engine: str | None = None,
    allow_external_paths: bool = False,
    render_check: bool | None = None,
) -> dict[str, Any]:
    """Write a smaller .glb of the file, verified within a bound at every pose: `morphkit optimize --json`'s report.

    max_error_mm: the largest world-space vertex distance from the input at any pose, in millimetres;
    max_error_rel: the bound as a fraction of the rest pose's bounding-box diagonal (default 2e-4); give one.
    meshopt=False writes quantization alone. keep_attributes keeps a TEXCOORD_n or TANGENT no material reads;
    keep_nodes adds no node for an unskinned mesh's dequantization; skip_passes names passes not to run
    ("drop-attributes", "drop-direction-deltas", "weld", "simplify", "node-dequantization", "textures", "reorder"),
    an unknown one raises. The report's "passes" says what each pass changed. textures: "keep", "webp"
    (EXT_texture_webp) or "ktx2" (KHR_texture_basisu through the basisu program), no fallback image; texture_size: the
    largest side kept (0: any); a texture whose encoding decodes below texture_min_psnr dB keeps its bytes; the
    report's "textures" gives each one's bytes, GPU memory and error before and after (docs/OPTIMIZE.md, "Textures").
    simplify keeps that fraction of each mesh's triangles, in (0, 1] (`--simplify`), stopping before a collapse error
    above simplify_error_mm; lod=[r1, r2, ...] also writes out's stem.lod1.glb, .lod2.glb, ... beside out, one per
    ratio (`--lod`), and the report's "lods" holds each level's report (docs/OPTIMIZE.md, "Levels of detail").
    for_engine (CLI --for): "three", "babylon", "filament", "godot", "bevy", "playcanvas" or "univrm"; the output holds
    only the extensions that runtime decodes, and the report's "forEngine" says what that changed; an unknown name, or
    textures the runtime cannot decode, raise InvalidArgumentError.
    render_check renders the input and out at a few verified poses and reports the pixel difference as "renderDiff"
    (`--render-check`, docs/OPTIMIZE.md "What the user sees"); None, the default, runs it when textures is "webp" and
    notes it in "notes" when there is no Vulkan device; True without a device raises.
    An existing out is replaced whole, as every command replaces its output file (docs/CLI.md, "The overwrite rule");
    out equal to path, a bound <= 0 or NaN, a ratio outside (0, 1], simplify with lod raise InvalidArgumentError; a
    bound no encoding meets raises naming the pose and vertex, and writes nothing (docs/OPTIMIZE.md).
    """

def load_capture(
    path: str | os.PathLike[str],
    format: Literal["auto", "livelink", "csv", "mediapipe", "a2f", "ifacialmocap"] = "auto",
    *,
    csv_fps: float = 60.0,
    capture_fps: float = 0.0,
    face: int = 0,
    scale: float | None = None,
    neutral: float | str | os.PathLike[str] | None = None,
    smooth: str | None = None,
    offset: float = 0.0,
    fps: float = 0.0,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float32], list[str], dict[str, Any]]:
    """Read a face capture of any format and clean it as the CLI's --capture does: (times, weights, names, report).

    times: (frames,) seconds after the first frame; weights: (frames, channels) float32, scaled to 0-1 (the
    format's scale, or 100 when a value exceeds 1.5; scale= sets it; rotation channels are left alone); names: the
    channels as the file writes them; report: {format, rows, channels, duration (rows and duration as read), scale,
    largest_value, skipped_frames, first_timecode, steps (one line per cleaning step)}. format="auto" tells the
    formats apart by content; csv_fps is the rate of HH:MM:SS:FF timecodes, capture_fps that of a capture without
    times (iFacialMocap), face the MediaPipe face. Then, in this order (the CLI's --neutral, --smooth,
    --capture-offset, --fps): neutral subtracts the neutral face (seconds: the mean of the rows up to then; a path:
    a capture of the neutral face), clamped at 0; smooth="one-euro[:MINCUTOFF,BETA]" runs the One-Euro filter;
    offset shifts the times (seconds); fps > 0 resamples (LINEAR). Bad input raises a morphkit.Error subclass
    naming the file, frame and field (docs/FACE_CAPTURE.md)."""

class Renderer:
    """A headless Vulkan renderer (PBR, one shadowed light) of one image size on one device."""

    def __init__(
        self,
        device: int = -1,
        size: tuple[int, int] = (256, 256),
        *,
        morph_path: Literal["vertex", "compute", "auto"] = "auto",
        shadows: bool = True,
        prepass: bool = True,
        validation: bool = False,
        environment: str = "studio",
        environment_intensity: float = 1.0,
        environment_rotation: float = 0.0,
        tone_mapping: Literal["neutral", "aces", "none"] = "neutral",
        exposure: float = 0.0,
        light: Literal["default", "none"] = "default",
        background: str = "opaque",
        msaa: Literal[1, 4, 8] = 4,
    ) -> None:
        """device: the Vulkan device index (-1: the best); size: (width, height). The look, as `morphkit
        render`'s options of the same names (docs/RENDER.md): environment "studio", "none" or a Radiance .hdr
        file (its maps are made once and used for every asset); environment_rotation in degrees about +Y;
        tone_mapping; exposure in EV; light "default" (the key light) or "none"; background "opaque",
        "transparent", "environment" or "R,G,B" (sRGB 0..255); msaa samples per pixel (1, 4 or 8)."""
    @property
    def device_name(self) -> str: ...
    @property
    def size(self) -> tuple[int, int]: ...
    def render(
        self,
        asset: Asset,
        anim: int | str | None = None,
        frames: Iterable[int] | None = None,
        fps: float = 30.0,
        *,
        weights: Mapping[str, float] | None = None,
        capture: str | os.PathLike[str] | None = None,
        csv_fps: float = 60.0,
        map: Mapping[str, str | Mapping[str, Any] | None] | str | os.PathLike[str] | None = None,
        ignore_case: bool = False,
    ) -> npt.NDArray[np.uint8]:
        """Render frames (indices at fps; None: the whole clip, as `morphkit render`) to uint8 RGBA
        (frames, height, width, 4), sRGB, top row first. The camera frames the whole clip, so any frame
        equals the same frame of `morphkit render`. The GIL is released while rendering.

        anim: as in Asset.pose (None: the rest pose). weights: {target name: value} on top (the CLI's --weights).
        capture: a face capture CSV played on the animation or the rest pose (the CLI's --weights-csv, with
        csv_fps and map as in Asset.pose_csv); frames=None then covers the longer of the clip and the capture.
        ignore_case: match weight names case-insensitively."""
    def validation_messages(self) -> list[str]:
        """Messages of the Vulkan validation layer so far (empty without validation)."""
    def close(self) -> None: ...
    def __enter__(self) -> Renderer: ...
    def __exit__(self, *args: object) -> None: ...
