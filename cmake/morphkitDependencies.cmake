# SPDX-License-Identifier: MIT
# The third-party targets each layer links, found the same way by morphkit's own build (src/*/CMakeLists.txt)
# and by the installed package (morphkitConfig.cmake): by package and imported target, never by library path.
# The layers are static archives, so a consumer links their private dependencies too.
include_guard(GLOBAL)

# morphkit_find_layer_dependencies(<layer> <out-var>): finds what <layer> links; <out-var> lists the imported
# targets still missing afterwards (empty when all were found). Never fails by itself: the caller decides.
function(morphkit_find_layer_dependencies layer out)
  set(targets)
  if(layer STREQUAL "core")
    find_package(Threads QUIET)
    set(targets Threads::Threads)
  elseif(layer STREQUAL "io")
    find_package(simdjson QUIET)  # the JSON capture formats, weights files and capture maps
    set(targets simdjson::simdjson)
  elseif(layer STREQUAL "gltf")
    find_package(simdjson QUIET)
    find_package(meshoptimizer QUIET)  # EXT_meshopt_compression (Debian libmeshoptimizer-dev)
    find_package(draco QUIET)          # KHR_draco_mesh_compression (Debian libdraco-dev)
    set(targets simdjson::simdjson meshoptimizer::meshoptimizer draco::draco)
  elseif(layer STREQUAL "optimize")
    find_package(meshoptimizer QUIET)  # the reorder pass (vertex cache and fetch order)
    find_package(ZLIB QUIET)           # gzip sizes: the reorder pass is kept only where the file gzips smaller
    set(targets meshoptimizer::meshoptimizer ZLIB::ZLIB)
  elseif(layer STREQUAL "vk")
    find_package(Vulkan QUIET)
    set(targets Vulkan::Vulkan)
  elseif(layer STREQUAL "material")
    find_package(Threads QUIET)
    find_package(Vulkan QUIET)
    find_package(simdjson QUIET)
    _morphkit_find_shaderc()
    set(targets Threads::Threads Vulkan::Vulkan simdjson::simdjson PkgConfig::morphkit_shaderc)
  elseif(layer STREQUAL "image")
    find_package(Threads QUIET)
    find_package(PkgConfig QUIET)
    if(PKG_CONFIG_FOUND AND NOT TARGET PkgConfig::morphkit_spng)
      pkg_check_modules(morphkit_spng QUIET IMPORTED_TARGET GLOBAL spng)  # Debian libspng-dev ships spng.pc
    endif()
    if(PKG_CONFIG_FOUND AND NOT TARGET PkgConfig::morphkit_jpeg)
      pkg_check_modules(morphkit_jpeg QUIET IMPORTED_TARGET GLOBAL libjpeg)  # Debian libjpeg62-turbo-dev
    endif()
    if(PKG_CONFIG_FOUND AND NOT TARGET PkgConfig::morphkit_webp)
      pkg_check_modules(morphkit_webp QUIET IMPORTED_TARGET GLOBAL libwebp)  # Debian libwebp-dev
    endif()
    set(targets Threads::Threads PkgConfig::morphkit_spng PkgConfig::morphkit_jpeg PkgConfig::morphkit_webp)
  elseif(layer STREQUAL "render")
    find_package(Vulkan QUIET)
    set(targets Vulkan::Vulkan)
  endif()
  set(missing)
  foreach(target ${targets})
    if(NOT TARGET ${target})
      list(APPEND missing ${target})
    endif()
  endforeach()
  set(${out} "${missing}" PARENT_SCOPE)
endfunction()

# shaderc at run time (node materials). Debian's libshaderc_combined.a (from shaderc_combined.pc) still leaves
# glslang and SPIRV-Tools symbols unresolved; their own CMake packages supply them, in an order that resolves:
# the archive first, then glslang::SPIRV (which pulls SPIRV-Tools-opt/-link), glslang::glslang, SPIRV-Tools-opt.
function(_morphkit_find_shaderc)
  if(TARGET PkgConfig::morphkit_shaderc)
    return()
  endif()
  find_package(Threads QUIET)  # glslang::OSDependent names Threads::Threads
  find_package(PkgConfig QUIET)
  find_package(glslang CONFIG QUIET)
  find_package(SPIRV-Tools-opt CONFIG QUIET)
  find_package(SPIRV-Tools-link CONFIG QUIET)
  if(NOT (PKG_CONFIG_FOUND AND TARGET glslang::SPIRV AND TARGET glslang::glslang AND TARGET SPIRV-Tools-opt
          AND TARGET SPIRV-Tools-link))
    return()
  endif()
  pkg_check_modules(morphkit_shaderc QUIET IMPORTED_TARGET GLOBAL shaderc_combined)
  if(TARGET PkgConfig::morphkit_shaderc)
    target_link_libraries(PkgConfig::morphkit_shaderc INTERFACE glslang::SPIRV glslang::glslang SPIRV-Tools-opt)
  endif()
endfunction()
