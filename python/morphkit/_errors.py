# SPDX-License-Identifier: MIT
"""morphkit.Error and its subclasses, one per morphkit::Error code (include/core/morphkit/model/error.h).

Every error the extension raises is one of these; ``str(e)`` is the one-line message, the same text the CLI
prints after ``morphkit: error:`` (``FILE: <where>: <what>``), and ``e.code`` the stable code name.
"""
from __future__ import annotations


class Error(Exception):
    """Base class of every morphkit error."""

    code: str = "unknown"


class FileNotFoundError_(Error, FileNotFoundError):
    """A file named by the caller or by a URI does not exist."""

    code = "file_not_found"


class IoError(Error, OSError):
    """Reading or writing failed."""

    code = "io"


class InvalidAssetError(Error, ValueError):
    """The file is not valid glTF 2.0 (base of the JSON, GLB and glTF-rule errors)."""

    code = "invalid_asset"


class InvalidJsonError(InvalidAssetError):
    code = "invalid_json"


class InvalidCsvError(Error, ValueError):
    """A face-capture CSV breaks its layout (the message names the line and column)."""

    code = "invalid_csv"


class InvalidGlbError(InvalidAssetError):
    code = "invalid_glb"


class InvalidGltfError(InvalidAssetError):
    code = "invalid_gltf"


class UnsupportedExtensionError(InvalidAssetError):
    code = "unsupported_extension"


class PathEscapesFolderError(Error, PermissionError):
    """A URI points outside the asset's folder (pass allow_external_paths=True to permit it)."""

    code = "path_escapes_folder"


class TooLargeError(Error, ValueError):
    code = "too_large"


class InvalidArgumentError(Error, ValueError):
    """A caller passed something that cannot work (unknown animation, target name, device...)."""

    code = "invalid_argument"


class DeviceError(Error, RuntimeError):
    """Base of the Vulkan errors."""

    code = "device"


class NoDeviceError(DeviceError):
    code = "no_device"


class VulkanError(DeviceError):
    code = "vulkan"


class DeviceLostError(DeviceError):
    code = "device_lost"


class OutOfMemoryError(Error, MemoryError):
    code = "out_of_memory"


_BY_CODE = {
    cls.code: cls
    for cls in (FileNotFoundError_, IoError, InvalidJsonError, InvalidCsvError, InvalidGlbError, InvalidGltfError,
                UnsupportedExtensionError, PathEscapesFolderError, TooLargeError, InvalidArgumentError,
                NoDeviceError, VulkanError, DeviceLostError, OutOfMemoryError)
}


def error_class(code: str) -> type[Error]:
    """The class the extension raises for a morphkit::Error code name (errorName in C++)."""
    return _BY_CODE.get(code, Error)


__all__ = ["Error", "FileNotFoundError_", "IoError", "InvalidAssetError", "InvalidJsonError", "InvalidCsvError",
           "InvalidGlbError", "InvalidGltfError", "UnsupportedExtensionError", "PathEscapesFolderError", "TooLargeError",
           "InvalidArgumentError", "DeviceError", "NoDeviceError", "VulkanError", "DeviceLostError",
           "OutOfMemoryError", "error_class"]
