cmake_minimum_required(VERSION 3.25)
# Writes OUT, a ctest include file with one test per GoogleTest suite of EXE ("Suite.*SUFFIX", which runs
# `EXE --gtest_filter=Suite.*`), and the variable LIST_VAR naming them. Run by burn_add_test after each build
# of a suite when BURN_TEST_PER_SUITE is on (cmake/BurnTesting.cmake says when and why).
#   cmake -DEXE=path -DOUT=file -DLIST_VAR=name -DSUFFIX=@x -DWORKDIR=dir -P gtest_suites.cmake
execute_process(COMMAND "${EXE}" --gtest_list_tests WORKING_DIRECTORY "${WORKDIR}" TIMEOUT 60
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE "${OUT}")
  message(FATAL_ERROR "${EXE} --gtest_list_tests failed (${rc}): ${err}")
endif()
# A parameter printed after '#' may hold ';', which CMake would take for a list separator.
string(REPLACE ";" "" out "${out}")
string(REGEX MATCHALL "[^\n]+" lines "${out}")
set(names "")
set(content "")
foreach(line IN LISTS lines)
  # A suite line is "Suite." or "Prefix/Suite/0.  # TypeParam = ..."; its cases follow, indented.
  if(NOT line MATCHES "^([^ #][^ ]*)\\.( .*)?$")
    continue()
  endif()
  set(suite "${CMAKE_MATCH_1}")
  if(suite MATCHES "(^|/)DISABLED_")
    continue()
  endif()
  set(name "${suite}.*${SUFFIX}")
  if(name IN_LIST names)
    continue()
  endif()
  list(APPEND names "${name}")
  string(APPEND content "add_test([==[${name}]==] [==[${EXE}]==] [==[--gtest_filter=${suite}.*]==])\n"
                        "set_tests_properties([==[${name}]==] PROPERTIES WORKING_DIRECTORY [==[${WORKDIR}]==])\n")
endforeach()
string(APPEND content "set(${LIST_VAR} [==[${names}]==])\n")
file(WRITE "${OUT}" "${content}")
