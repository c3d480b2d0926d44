# SPDX-License-Identifier: MIT
# Runs one fuzzer for SECONDS over its seed corpus (read only: new inputs go to WORK, emptied
# first) with the dictionary DICT; fails on any crash, leak, timeout or out-of-memory.
# cmake -DFUZZER=... -DDICT=... -DCORPUS=... -DWORK=... -DSECONDS=... -P run_fuzzer.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus)
execute_process(
  COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048 -dict=${DICT}
          -artifact_prefix=${WORK}/ -print_final_stats=1 ${WORK}/corpus ${CORPUS}
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${FUZZER} failed (${result}); the input that failed is in ${WORK}/")
endif()
