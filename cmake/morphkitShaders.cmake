# SPDX-License-Identifier: MIT
# The one way GLSL becomes C++: morphkit_add_shader(<name> <source> <C++ array name> [glslc defines...]) compiles
# <source> (a path relative to shaders/, or absolute) with glslc at build time, -I shaders/, into
# ${MORPHKIT_SPIRV_DIR}/${MORPHKIT_SPIRV_SUBDIR}/<name>.h (a uint32_t array, embed_spirv.cmake) and appends the
# header to MORPHKIT_SPIRV_HEADERS in the caller's scope. The caller sets MORPHKIT_SPIRV_DIR and
# MORPHKIT_SPIRV_SUBDIR (the include prefix: morphkit_spirv, morphkit_render_spirv, …) first.
find_program(MORPHKIT_GLSLC glslc REQUIRED)
set(MORPHKIT_SHADER_DIR "${PROJECT_SOURCE_DIR}/shaders")
file(GLOB MORPHKIT_SHADER_DEPENDS CONFIGURE_DEPENDS "${MORPHKIT_SHADER_DIR}/*.h" "${MORPHKIT_SHADER_DIR}/*.glsl"
  "${MORPHKIT_SHADER_DIR}/render/*.h")
function(morphkit_add_shader name source array)
  if(NOT IS_ABSOLUTE "${source}")
    set(source "${MORPHKIT_SHADER_DIR}/${source}")
  endif()
  file(MAKE_DIRECTORY "${MORPHKIT_SPIRV_DIR}/${MORPHKIT_SPIRV_SUBDIR}")
  set(spv "${MORPHKIT_SPIRV_DIR}/${name}.spv")
  set(header "${MORPHKIT_SPIRV_DIR}/${MORPHKIT_SPIRV_SUBDIR}/${name}.h")
  add_custom_command(
    OUTPUT "${header}"
    COMMAND ${MORPHKIT_GLSLC} --target-env=vulkan1.2 -O -Werror -I "${MORPHKIT_SHADER_DIR}" ${ARGN} -o "${spv}" "${source}"
    COMMAND ${CMAKE_COMMAND} -DINPUT=${spv} -DOUTPUT=${header} -DNAME=${array} -P "${PROJECT_SOURCE_DIR}/cmake/embed_spirv.cmake"
    DEPENDS "${source}" ${MORPHKIT_SHADER_DEPENDS} "${PROJECT_SOURCE_DIR}/cmake/embed_spirv.cmake"
    COMMENT "glslc ${name} -> ${name}.h"
    VERBATIM)
  set(MORPHKIT_SPIRV_HEADERS ${MORPHKIT_SPIRV_HEADERS} "${header}" PARENT_SCOPE)
endfunction()
