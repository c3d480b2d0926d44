# SPDX-License-Identifier: MIT
# The package test: installs the zeroforge build at BUILD_DIR to a temporary prefix, then
# configures, builds and runs tests/package and the bundled example plugin out of tree
# (against the install, then against the build tree). About 30 s; ctest runs it as
# package.find_package.
#   cmake -DBUILD_DIR=build -DSOURCE_DIR=. -P tests/package/run_package_test.cmake
foreach(var BUILD_DIR SOURCE_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_package_test.cmake: -D${var}=... is required")
  endif()
endforeach()
set(work ${BUILD_DIR}/package-test)
# A sanitizer build installs an instrumented libzeroforge.a: consumers need the same flags
# (SANITIZER_FLAGS, e.g. -fsanitize=address,undefined or -fsanitize=thread).
set(flags)
if(SANITIZER_FLAGS)
  set(san "${SANITIZER_FLAGS}")
  set(flags -DCMAKE_C_FLAGS=${san} -DCMAKE_CXX_FLAGS=${san} -DCMAKE_EXE_LINKER_FLAGS=${san}
            -DCMAKE_MODULE_LINKER_FLAGS=${san})
endif()
file(REMOVE_RECURSE ${work})

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${work}/prefix)
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/package -B ${work}/consumer -G Ninja
    -DCMAKE_PREFIX_PATH=${work}/prefix -DCMAKE_BUILD_TYPE=Release ${flags})
run(${CMAKE_COMMAND} --build ${work}/consumer)
run(${work}/consumer/consumer)
message(STATUS "consumer: ${last_output}")

# docs/plugins.md's tutorial: the example plugin, unchanged, out of tree.
file(COPY ${SOURCE_DIR}/plugins/example DESTINATION ${work})
run(${CMAKE_COMMAND} -S ${work}/example -B ${work}/example/build -G Ninja
    -DCMAKE_PREFIX_PATH=${work}/prefix -DCMAKE_BUILD_TYPE=Release ${flags})
run(${CMAKE_COMMAND} --build ${work}/example/build)
run(${work}/prefix/bin/zeroforge list plugins --plugin-dir ${work}/example/build --format json)
if(NOT last_output MATCHES "\"name\": \"example\"")
  message(FATAL_ERROR "list plugins did not show the out-of-tree example plugin:\n${last_output}")
endif()

# The same against the build tree (no install): plugin_sdk and zeroforge_add_plugin only.
run(${CMAKE_COMMAND} -S ${work}/example -B ${work}/example/build-tree -G Ninja
    -DCMAKE_PREFIX_PATH=${BUILD_DIR} -DCMAKE_BUILD_TYPE=Release ${flags})
run(${CMAKE_COMMAND} --build ${work}/example/build-tree)
file(REMOVE_RECURSE ${work})
