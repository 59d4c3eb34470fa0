# burn_add_test(NAME SOURCES ... LIBS ... LABELS ...): one GoogleTest executable registered with
# ctest under the given labels; every component's suite goes through here.
include(GoogleTest)

function(burn_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main)
  gtest_discover_tests(${name} PROPERTIES LABELS "${ARG_LABELS}" DISCOVERY_TIMEOUT 60)
endfunction()
