# Script steps of the `install` tests (cmake -P), for what one add_test command cannot do alone:
#   -DMODE=install -DBUILD_DIR=... -DPREFIX=... [-DCONFIG=...]: a fresh install of the build tree
#   -DMODE=plugin-listed -DBURN=<burn tool> -DPLUGIN=<name>: `burn plugins` lists PLUGIN as loaded
#   -DMODE=link-fails -DBUILD_DIR=... -DTARGET=... -DSYMBOL=...: building TARGET fails, and the
#     linker names SYMBOL as undefined (so it failed for that reason, not another)
cmake_minimum_required(VERSION 3.25)

if(MODE STREQUAL "install")
  # Start from an empty prefix so a file the build no longer installs cannot hide a packaging bug.
  file(REMOVE_RECURSE "${PREFIX}")
  set(config_args "")
  if(CONFIG)
    set(config_args --config "${CONFIG}")
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}" ${config_args}
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cmake --install failed (${rc})")
  endif()
  foreach(f lib/cmake/burn/burnConfig.cmake lib/cmake/burn-tensor/burn-tensorConfig.cmake
            lib/cmake/burn-tensor/BurnPlugin.cmake)
    if(NOT EXISTS "${PREFIX}/${f}")
      message(FATAL_ERROR "the install lacks ${f}")
    endif()
  endforeach()

elseif(MODE STREQUAL "plugin-listed")
  execute_process(COMMAND "${BURN}" plugins OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "`burn plugins` exited with ${rc}")
  endif()
  # One line per plugin: its name as a word, and "loaded" or "selected" unless it was rejected.
  string(REPLACE ";" "," text "${out}\n${err}")
  string(REPLACE "\n" ";" lines "${text}")
  set(found_line "")
  set(ok FALSE)
  foreach(line IN LISTS lines)
    string(TOLOWER "${line}" lower)
    if(lower MATCHES "(^|[^a-z0-9_.-])${PLUGIN}([^a-z0-9_.-]|$)")
      set(found_line "${line}")
      if(lower MATCHES "(loaded|selected)" AND NOT lower MATCHES "(not loaded|reject|fail|error)")
        set(ok TRUE)
      endif()
    endif()
  endforeach()
  if(NOT ok)
    if(found_line)
      message(FATAL_ERROR "plugin '${PLUGIN}' is listed but not loaded: ${found_line}")
    endif()
    message(FATAL_ERROR "plugin '${PLUGIN}' is not listed by `burn plugins` (BURN_PLUGIN_PATH=$ENV{BURN_PLUGIN_PATH})")
  endif()
  message(STATUS "plugin '${PLUGIN}' loaded")

elseif(MODE STREQUAL "link-fails")
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BUILD_DIR}" --target "${TARGET}"
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  message("${out}${err}")
  if(rc EQUAL 0)
    message(FATAL_ERROR "${TARGET} linked although it uses ${SYMBOL}, which nothing defines")
  endif()
  # GNU ld: "undefined reference to `SYMBOL(...)'"; lld: "undefined symbol: SYMBOL(...)".
  if(NOT "${out}${err}" MATCHES "undefined (reference to .|symbol: )${SYMBOL}")
    message(FATAL_ERROR "building ${TARGET} failed, but not on the undefined ${SYMBOL}")
  endif()
  message(STATUS "${TARGET}: the link failed on the undefined ${SYMBOL}, as it must")

else()
  message(FATAL_ERROR "install_steps.cmake: unknown MODE '${MODE}'")
endif()
