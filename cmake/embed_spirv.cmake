# SPDX-License-Identifier: MIT
# Turns a SPIR-V binary into a C++ header with its words: cmake -DINPUT=x.spv -DOUTPUT=x.h -DNAME=kX -P embed_spirv.cmake
# (no downloads, no xxd: CMake alone, so the build needs only glslc).
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR remainder "${hex_length} % 8")
if(hex_length EQUAL 0 OR NOT remainder EQUAL 0)
  message(FATAL_ERROR "${INPUT}: not a SPIR-V binary (size is not a multiple of 4 bytes)")
endif()
# Bytes are little endian: "aabbccdd" is the word 0xddccbbaa.
string(REGEX REPLACE "(..)(..)(..)(..)" "0x\\4\\3\\2\\1u," words "${hex}")
string(REGEX REPLACE "((0x[0-9a-f]+u,){8})" "\\1\n  " words "${words}")
file(WRITE "${OUTPUT}.tmp" "// Generated from ${INPUT} by embed_spirv.cmake. Do not edit.\n#pragma once\n#include <cstdint>\n\nnamespace morphkit::gpu::spirv {\ninline constexpr uint32_t ${NAME}[] = {\n  ${words}\n};\n}  // namespace morphkit::gpu::spirv\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
