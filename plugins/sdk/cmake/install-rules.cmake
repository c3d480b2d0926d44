# SPDX-License-Identifier: MIT
# Install and export rules: the zeroforge:: targets, the plugin SDK headers, and a package
# config (with version file) that provides zeroforge_add_plugin() to out-of-tree plugins.
include(CMakePackageConfigHelpers)

# The executable looks for its plugins in <exe>/../lib/zeroforge/plugins (cli/data_paths.cpp).
set(ZEROFORGE_INSTALL_PLUGIN_DIR lib/zeroforge/plugins)
set(ZEROFORGE_INSTALL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/zeroforge)

install(TARGETS zeroforge_plugin_sdk EXPORT zeroforgeTargets)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/plugins/sdk/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY DESTINATION ${ZEROFORGE_INSTALL_PLUGIN_DIR})
install(EXPORT zeroforgeTargets NAMESPACE zeroforge:: DESTINATION ${ZEROFORGE_INSTALL_CMAKE_DIR})

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/zeroforge-config.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/zeroforge-config.cmake
  INSTALL_DESTINATION ${ZEROFORGE_INSTALL_CMAKE_DIR}
  PATH_VARS ZEROFORGE_INSTALL_PLUGIN_DIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/zeroforge-config-version.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/zeroforge-config.cmake
              ${PROJECT_BINARY_DIR}/cmake/zeroforge-config-version.cmake
              ${CMAKE_CURRENT_LIST_DIR}/ZeroforgeAddPlugin.cmake
        DESTINATION ${ZEROFORGE_INSTALL_CMAKE_DIR})
