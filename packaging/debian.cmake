# SPDX-License-Identifier: MIT
# The Debian package (docs/install.md): in a build configured with
#   cmake -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
#         -DZEROFORGE_BUILD_TESTS=OFF -DZEROFORGE_BUILD_BENCH=OFF
# and built, `cpack -G DEB` writes zeroforge_VERSION_amd64.deb: /usr/bin/zeroforge, the data in
# /usr/share/zeroforge, the plugins in /usr/lib/zeroforge/plugins, the library, headers and CMake
# package, and the Python module in /usr/lib/python3/dist-packages. tests/package/check_deb.py
# unpacks and runs it (and runs lintian, whose errors this file answers).

# A native package's copyright and changelog (Debian policy 12.5 and 12.7).
set(zeroforge_doc_dir ${CMAKE_INSTALL_DATAROOTDIR}/doc/zeroforge)
configure_file(${CMAKE_CURRENT_LIST_DIR}/changelog.in ${PROJECT_BINARY_DIR}/packaging/changelog @ONLY)
find_program(ZEROFORGE_GZIP gzip)
if(ZEROFORGE_GZIP)
  # -n: no file name or time stamp in the header, so the package is the same on every build.
  add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/packaging/changelog.gz
                     COMMAND ${ZEROFORGE_GZIP} -9nc ${PROJECT_BINARY_DIR}/packaging/changelog
                             > ${PROJECT_BINARY_DIR}/packaging/changelog.gz
                     DEPENDS ${PROJECT_BINARY_DIR}/packaging/changelog)
  add_custom_target(zeroforge_changelog ALL DEPENDS ${PROJECT_BINARY_DIR}/packaging/changelog.gz)
  install(FILES ${PROJECT_BINARY_DIR}/packaging/changelog.gz DESTINATION ${zeroforge_doc_dir}
          COMPONENT docs)
endif()
install(FILES ${CMAKE_CURRENT_LIST_DIR}/copyright DESTINATION ${zeroforge_doc_dir} COMPONENT docs)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME zeroforge)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "The zeroforge authors")
set(CPACK_PACKAGE_CONTACT "The zeroforge authors <zeroforge@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "DeepSpeed config template and preset engine")
# The extended description (CPack indents it; lines under 80 columns, as lintian wants).
set(CPACK_PACKAGE_DESCRIPTION
    "zeroforge renders DeepSpeed configuration files from Jinja-style templates,\n\
hardware tiers, presets and plugins, generates whole families of configs with\n\
their launcher companions, validates configs against a DeepSpeed release and\n\
estimates ZeRO memory. This package holds the zeroforge command, its templates,\n\
presets and plugins, the Python module, and the C++ library with its CMake\n\
package and plugin SDK.")
# zeroforge_0.1.0_amd64.deb: Debian's name for it.
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The libraries the executable, the plugins and the module link (libc, libstdc++, libgcc)
# found by dpkg-shlibdeps (dpkg-dev); the interpreter the module was built for; the headers
# the CMake package's find_dependency(nlohmann_json) wants, for consumers of the library.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(ZEROFORGE_PYTHON_MODULE)
  math(EXPR zeroforge_python_next "${ZEROFORGE_PYTHON_VERSION_MINOR} + 1")
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "python3 (>= ${ZEROFORGE_PYTHON_VERSION}~), python3 (<< ${ZEROFORGE_PYTHON_VERSION_MAJOR}.${zeroforge_python_next})")
endif()
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "nlohmann-json3-dev (>= 3.10)")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# One package of what cmake --install installs (every component but python_wheel).
include(CPack)
