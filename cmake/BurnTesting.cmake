# burn_add_test(NAME SOURCES ... LIBS ... LABELS ... [DEVICES spec ...] [ENVIRONMENT var=value ...]
#               [RESOURCE_LOCK name]): one GoogleTest executable registered with ctest under the given labels and
# environment; every component's suite goes through here. With DEVICES, the suite is registered once per device
# spec (BURN_TEST_DEVICE) with the spec as suffix. RESOURCE_LOCK puts every discovered test under ctest's lock
# of that name (burn_opencl_program_cache: the tests that fill PoCL's cache, one at a time).
include(GoogleTest)

# Where tests keep GPU program caches (PoCL's kernels, the opencl plugin's programs), never the home folder. The
# presets point every build folder at one, build/cache: the asan run then finds the kernels the release run
# compiled (a PoCL binary depends on the kernel source, options and device, not on how the host code was built),
# which saved the asan stage ~6 min of PoCL compiles under ASan.
set(BURN_TEST_CACHE_DIR "${CMAKE_BINARY_DIR}/cache" CACHE PATH "GPU program caches of the tests")
# The environment of every test that runs OpenCL kernels: PoCL's kernel cache there, the plugin's disk cache off
# (burn-backend-opencl/tests/CMakeLists.txt says why). Such tests also hold RESOURCE_LOCK
# burn_opencl_program_cache, so that a test finds the programs an earlier one compiled instead of several
# compiling the same ones at once on a cold cache.
set(BURN_OPENCL_TEST_ENV "POCL_CACHE_DIR=${BURN_TEST_CACHE_DIR}/pocl;BURN_OPENCL_CACHE_DIR=off")

# The labels the sanitizer stage runs (CMakePresets.json, test preset asan, its include filter). Its build
# preset builds only the suite those tests need (burn_add_sanitizer_suite below), not the examples, tools and
# suites it never runs: 10 % of a cold ASan build.
set(BURN_SANITIZER_LABELS "unit|conformance|gradcheck")

# For tests of a tool's exit status and messages together:
#   add_test(NAME t COMMAND ${CMAKE_COMMAND} -P ${BURN_RUN_EXPECT} EXIT nonzero MATCH "re" -- $<TARGET_FILE:tool> args)
set(BURN_RUN_EXPECT ${CMAKE_CURRENT_LIST_DIR}/run_expect.cmake)
# A plugin copy with one DT_NEEDED library renamed to one that does not exist (the plugins' no-loader tests):
#   add_test(... COMMAND ${CMAKE_COMMAND} -DPLUGIN=... -DOUT_DIR=... -DLIBRARY=... -DREPLACEMENT=...
#                -P ${BURN_COPY_PLUGIN_WITHOUT_LIBRARY})
set(BURN_COPY_PLUGIN_WITHOUT_LIBRARY ${CMAKE_CURRENT_LIST_DIR}/copy_plugin_without_library.cmake)

# How ctest runs a GoogleTest executable: one process per case (gtest_discover_tests; a failure names its
# case, a crash takes down one case), or with BURN_TEST_PER_SUITE one process per suite ("Suite.*", run with
# --gtest_filter=Suite.*). The asan preset runs per suite: a process under ASan pays ~0.8 s to start (the
# sanitizer's start, every plugin's relocations, LSan's scan at exit) before its first case, 1,100 s of CPU
# over 1,400 cases, more than the cases themselves. The release stage keeps one process per case.
option(BURN_TEST_PER_SUITE "ctest runs each GoogleTest suite in one process instead of each case" OFF)
set(BURN_GTEST_SUITES_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/gtest_suites.cmake)

# Labels and the environment are set from an include file run after discovery: gtest_discover_tests'
# PROPERTIES splits list values (CMake 3.25), which would keep only the first label or variable.
function(_burn_discover name list_var labels environment lock suffix)
  if(BURN_TEST_PER_SUITE)
    set(tests_file ${CMAKE_CURRENT_BINARY_DIR}/${list_var}_suites.cmake)
    add_custom_command(TARGET ${name} POST_BUILD BYPRODUCTS ${tests_file} VERBATIM
                       COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:${name}> -DOUT=${tests_file} -DLIST_VAR=${list_var}
                               -DSUFFIX=${suffix} -DWORKDIR=${CMAKE_CURRENT_BINARY_DIR} -P ${BURN_GTEST_SUITES_SCRIPT})
    set(include_file ${CMAKE_CURRENT_BINARY_DIR}/${list_var}_include.cmake)
    # Until the suite is built, a placeholder that fails (as gtest_discover_tests adds) and carries no label.
    file(WRITE ${include_file} "if(EXISTS \"${tests_file}\")\n  include(\"${tests_file}\")\nelse()\n"
                               "  add_test(${list_var}_NOT_BUILT ${list_var}_NOT_BUILT)\nendif()\n")
    set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${include_file})
  elseif(suffix)
    gtest_discover_tests(${name} TEST_LIST ${list_var} DISCOVERY_TIMEOUT 60 TEST_SUFFIX "${suffix}")
  else()
    gtest_discover_tests(${name} TEST_LIST ${list_var} DISCOVERY_TIMEOUT 60)
  endif()
  set(file ${CMAKE_CURRENT_BINARY_DIR}/${list_var}_labels.cmake)
  set(env "")
  if(environment)
    set(env " ENVIRONMENT \"${environment}\"")
  endif()
  if(lock)
    string(APPEND env " RESOURCE_LOCK \"${lock}\"")
  endif()
  file(WRITE ${file} "foreach(t IN LISTS ${list_var})\n"
                     "  set_tests_properties(\"\${t}\" PROPERTIES LABELS \"${labels}\"${env})\n"
                     "endforeach()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${file})
endfunction()

function(burn_add_test name)
  cmake_parse_arguments(ARG "" "RESOURCE_LOCK" "SOURCES;LIBS;LABELS;DEVICES;ENVIRONMENT" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main)
  if(ARG_LABELS MATCHES "(^|;)(${BURN_SANITIZER_LABELS})(;|$)")
    set_property(GLOBAL APPEND PROPERTY BURN_SANITIZER_SUITE_TARGETS ${name})
  endif()
  if(NOT ARG_DEVICES)
    _burn_discover(${name} ${name}_TESTS "${ARG_LABELS}" "${ARG_ENVIRONMENT}" "${ARG_RESOURCE_LOCK}" "")
    return()
  endif()
  foreach(spec IN LISTS ARG_DEVICES)
    string(MAKE_C_IDENTIFIER "${spec}" suffix)
    set(env "BURN_TEST_DEVICE=${spec}" ${ARG_ENVIRONMENT})
    _burn_discover(${name} ${name}_${suffix}_TESTS "${ARG_LABELS}" "${env}" "${ARG_RESOURCE_LOCK}" "@${suffix}")
  endforeach()
endfunction()

# burn-sanitizer-suite: what the tests of BURN_SANITIZER_LABELS run (the asan build preset's target). The
# GoogleTest suites of those labels, every in-tree plugin (found at run time, never linked) and `programs`,
# the executables that plain add_test calls of those labels run; their helpers come as add_dependencies of
# each. A test whose program is missing here fails in the asan stage ("Could not find executable"): it is
# never skipped unseen. Called once, at the end of the top-level CMakeLists.txt.
function(burn_add_sanitizer_suite)
  get_property(suites GLOBAL PROPERTY BURN_SANITIZER_SUITE_TARGETS)
  get_property(plugins GLOBAL PROPERTY BURN_IN_TREE_PLUGIN_TARGETS)
  add_custom_target(burn-sanitizer-suite)
  foreach(t IN LISTS suites plugins ARGN)
    if(TARGET ${t})
      add_dependencies(burn-sanitizer-suite ${t})
    endif()
  endforeach()
endfunction()

# Test code (the sources in a tests/ or conformance/ folder, benchmarks apart) is compiled with less
# optimisation than the libraries it tests: -O0 in Release, but -O1 for the case-driving code of the
# conformance chains and gradcheck (burn-tensor/conformance, tests/gradcheck: thousands of cases built and
# compared per process), and -O0 in RelWithDebInfo (the asan preset), where test code also goes without
# UBSan (ASan stays): UBSan took 27 % of a sanitized test file's compile, and what the stage checks is the
# libraries, still compiled with both. The suites spend their time in the libraries, while their own
# sources (gtest bodies, fixtures, the conformance cases) are 40 % of a cold build. A library source a test
# target compiles again (examples/demo.cpp in tests/robustness) keeps the library's flags, so ccache still
# finds it. Called once, at the end of the top-level CMakeLists.txt.
function(burn_lighten_test_code dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(t IN LISTS targets)
    get_target_property(type ${t} TYPE)
    if(NOT type MATCHES "^(EXECUTABLE|OBJECT_LIBRARY|MODULE_LIBRARY|STATIC_LIBRARY|SHARED_LIBRARY)$" OR t MATCHES "bench")
      continue()
    endif()
    get_target_property(sources ${t} SOURCES)
    get_target_property(source_dir ${t} SOURCE_DIR)
    set(test_sources "")
    set(other_sources FALSE)
    foreach(src IN LISTS sources)
      if(src MATCHES "^\\$<" OR NOT src MATCHES "\\.(cpp|cc|c)$")
        continue()
      endif()
      cmake_path(ABSOLUTE_PATH src BASE_DIRECTORY ${source_dir} NORMALIZE OUTPUT_VARIABLE path)
      if(path MATCHES "/(tests|conformance)/")
        list(APPEND test_sources ${path})
      else()
        set(other_sources TRUE)
      endif()
    endforeach()
    set(release_level -O0)
    if(source_dir MATCHES "/(conformance|gradcheck)$")
      set(release_level -O1)
    endif()
    set(lighter $<$<CONFIG:Release>:${release_level}> $<$<CONFIG:RelWithDebInfo>:-O0>)
    if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=[^ ]*undefined")
      list(APPEND lighter -fno-sanitize=undefined)
    endif()
    if(test_sources AND NOT other_sources)
      # On the target, so that the asan preset's unity build still merges its sources (CMake leaves a
      # source with its own COMPILE_OPTIONS out of the unity files).
      set_property(TARGET ${t} APPEND PROPERTY COMPILE_OPTIONS ${lighter})
    else()
      foreach(path IN LISTS test_sources)
        set_property(SOURCE ${path} TARGET_DIRECTORY ${t} APPEND PROPERTY COMPILE_OPTIONS ${lighter})
      endforeach()
    endif()
  endforeach()
  foreach(sub IN LISTS subdirs)
    burn_lighten_test_code(${sub})
  endforeach()
endfunction()

# The fuzz project (tests/fuzz: the recorders' and importers' libFuzzer targets, one Clang project) as two
# ctest fixtures, registered once whichever component's tests ask first: `fuzz.configure` and `fuzz.build`
# (labels fuzz, record, import). Sets BURN_FUZZ_DIR (the folder the fuzzers run in; executables under
# its build/) in the caller's scope, empty without Clang (then no fuzz test is registered).
# Seconds each libFuzzer target (the recorders' and the importers') runs under ctest's `fuzz` label: a
# regression screen from the committed seeds on every CI run; long runs are by hand (tests/fuzz/CMakeLists.txt).
set(BURN_FUZZ_RUN_SECONDS 10 CACHE STRING "Seconds each libFuzzer target runs under ctest (label fuzz)")

function(burn_add_fuzz_project)
  find_program(BURN_CLANGXX clang++)
  find_program(BURN_CLANG clang)
  if(NOT BURN_CLANGXX OR NOT BURN_CLANG)
    set(BURN_FUZZ_DIR "" PARENT_SCOPE)
    return()
  endif()
  set(dir ${CMAKE_BINARY_DIR}/fuzz)
  set(BURN_FUZZ_DIR ${dir} PARENT_SCOPE)
  get_property(done GLOBAL PROPERTY BURN_FUZZ_PROJECT_ADDED)
  if(done)
    return()
  endif()
  set_property(GLOBAL PROPERTY BURN_FUZZ_PROJECT_ADDED TRUE)
  set(args -G "${CMAKE_GENERATOR}" "-DCMAKE_CXX_COMPILER=${BURN_CLANGXX}" "-DCMAKE_C_COMPILER=${BURN_CLANG}")
  foreach(var CMAKE_MAKE_PROGRAM CMAKE_CXX_COMPILER_LAUNCHER)
    if(NOT "${${var}}" STREQUAL "")
      list(APPEND args "-D${var}=${${var}}")
    endif()
  endforeach()
  add_test(NAME fuzz.configure
    COMMAND ${CMAKE_COMMAND} --fresh -S ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../tests/fuzz -B ${dir}/build ${args})
  set_tests_properties(fuzz.configure PROPERTIES LABELS "fuzz;record;import" TIMEOUT 300
    FIXTURES_SETUP burn_fuzz_configured)
  add_test(NAME fuzz.build COMMAND ${CMAKE_COMMAND} --build ${dir}/build)
  set_tests_properties(fuzz.build PROPERTIES LABELS "fuzz;record;import" TIMEOUT 2700
    FIXTURES_REQUIRED burn_fuzz_configured FIXTURES_SETUP burn_fuzz_built)
endfunction()
