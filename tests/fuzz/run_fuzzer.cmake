# Runs one fuzzer (a recorder's or an importer's) for SECONDS from SEEDS (cmake -P, for ctest): a fresh
# CORPUS folder, inputs up to 8 KiB, 2 GiB of memory, 10 s per input. Fails on any crash, leak, timeout or sanitizer report,
# and prints libFuzzer's final statistics (executions, speed).
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${CORPUS}")
file(MAKE_DIRECTORY "${CORPUS}")
execute_process(COMMAND "${FUZZER}" -max_total_time=${SECONDS} -max_len=8192 -rss_limit_mb=2048 -timeout=10
                        -print_final_stats=1 "${CORPUS}" "${SEEDS}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REGEX MATCHALL "stat::[a-z_]+: +[0-9]+" stats "${err}")
string(REPLACE ";" "\n" stats "${stats}")
message("${stats}")
if(NOT rc EQUAL 0)
  message("${err}")
  message(FATAL_ERROR "${FUZZER} failed (exit ${rc}); the input that failed is in the working folder")
endif()
