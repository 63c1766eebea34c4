# SPDX-License-Identifier: MIT
# Fails when a source, header, shader, CMake file or script we wrote lacks the SPDX line (the first line, or the
# second after a #! line). Run by ctest as `license_headers`: cmake -DSOURCE_DIR=<repo> -P check_license_headers.cmake
file(GLOB_RECURSE candidates LIST_DIRECTORIES false RELATIVE "${SOURCE_DIR}"
  "${SOURCE_DIR}/src/*" "${SOURCE_DIR}/include/*" "${SOURCE_DIR}/tests/*" "${SOURCE_DIR}/bench/*"
  "${SOURCE_DIR}/shaders/*" "${SOURCE_DIR}/scripts/*" "${SOURCE_DIR}/cmake/*" "${SOURCE_DIR}/tools/validator/*.js"
  "${SOURCE_DIR}/python/*" "${SOURCE_DIR}/.ci/*" "${SOURCE_DIR}/CMakeLists.txt")
set(missing)
foreach(file ${candidates})
  if(file MATCHES "node_modules/|__pycache__/|/golden/")
    continue()
  endif()
  if(NOT (file MATCHES "\\.(cpp|h|comp|vert|frag|glsl|js|py|cmake|in|sh)$" OR file MATCHES "(^|/)CMakeLists\\.txt$"
          OR file MATCHES "^(scripts|\\.ci)/[^.]+$"))
    continue()
  endif()
  file(STRINGS "${SOURCE_DIR}/${file}" head LIMIT_COUNT 2)
  if(NOT head MATCHES "SPDX-License-Identifier: MIT")
    list(APPEND missing "${file}")
  endif()
endforeach()
if(missing)
  list(JOIN missing "\n  " text)
  message(FATAL_ERROR "missing the line `SPDX-License-Identifier: MIT` (a comment on line 1, or line 2 after #!):\n  ${text}")
endif()
list(LENGTH candidates count)
message(STATUS "license headers: ok")
