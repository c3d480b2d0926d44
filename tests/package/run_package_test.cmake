# SPDX-License-Identifier: MIT
# The package test: installs the zeroforge build at BUILD_DIR to a temporary prefix, then
# configures, builds and runs tests/package and the bundled example plugin out of tree
# (against the install, then against the build tree), and build-time generation with
# zeroforge_generate() under Ninja and Make. About 45 s; ctest runs it as
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

# Build-time generation (docs/pipelines.md): zeroforge_generate() regenerates exactly when a
# file the run read changes, under Ninja and under Make, and the library API generates too.
function(mtime file out)  # seconds since the epoch, or "absent"
  if(EXISTS ${file})
    file(TIMESTAMP ${file} stamp "%s")
  else()
    set(stamp absent)
  endif()
  set(${out} ${stamp} PARENT_SCOPE)
endfunction()
function(fail what)
  message(FATAL_ERROR "zeroforge_generate (${generator}): ${what}")
endfunction()
foreach(generator Ninja "Unix Makefiles")
  string(MAKE_C_IDENTIFIER "${generator}" tag)
  set(src ${work}/generate-${tag})
  set(bin ${src}/build)
  file(COPY ${SOURCE_DIR}/tests/package/generate/ DESTINATION ${src})
  run(${CMAKE_COMMAND} -S ${src} -B ${bin} -G ${generator} -DCMAKE_PREFIX_PATH=${work}/prefix
      -DCMAKE_BUILD_TYPE=Release ${flags})
  run(${CMAKE_COMMAND} --build ${bin})
  set(manifest ${bin}/configs/manifest.json)
  set(config ${bin}/configs/medium/zero3-bf16.json)
  mtime(${manifest} first)
  mtime(${config} config_first)
  if(first STREQUAL absent)
    fail("the first build did not generate")
  endif()
  foreach(made configs/medium/zero3-bf16.deepspeed.sh configs/medium/zero3-bf16.accelerate.yaml
               team-report.html)
    if(NOT EXISTS ${bin}/${made})
      fail("COMPANIONS or REPORT did not make ${made}")
    endif()
  endforeach()
  file(READ ${bin}/team_configs.zeroforge.d depfile)
  string(FIND "${depfile}" "team-templates/deepspeed/partials/monitoring.j2" at)
  if(at EQUAL -1)
    fail("the depfile does not list the team's partial:\n${depfile}")
  endif()
  # File times have one-second steps here: let a second pass before each build.
  run(${CMAKE_COMMAND} -E sleep 1.1)
  run(${CMAKE_COMMAND} --build ${bin})
  mtime(${manifest} second)
  if(NOT second STREQUAL first)
    fail("a second build regenerated, with nothing changed")
  endif()
  run(${CMAKE_COMMAND} -E sleep 1.1)
  file(TOUCH ${src}/team-templates/deepspeed/partials/monitoring.j2)
  run(${CMAKE_COMMAND} --build ${bin})
  mtime(${manifest} touched)
  mtime(${config} config_touched)
  if(NOT touched GREATER second)
    fail("touching an included partial did not regenerate")
  endif()
  if(NOT config_touched STREQUAL config_first)
    fail("a config whose text did not change got a new modification time")
  endif()
  run(${CMAKE_COMMAND} -E sleep 1.1)
  file(WRITE ${src}/values.json "{\"global_batch_size\": 1024}\n")
  run(${CMAKE_COMMAND} --build ${bin})
  mtime(${manifest} edited)
  file(READ ${config} text)
  string(FIND "${text}" "\"train_batch_size\": 1024," at)
  if(NOT edited GREATER touched OR at EQUAL -1)
    fail("editing the values file did not regenerate (manifest ${touched} -> ${edited}):\n${text}")
  endif()
endforeach()
run(${work}/generate-Ninja/build/generate_api ${work}/generate-api-out)
message(STATUS "generate_api: ${last_output}")

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
