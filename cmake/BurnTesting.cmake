# burn_add_test(NAME SOURCES ... LIBS ... LABELS ... [DEVICES spec ...]): one GoogleTest executable
# registered with ctest under the given labels; every component's suite goes through here. With
# DEVICES, the suite is registered once per device spec (BURN_TEST_DEVICE) with the spec as suffix.
include(GoogleTest)

function(burn_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;LABELS;DEVICES" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main)
  if(NOT ARG_DEVICES)
    gtest_discover_tests(${name} PROPERTIES LABELS "${ARG_LABELS}" DISCOVERY_TIMEOUT 60)
    return()
  endif()
  foreach(spec IN LISTS ARG_DEVICES)
    string(MAKE_C_IDENTIFIER "${spec}" suffix)
    gtest_discover_tests(${name} TEST_SUFFIX "@${suffix}" DISCOVERY_TIMEOUT 60
                         PROPERTIES LABELS "${ARG_LABELS}" ENVIRONMENT "BURN_TEST_DEVICE=${spec}")
  endforeach()
endfunction()
