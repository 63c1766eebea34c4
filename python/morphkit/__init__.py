# SPDX-License-Identifier: MIT
"""morphkit — glTF 2.0 morph targets and skinning on the CPU and the GPU (Vulkan), as NumPy arrays.

    import morphkit
    asset = morphkit.load("face.glb")
    result = asset.pose(anim="talk", times=[0.0, 0.5, 1.0])
    result.primitives[0].positions          # float32 (3, vertices, 3), world space
    with morphkit.Renderer(size=(256, 256)) as renderer:
        images = renderer.render(asset, "talk", frames=range(10))   # uint8 (10, 256, 256, 4)

Batch jobs over many assets on Dask: morphkit.batch (docs/BATCH.md). See docs/PYTHON.md.
"""

from ._errors import (DeviceError, DeviceLostError, Error, FileNotFoundError_, InvalidArgumentError,
                      InvalidAssetError, InvalidCsvError, InvalidGlbError, InvalidGltfError, InvalidJsonError, IoError,
                      NoDeviceError, OutOfMemoryError, PathEscapesFolderError, TooLargeError,
                      UnsupportedExtensionError, VulkanError)
from ._morphkit import AnimationInfo, Asset, PosedPrimitive, PoseResult, Renderer, __version__, check, load, load_capture, optimize

__all__ = ["load", "load_capture", "check", "optimize", "Asset", "AnimationInfo", "PoseResult", "PosedPrimitive", "Renderer", "Error",
           "FileNotFoundError_", "IoError", "InvalidAssetError", "InvalidJsonError", "InvalidCsvError", "InvalidGlbError",
           "InvalidGltfError", "UnsupportedExtensionError", "PathEscapesFolderError", "TooLargeError",
           "InvalidArgumentError", "DeviceError", "NoDeviceError", "VulkanError", "DeviceLostError",
           "OutOfMemoryError"]
