# SPDX-License-Identifier: MIT
# The package test's driver (tests/CMakeLists.txt adds one ctest per STEP):
#   install   cmake --install of this build tree into PREFIX; checks the installed files
#   consumer  configures, builds and runs tests/package/consumer (MODE full | cxx17) against PREFIX
#   cpu_only  configures this source tree with MORPHKIT_LAYERS=core;gltf;cli (the CLI brings io and demo) and
#             find_package(Vulkan) disabled, builds it in Release with -Werror (CI's check that the optimizer's
#             warnings, e.g. GCC 12's -Wrestrict, stay out of the libraries; the CLI at -O0,
#             MORPHKIT_UNOPTIMIZED_GLUE) with the CLI's smoke tests, runs them,
#             checks that its CLI refuses --device gpu, installs it into WORK/prefix, then builds the consumer
#             (MODE cpu) against it through CMake and through pkg-config
# Inputs (-D): STEP, SOURCE_DIR, BUILD_DIR, WORK, PREFIX, MODE, VERSION, GENERATOR, CXX, LAUNCHER, SANITIZE_FLAGS,
# MATERIAL. Everything runs in WORK, which is emptied first.
cmake_minimum_required(VERSION 3.25)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    list(JOIN ARGN " " command)
    message(FATAL_ERROR "failed (${code}): ${command}\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

function(expect_file path)
  if(NOT EXISTS "${path}")
    message(FATAL_ERROR "not installed: ${path}")
  endif()
endfunction()

# consumer(<mode> <prefix> <work> [extra cmake args...]): configure + build + run the consumer program.
function(consumer mode prefix work)
  set(flags)
  if(SANITIZE_FLAGS AND NOT mode STREQUAL "cpu")
    # The full install is this (sanitized) build's archives: its consumers link the sanitizer runtime too.
    set(flags "-DCMAKE_CXX_FLAGS=${SANITIZE_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${SANITIZE_FLAGS}")
  endif()
  run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/package/consumer" -B "${work}" -G "${GENERATOR}"
      "-DCMAKE_CXX_COMPILER=${CXX}" "-DCMAKE_PREFIX_PATH=${prefix}" "-DMODE=${mode}" "-DMORPHKIT_EXPECTED_VERSION=${VERSION}"
      ${flags} ${ARGN})
  run(${CMAKE_COMMAND} --build "${work}")
  run("${work}/consumer" "${MATERIAL}")
  message(STATUS "${mode}: ${run_output}")
endfunction()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

if(STEP STREQUAL "install")
  file(REMOVE_RECURSE "${PREFIX}")
  run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${PREFIX}")
  file(GLOB_RECURSE config LIST_DIRECTORIES false "${PREFIX}/*/morphkitConfig.cmake")
  if(NOT config)
    message(FATAL_ERROR "no morphkitConfig.cmake under ${PREFIX}")
  endif()
  get_filename_component(cmake_dir "${config}" DIRECTORY)
  foreach(file morphkitConfigVersion.cmake morphkitDependencies.cmake morphkit-core-targets.cmake
          morphkit-gltf-targets.cmake morphkit-vk-targets.cmake morphkit-material-targets.cmake morphkit-render-targets.cmake)
    expect_file("${cmake_dir}/${file}")
  endforeach()
  expect_file("${cmake_dir}/../../pkgconfig/morphkit.pc")
  expect_file("${PREFIX}/include/morphkit/version.h")
  expect_file("${PREFIX}/include/morphkit/vk/gpu.h")
  expect_file("${PREFIX}/include/morphkit/vk/gpu_interop.h")
  expect_file("${PREFIX}/bin/morphkit")
  file(GLOB exported "${cmake_dir}/*.cmake")
  foreach(file ${exported})
    file(READ "${file}" text)
    if(text MATCHES "morphkit_warnings|morphkit_sanitizers|/usr/lib/x86_64-linux-gnu/lib")
      message(FATAL_ERROR "${file} exports a build-tree target or a library path: ${CMAKE_MATCH_0}")
    endif()
  endforeach()
  run("${PREFIX}/bin/morphkit" --version)
  if(NOT run_output STREQUAL "morphkit ${VERSION}\n")
    message(FATAL_ERROR "installed morphkit --version printed '${run_output}', expected 'morphkit ${VERSION}'")
  endif()
elseif(STEP STREQUAL "consumer")
  consumer(${MODE} "${PREFIX}" "${WORK}/consumer")
elseif(STEP STREQUAL "cpu_only")
  set(prefix "${WORK}/prefix")
  set(launcher)
  if(LAUNCHER)
    set(launcher "-DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER}")
  endif()
  # No build type: no optimization, no sanitizer, so this stays quick. CMAKE_DISABLE_FIND_PACKAGE_Vulkan makes any
  # find_package(Vulkan) fail, as on a machine without Vulkan.
  # The layer list goes through an initial-cache file: a ";" would split a -D argument on its way through run().
  file(WRITE "${WORK}/layers.cmake" "set(MORPHKIT_LAYERS \"core;gltf;cli\" CACHE STRING \"\")\n")
  run(${CMAKE_COMMAND} --no-warn-unused-cli -S "${SOURCE_DIR}" -B "${WORK}/build" -G "${GENERATOR}" "-DCMAKE_CXX_COMPILER=${CXX}" ${launcher}
      -C "${WORK}/layers.cmake" -DCMAKE_DISABLE_FIND_PACKAGE_Vulkan=ON "-DCMAKE_INSTALL_PREFIX=${prefix}"
      -DCMAKE_BUILD_TYPE=Release -DMORPHKIT_WERROR=ON -DMORPHKIT_BUILD_TESTS=ON -DMORPHKIT_UNOPTIMIZED_GLUE=ON
      -DCMAKE_UNITY_BUILD=ON)
  # Every library and the CLI, and of the CPU tests (tests/CMakeLists.txt, MORPHKIT_CPU_TESTS) the ones that drive
  # the CLI's surface: the sanitized tree runs them all already, and building the other 30 in Release here was
  # most of this step's 440 s in CI.
  set(smoke_tests bad_input_test doc_examples_test make_demo_command_test)
  run(${CMAKE_COMMAND} --build "${WORK}/build" --parallel 2 --target morphkit morphkit_core morphkit_io morphkit_gltf
      morphkit_optimize morphkit_demo morphkit_check ${smoke_tests})
  get_filename_component(cmake_bin "${CMAKE_COMMAND}" DIRECTORY)
  # The tests of the targets not built are placeholders named <target>_NOT_BUILT.
  run("${cmake_bin}/ctest" --test-dir "${WORK}/build" --output-on-failure -j2 --timeout 600 -E "_NOT_BUILT$")
  # A CPU-only CLI refuses the GPU with one line and exit 1, before writing anything.
  run("${WORK}/build/src/cli/morphkit" make-demo "${WORK}/demo.glb" --vertices 500 --targets 4)
  execute_process(COMMAND "${WORK}/build/src/cli/morphkit" pose "${WORK}/demo.glb" --device gpu --out "${WORK}/gpu.obj"
                  RESULT_VARIABLE code ERROR_VARIABLE err)
  if(NOT code EQUAL 1 OR NOT err MATCHES "^morphkit: error: [^\n]*built without the Vulkan layer\n$"
     OR EXISTS "${WORK}/gpu.obj")
    message(FATAL_ERROR "the CPU-only morphkit pose --device gpu: exit ${code}, '${err}'")
  endif()
  run(${CMAKE_COMMAND} --install "${WORK}/build")
  file(GLOB_RECURSE config LIST_DIRECTORIES false "${prefix}/*/morphkitConfig.cmake")
  get_filename_component(cmake_dir "${config}" DIRECTORY)
  foreach(absent "${cmake_dir}/morphkit-vk-targets.cmake" "${cmake_dir}/morphkit-render-targets.cmake"
          "${prefix}/include/morphkit/vk/gpu.h" "${prefix}/include/morphkit/render/render.h" "${prefix}/include/morphkit/material/node_material.h")
    if(EXISTS "${absent}")
      message(FATAL_ERROR "a core + gltf install carries ${absent}")
    endif()
  endforeach()
  file(READ "${config}" text)
  if(NOT text MATCHES "set\\(_morphkit_installed core;io;gltf;image;optimize;demo;check\\)")
    message(FATAL_ERROR "${config} does not list exactly core;io;gltf;image;optimize;demo;check as installed")
  endif()
  consumer(cpu "${prefix}" "${WORK}/consumer" -DCMAKE_DISABLE_FIND_PACKAGE_Vulkan=ON -DMORPHKIT_CPU_ONLY_INSTALL=ON)

  # pkg-config: the same program, compiled and linked from morphkit.pc alone.
  find_program(PKG_CONFIG pkg-config REQUIRED)
  file(GLOB_RECURSE pc LIST_DIRECTORIES false "${prefix}/*/morphkit.pc")
  get_filename_component(pc_dir "${pc}" DIRECTORY)
  set(ENV{PKG_CONFIG_PATH} "${pc_dir}")
  run(${PKG_CONFIG} --modversion morphkit)
  string(STRIP "${run_output}" pc_version)
  if(NOT pc_version STREQUAL VERSION)
    message(FATAL_ERROR "pkg-config --modversion morphkit: '${pc_version}', expected '${VERSION}'")
  endif()
  run(${PKG_CONFIG} --static --cflags --libs morphkit)
  string(STRIP "${run_output}" pc_flags)
  separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
  run(${CXX} -std=c++20 "-I${SOURCE_DIR}/tests/package/consumer/poison" "-DEXPECTED_VERSION=\"${VERSION}\""
      "${SOURCE_DIR}/tests/package/consumer/cpu.cpp" -o "${WORK}/pkgconfig_consumer" ${pc_flags})
  run("${WORK}/pkgconfig_consumer")
  message(STATUS "pkg-config: ${run_output}")
else()
  message(FATAL_ERROR "STEP must be install, consumer or cpu_only")
endif()
