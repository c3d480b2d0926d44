# SPDX-License-Identifier: MIT
# The engine's modules (engine/src/README.md), one static library each, and the link check that
# makes a call up the layer table fail the build. Included from engine/CMakeLists.txt.

# Compile settings every module shares: the engine's private include path, its version, the
# project's warnings and sanitizers.
add_library(zeroforge_module_flags INTERFACE)
target_include_directories(zeroforge_module_flags INTERFACE ${CMAKE_CURRENT_SOURCE_DIR}/include
                           ${CMAKE_CURRENT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/plugins/sdk/include)
target_compile_definitions(zeroforge_module_flags INTERFACE ZEROFORGE_VERSION="${PROJECT_VERSION}")
target_link_libraries(zeroforge_module_flags INTERFACE nlohmann_json::nlohmann_json zeroforge_build_flags)

# With ZEROFORGE_UNITY (top-level CMakeLists.txt) a module's sources compile in groups: up to
# six files of one module per translation unit, in name order. Files of a group parse
# nlohmann/json and the standard library once and generate their shared template code once:
# six files of generate/ took 26.0 CPU-seconds apart and 12.6 as one unit at -O2 -g.
function(zeroforge_group_sources prefix)
  set(index 0)
  foreach(source ${ARGN})
    math(EXPR group "${index} / 6")
    set_source_files_properties(${source} PROPERTIES UNITY_GROUP ${prefix}_${group})
    math(EXPR index "${index} + 1")
  endforeach()
endfunction()

# The renderer is one class defined across files that each own a part of the language
# (template/render_state.hpp). They compile as one translation unit, so that GCC inlines across
# them as it did when they were one file: built apart, a render ran 2.4% more instructions
# (callgrind, bench/render_bench.cpp), as one unit 1.3%, well inside the timing noise.
file(GLOB ZEROFORGE_RENDER_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/template/render_*.cpp)
set_source_files_properties(${ZEROFORGE_RENDER_SOURCES} PROPERTIES UNITY_GROUP renderer)

# zeroforge_module(NAME [USES MODULE...]): the static library zeroforge_NAME of the files of
# engine/src/NAME (for `core`, those directly in engine/src), linked to the modules it USES:
# exactly those whose headers it includes, each of an earlier row. Modules are declared
# bottom-up, so each one it uses exists already.
set(ZEROFORGE_MODULES "")
function(zeroforge_module name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "USES")
  if(name STREQUAL "core")
    file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/*.cpp)
  else()
    file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/${name}/*.cpp)
  endif()
  add_library(zeroforge_${name} STATIC ${sources})
  target_link_libraries(zeroforge_${name} PRIVATE zeroforge_module_flags)
  foreach(used ${arg_USES})
    if(NOT used IN_LIST ZEROFORGE_MODULES)
      message(FATAL_ERROR "engine module ${name} uses ${used}, which is not declared before it")
    endif()
    target_link_libraries(zeroforge_${name} PUBLIC zeroforge_${used})
  endforeach()
  # UNITY_BUILD_MODE GROUP: a file without a UNITY_GROUP (all but the renderer's, without
  # ZEROFORGE_UNITY) compiles on its own.
  set_target_properties(zeroforge_${name} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP
                        ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/modules)
  if(ZEROFORGE_UNITY)
    list(REMOVE_ITEM sources ${ZEROFORGE_RENDER_SOURCES})
    zeroforge_group_sources(${name} ${sources})
  endif()
  # Precompiled headers (ZEROFORGE_LIBRARY_PCH in the top-level CMakeLists.txt): parsed once
  # for the whole engine, as when it was one target; every module compiles with the same flags.
  if(ZEROFORGE_LIBRARY_PCH)
    if(name STREQUAL "core")
      target_precompile_headers(zeroforge_core PRIVATE <nlohmann/json.hpp> <filesystem> <string>
                                <string_view> <vector>)
    else()
      target_precompile_headers(zeroforge_${name} REUSE_FROM zeroforge_core)
    endif()
  endif()
  list(APPEND ZEROFORGE_MODULES ${name})
  set(ZEROFORGE_MODULES ${ZEROFORGE_MODULES} PARENT_SCOPE)
  set(ZEROFORGE_MODULE_USES_${name} ${arg_USES} PARENT_SCOPE)
endfunction()

# The modules bottom-up, in the order of the table of engine/src/README.md, each with the
# modules it includes. tests/engine/check_layering.py (ctest engine.layering) fails when this
# list and the table or the includes differ, so none of the three can drift.
zeroforge_module(core)
zeroforge_module(launch USES core)
zeroforge_module(io USES core)
zeroforge_module(values USES core io)
zeroforge_module(template USES core io)
zeroforge_module(deepspeed USES core io values)
zeroforge_module(validate USES core launch io deepspeed)
zeroforge_module(family USES core io values template deepspeed)
zeroforge_module(plugins USES core launch io values template family)
zeroforge_module(prepare USES core values deepspeed validate family plugins)
zeroforge_module(generate USES core launch io values template deepspeed validate family plugins prepare)
zeroforge_module(pipeline USES core io values template validate plugins prepare generate)
zeroforge_module(import USES core io values template deepspeed validate family prepare generate)
zeroforge_module(migrate USES core io deepspeed validate family generate)
zeroforge_module(report USES core io deepspeed validate family generate)
target_link_libraries(zeroforge_plugins PRIVATE ${CMAKE_DL_LIBS})

# The link check: a static library leaves undefined symbols for whoever links it, so a module
# that calls a function of a module above it (declared by hand, with no include to catch) links
# until the whole engine comes together. Here each module's objects are linked into a shared
# object with --no-undefined against only the modules it uses (and theirs, the archives'
# members it needs) and the C++ runtime: a symbol from anywhere else fails the build, naming
# the module. Off by default where its links cost more than they tell: Release builds only
# the product, and clang links no sanitizer runtime into a shared object (the fuzz build).
if(CMAKE_BUILD_TYPE STREQUAL "Release" OR ZEROFORGE_FUZZ)
  set(zeroforge_layer_check_default OFF)
else()
  set(zeroforge_layer_check_default ON)
endif()
option(ZEROFORGE_LAYER_CHECK "Link each engine module alone with --no-undefined (engine/cmake/layers.cmake)"
       ${zeroforge_layer_check_default})
if(ZEROFORGE_LAYER_CHECK)
  foreach(module ${ZEROFORGE_MODULES})
    add_library(zeroforge_layer_check_${module} SHARED $<TARGET_OBJECTS:zeroforge_${module}>)
    list(TRANSFORM ZEROFORGE_MODULE_USES_${module} PREPEND zeroforge_ OUTPUT_VARIABLE used)
    target_link_libraries(zeroforge_layer_check_${module} PRIVATE ${used} ${CMAKE_DL_LIBS}
                          zeroforge_build_flags)
    # --strip-debug: nothing runs the result, so the linker writes no debug information.
    target_link_options(zeroforge_layer_check_${module} PRIVATE -Wl,--no-undefined -Wl,--strip-debug)
    set_target_properties(zeroforge_layer_check_${module} PROPERTIES LINKER_LANGUAGE CXX
                          LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/layer_check)
  endforeach()
endif()
