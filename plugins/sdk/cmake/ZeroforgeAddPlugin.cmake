# SPDX-License-Identifier: MIT
# zeroforge_add_plugin(): builds a zeroforge plugin (a MODULE library with one exported entry
# symbol) against zeroforge::plugin_sdk, in the zeroforge tree or out of tree after find_package.
include_guard(GLOBAL)

#[=======================================================================[.rst:
zeroforge_add_plugin(<name> SOURCES <src>... [OUTPUT_DIRECTORY <dir>]
                     [INSTALL_DESTINATION <dir>] [LINK_LIBRARIES <lib>...])

Creates the MODULE library target ``<name>`` built to ``<name>.so`` (no ``lib`` prefix), so
``zeroforge --plugin <name>`` finds it on the plugin search path. Symbols are hidden: only
the entry function marked ``ZF_PLUGIN_EXPORT`` is exported. C sources compile as C99, C++
sources as C++17 or later; nlohmann_json is linked when available (zeroforge/plugin.hpp needs it).

``OUTPUT_DIRECTORY`` sets where the library is built; ``INSTALL_DESTINATION`` adds an
install rule. Inside the zeroforge tree (where ``ZEROFORGE_PLUGIN_OUTPUT_DIR`` is set) a
plugin given neither is a bundled one: it is built into the build tree's plugin dir and
installed to ``lib/zeroforge/plugins``, where the ``zeroforge`` executable looks (install
component ``runtime``, which the Python wheel ships).
#]=======================================================================]
function(zeroforge_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 ZF_PLUGIN "" "OUTPUT_DIRECTORY;INSTALL_DESTINATION"
                        "SOURCES;LINK_LIBRARIES")
  if(NOT ZF_PLUGIN_SOURCES)
    message(FATAL_ERROR "zeroforge_add_plugin(${name}): SOURCES is required")
  endif()
  if(ZF_PLUGIN_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "zeroforge_add_plugin(${name}): unknown arguments ${ZF_PLUGIN_UNPARSED_ARGUMENTS}")
  endif()
  add_library(${name} MODULE ${ZF_PLUGIN_SOURCES})
  target_link_libraries(${name} PRIVATE zeroforge::plugin_sdk ${ZF_PLUGIN_LINK_LIBRARIES})
  if(TARGET nlohmann_json::nlohmann_json)
    target_link_libraries(${name} PRIVATE nlohmann_json::nlohmann_json)
  endif()
  # Inside the zeroforge tree, plugins get the project's warnings and sanitizers.
  if(TARGET zeroforge_build_flags)
    target_link_libraries(${name} PRIVATE zeroforge_build_flags)
  endif()
  target_compile_features(${name} PRIVATE c_std_99)
  get_target_property(sources ${name} SOURCES)
  foreach(source IN LISTS sources)
    if(source MATCHES "\\.(cpp|cc|cxx)$")
      target_compile_features(${name} PRIVATE cxx_std_17)
      break()
    endif()
  endforeach()
  set_target_properties(${name} PROPERTIES
    PREFIX ""
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  set(component)
  if(DEFINED ZEROFORGE_PLUGIN_OUTPUT_DIR AND NOT ZF_PLUGIN_OUTPUT_DIRECTORY
     AND NOT ZF_PLUGIN_INSTALL_DESTINATION)
    set(ZF_PLUGIN_OUTPUT_DIRECTORY ${ZEROFORGE_PLUGIN_OUTPUT_DIR})
    set(ZF_PLUGIN_INSTALL_DESTINATION lib/zeroforge/plugins)
    set(component COMPONENT runtime)
  endif()
  if(ZF_PLUGIN_OUTPUT_DIRECTORY)
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ZF_PLUGIN_OUTPUT_DIRECTORY})
  endif()
  if(ZF_PLUGIN_INSTALL_DESTINATION)
    install(TARGETS ${name} LIBRARY DESTINATION ${ZF_PLUGIN_INSTALL_DESTINATION} ${component})
  endif()
endfunction()
