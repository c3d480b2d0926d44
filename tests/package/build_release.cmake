# SPDX-License-Identifier: MIT
# The ctest fixture `package.release_build`: configures and builds the release preset
# (build-release: Release, prefix /usr, no tests or benchmarks; what check.sh builds anyway), the
# build the Debian package and the Python wheel are made from (package.deb, package.python).
# Up to date it takes seconds; the compiler launcher (ccache) of the environment is honoured.
#   cmake -DSOURCE_DIR=. -P tests/package/build_release.cmake
if(NOT DEFINED SOURCE_DIR)
  message(FATAL_ERROR "build_release.cmake: -DSOURCE_DIR=... is required")
endif()
foreach(step "--preset;release" "--build;--preset;release")
  execute_process(COMMAND ${CMAKE_COMMAND} ${step} WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cmake ${step} failed (${rc})")
  endif()
endforeach()
