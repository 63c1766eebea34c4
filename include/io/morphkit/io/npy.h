// SPDX-License-Identifier: MIT
// morphkit/io/npy.h — NumPy's .npy and .npz formats, written without NumPy: posed vertex sequences as
// (frames, vertices, 3) float32 arrays that `numpy.load` maps straight in.
//
// .npy (NumPy format 1.0, numpy/lib/format.py): the magic "\x93NUMPY", version bytes 1 0, a little-endian u16
// header length, then an ASCII Python dict {'descr': '<f4', 'fortran_order': False, 'shape': (F, V, 3), }
// padded with spaces and a final '\n' so that the data starts on a 64-byte boundary; then the C-order data.
// .npz: a ZIP archive (PKWARE APPNOTE 6.3, "stored": no compression, no ZIP64) holding one NAME.npy per array.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "morphkit/model/error.h"

namespace morphkit {

// A whole .npy file of little-endian float32 ('<f4') or float64 ('<f8') values in C order; `values.size()`
// must equal the product of `shape` (an empty shape is a 0-d array of one value). Fails (kInvalidArgument)
// when it does not.
Expected<std::vector<uint8_t>> encodeNpy(std::span<const float> values, std::span<const uint64_t> shape);
Expected<std::vector<uint8_t>> encodeNpy(std::span<const double> values, std::span<const uint64_t> shape);
// Only the header of encodeNpy(values, shape): the file is these bytes followed by the values' bytes, for a writer
// that sends a large array without copying it (writeFileAtomic's parts). Fails as encodeNpy.
Expected<std::vector<uint8_t>> encodeNpyHeader(std::span<const float> values, std::span<const uint64_t> shape);

// One array of an .npz: `name` without ".npy" ([A-Za-z0-9_.-], 1..200 characters), `npy` a whole .npy file.
struct NpzEntry {
  std::string name;
  std::vector<uint8_t> npy;
};
// A stored ZIP of the entries, in order. Fails (kInvalidArgument) for a bad or repeated name, (kTooLarge) when
// an entry or the archive passes 4 GiB (no ZIP64).
Expected<std::vector<uint8_t>> encodeNpz(std::span<const NpzEntry> entries);

// Decoders, for tests and tools: the dtype string ('<f4', '<f8'), the shape and the raw data bytes.
struct NpyArray {
  std::string descr;
  bool fortran_order = false;
  std::vector<uint64_t> shape;
  std::vector<uint8_t> data;
};
Expected<NpyArray> decodeNpy(std::span<const uint8_t> bytes);
// Stored entries only (what encodeNpz writes); names come back without ".npy". Checks every CRC-32.
Expected<std::vector<std::pair<std::string, NpyArray>>> decodeNpz(std::span<const uint8_t> bytes);

// CRC-32 (ISO-HDLC, the ZIP/PNG one: reflected polynomial 0xEDB88320), continuing from `crc` (0 to start).
uint32_t crc32(std::span<const uint8_t> bytes, uint32_t crc = 0);

}  // namespace morphkit
