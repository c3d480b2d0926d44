# SPDX-License-Identifier: MIT
# Install and export rules: the zeroforge:: targets, the plugin SDK headers, and a package
# config (with version file) that provides zeroforge_add_plugin() to out-of-tree plugins.
include(CMakePackageConfigHelpers)

# The executable looks for its plugins in <exe>/../lib/zeroforge/plugins (cli/data_paths.cpp).
set(ZEROFORGE_INSTALL_PLUGIN_DIR lib/zeroforge/plugins)
# ... and for its templates and presets in <exe>/../share/zeroforge.
set(ZEROFORGE_INSTALL_DATA_DIR share/zeroforge)
set(ZEROFORGE_INSTALL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/zeroforge)

install(TARGETS zeroforge_plugin_sdk EXPORT zeroforgeTargets COMPONENT development)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/plugins/sdk/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT development)
install(DIRECTORY DESTINATION ${ZEROFORGE_INSTALL_PLUGIN_DIR} COMPONENT runtime)
install(EXPORT zeroforgeTargets NAMESPACE zeroforge:: DESTINATION ${ZEROFORGE_INSTALL_CMAKE_DIR}
        COMPONENT development)

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/zeroforge-config.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/zeroforge-config.cmake
  INSTALL_DESTINATION ${ZEROFORGE_INSTALL_CMAKE_DIR}
  PATH_VARS ZEROFORGE_INSTALL_PLUGIN_DIR ZEROFORGE_INSTALL_DATA_DIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/zeroforge-config-version.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/zeroforge-config.cmake
              ${PROJECT_BINARY_DIR}/cmake/zeroforge-config-version.cmake
              ${CMAKE_CURRENT_LIST_DIR}/ZeroforgeAddPlugin.cmake
              ${CMAKE_CURRENT_LIST_DIR}/ZeroforgeGenerate.cmake
        DESTINATION ${ZEROFORGE_INSTALL_CMAKE_DIR} COMPONENT development)

# The build tree is a package for plugins: find_package(zeroforge) with CMAKE_PREFIX_PATH (or
# zeroforge_DIR) set to the build directory gives zeroforge::plugin_sdk and
# zeroforge_add_plugin(). zeroforge::engine needs an install (its build-tree link flags carry
# our warnings and sanitizers, which must not leak into a consumer).
export(TARGETS zeroforge_plugin_sdk NAMESPACE zeroforge:: FILE ${PROJECT_BINARY_DIR}/zeroforgeTargets.cmake)
configure_file(${CMAKE_CURRENT_LIST_DIR}/ZeroforgeAddPlugin.cmake
               ${PROJECT_BINARY_DIR}/ZeroforgeAddPlugin.cmake COPYONLY)
configure_file(${CMAKE_CURRENT_LIST_DIR}/ZeroforgeGenerate.cmake
               ${PROJECT_BINARY_DIR}/ZeroforgeGenerate.cmake COPYONLY)
configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/zeroforge-config.cmake.in
  ${PROJECT_BINARY_DIR}/zeroforge-config.cmake
  INSTALL_DESTINATION ${PROJECT_BINARY_DIR}
  INSTALL_PREFIX ${PROJECT_BINARY_DIR}
  PATH_VARS ZEROFORGE_INSTALL_PLUGIN_DIR ZEROFORGE_INSTALL_DATA_DIR)
configure_file(${PROJECT_BINARY_DIR}/cmake/zeroforge-config-version.cmake
               ${PROJECT_BINARY_DIR}/zeroforge-config-version.cmake COPYONLY)
