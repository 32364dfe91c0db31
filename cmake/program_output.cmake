# cmake/program_output.cmake: runs PROGRAM with ARGS (a list) and writes its standard output to
# OUT, through a temporary name so that a failed run leaves no half file for the install to take.
#   cmake -DPROGRAM=... "-DARGS=--help-man" -DOUT=... -P cmake/program_output.cmake
execute_process(COMMAND ${PROGRAM} ${ARGS} OUTPUT_FILE ${OUT}.tmp RESULT_VARIABLE result
                ERROR_VARIABLE errors)
if(NOT result EQUAL 0)
  file(REMOVE ${OUT}.tmp)
  message(FATAL_ERROR "${PROGRAM} ${ARGS} failed (${result}): ${errors}")
endif()
file(RENAME ${OUT}.tmp ${OUT})
