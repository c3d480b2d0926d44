# SPDX-License-Identifier: MIT
# zeroforge_generate(): generate a family of configs at build time, regenerated exactly when a
# file the generation read changes (the depfile `zeroforge generate --depfile` writes).
include_guard(GLOBAL)

#[=======================================================================[.rst:
zeroforge_generate(<name> FAMILY <file|name> OUTPUT_DIR <dir>
                   [VALUES <file>...] [SET <key=value>...] [TEMPLATE_DIRS <dir>...]
                   [PLUGINS <name|path>...] [PLUGIN_DIRS <dir>...] [PLUGIN_OPTIONS <opt>...]
                   [COMPANIONS <kind>...] [REPORT <file>] [EXCLUDE_FROM_ALL] [NO_VALIDATE])

Adds a custom command that runs ``zeroforge generate`` with ``OUTPUT <dir>/manifest.json`` and
a target ``<name>`` that depends on it (built by default unless ``EXCLUDE_FROM_ALL``).

``FAMILY`` is a family file (a path containing ``/`` or ending in ``.json``, relative to
``CMAKE_CURRENT_SOURCE_DIR``) or the name of a shipped family. ``OUTPUT_DIR`` is relative to
``CMAKE_CURRENT_BINARY_DIR``. ``VALUES``, ``TEMPLATE_DIRS``, ``PLUGIN_DIRS`` and plugin paths
are relative to ``CMAKE_CURRENT_SOURCE_DIR``. ``SET`` and ``PLUGIN_OPTIONS`` are passed as
``--set`` and ``--plugin-opt``. ``COMPANIONS`` (``deepspeed``, ``torchrun``, ``accelerate``,
``hf-args``, ``hostfile``, ``deepspeed-env``, ``slurm``, ``kubernetes``, or ``none``) is passed as ``--companions``,
replacing the family's list. ``REPORT`` (relative to ``CMAKE_CURRENT_BINARY_DIR``) is passed as
``--report`` and is an output of the command too.

The command writes a depfile listing every file the run read: the family, its tiers, the
templates and everything they include, import or extend, ``defaults.json`` files, values
files, plugin libraries and the files plugins read (model presets, site profiles); and the
files it wrote, so that a config edited or deleted by hand is regenerated. Ninja and
the Makefile generators rerun it when one of those changes, and not otherwise. Configs whose
text did not change keep their modification time, so steps depending on them do not rerun;
``manifest.json`` is rewritten on every run (it is the command's stamp).

The ``zeroforge`` executable is ``ZEROFORGE_EXECUTABLE`` when set, else the
``zeroforge::zeroforge`` target (found by ``find_package(zeroforge)``).
#]=======================================================================]
function(zeroforge_generate name)
  cmake_parse_arguments(PARSE_ARGV 1 ZF_GEN "EXCLUDE_FROM_ALL;NO_VALIDATE"
                        "FAMILY;OUTPUT_DIR;REPORT"
                        "VALUES;SET;TEMPLATE_DIRS;PLUGINS;PLUGIN_DIRS;PLUGIN_OPTIONS;COMPANIONS")
  foreach(required FAMILY OUTPUT_DIR)
    if(NOT ZF_GEN_${required})
      message(FATAL_ERROR "zeroforge_generate(${name}): ${required} is required")
    endif()
  endforeach()
  if(ZF_GEN_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "zeroforge_generate(${name}): unknown arguments ${ZF_GEN_UNPARSED_ARGUMENTS}")
  endif()

  if(ZEROFORGE_EXECUTABLE)
    set(exe ${ZEROFORGE_EXECUTABLE})
    set(exe_dep ${ZEROFORGE_EXECUTABLE})
  elseif(TARGET zeroforge::zeroforge)
    set(exe zeroforge::zeroforge)
    set(exe_dep zeroforge::zeroforge)
  elseif(TARGET zeroforge)
    set(exe zeroforge)
    set(exe_dep zeroforge)
  else()
    message(FATAL_ERROR "zeroforge_generate(${name}): no zeroforge executable (find_package(zeroforge) "
                        "provides zeroforge::zeroforge; or set ZEROFORGE_EXECUTABLE)")
  endif()

  # A path the family names is made absolute, so that the command may run in any directory.
  set(family ${ZF_GEN_FAMILY})
  set(deps)
  if(family MATCHES "/" OR family MATCHES "\\.json$")
    cmake_path(ABSOLUTE_PATH family BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} NORMALIZE)
    list(APPEND deps ${family})
  endif()
  set(out ${ZF_GEN_OUTPUT_DIR})
  cmake_path(ABSOLUTE_PATH out BASE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR} NORMALIZE)
  cmake_path(REMOVE_FILENAME out OUTPUT_VARIABLE out_dir_slash)
  if(out_dir_slash STREQUAL out)  # "configs/" names the directory "configs"
    string(REGEX REPLACE "/$" "" out ${out})
  endif()

  set(args generate ${family} -o ${out} --quiet)
  foreach(file IN LISTS ZF_GEN_VALUES)
    cmake_path(ABSOLUTE_PATH file BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} NORMALIZE)
    list(APPEND args --values ${file})
    list(APPEND deps ${file})
  endforeach()
  foreach(pair IN LISTS ZF_GEN_SET)
    list(APPEND args --set ${pair})
  endforeach()
  foreach(dir IN LISTS ZF_GEN_TEMPLATE_DIRS)
    cmake_path(ABSOLUTE_PATH dir BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} NORMALIZE)
    list(APPEND args --template-dir ${dir})
  endforeach()
  foreach(dir IN LISTS ZF_GEN_PLUGIN_DIRS)
    cmake_path(ABSOLUTE_PATH dir BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} NORMALIZE)
    list(APPEND args --plugin-dir ${dir})
  endforeach()
  foreach(plugin IN LISTS ZF_GEN_PLUGINS)
    if(TARGET ${plugin})  # a plugin built in this project: its file, rebuilt first
      list(APPEND args --plugin $<TARGET_FILE:${plugin}>)
      list(APPEND deps ${plugin})
    elseif(plugin MATCHES "/" OR plugin MATCHES "\\.so$")
      cmake_path(ABSOLUTE_PATH plugin BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} NORMALIZE)
      list(APPEND args --plugin ${plugin})
    else()
      list(APPEND args --plugin ${plugin})
    endif()
  endforeach()
  foreach(option IN LISTS ZF_GEN_PLUGIN_OPTIONS)
    list(APPEND args --plugin-opt ${option})
  endforeach()
  if(ZF_GEN_COMPANIONS)
    list(JOIN ZF_GEN_COMPANIONS "," kinds)
    list(APPEND args --companions ${kinds})
  endif()
  set(outputs ${out}/manifest.json)
  if(ZF_GEN_REPORT)
    set(report ${ZF_GEN_REPORT})
    cmake_path(ABSOLUTE_PATH report BASE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR} NORMALIZE)
    list(APPEND args --report ${report})
    list(APPEND outputs ${report})
  endif()
  if(ZF_GEN_NO_VALIDATE)
    list(APPEND args --no-validate)
  endif()

  set(depfile ${CMAKE_CURRENT_BINARY_DIR}/${name}.zeroforge.d)
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND ${exe} ${args} --depfile ${depfile}
    DEPENDS ${exe_dep} ${deps}
    DEPFILE ${depfile}
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}
    COMMENT "zeroforge: generating family ${ZF_GEN_FAMILY} into ${out}"
    VERBATIM)
  set(all ALL)
  if(ZF_GEN_EXCLUDE_FROM_ALL)
    set(all)
  endif()
  add_custom_target(${name} ${all} DEPENDS ${outputs})
  set_target_properties(${name} PROPERTIES ZEROFORGE_OUTPUT_DIR ${out}
                                           ZEROFORGE_MANIFEST ${out}/manifest.json)
endfunction()
