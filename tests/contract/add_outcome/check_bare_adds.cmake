# SPDX-License-Identifier: Apache-2.0
# A dropped add result is fine where the add cannot fail (Done) and an error where it
# can ([[nodiscard]] Status): bare_adds.cc compiled twice with -Werror.
#   cmake -DCXX=<compiler> -DINCLUDE=<include dir> -DSRC=<bare_adds.cc> -DEXPECTED=24 -P check_bare_adds.cmake
set(flags -std=c++20 -fsyntax-only -Wall -Wextra -Werror -I${INCLUDE} ${SRC})

execute_process(COMMAND ${CXX} ${flags} RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bare adds of the kinds that cannot fail were refused:\n${out}${err}")
endif()

execute_process(COMMAND ${CXX} ${flags} -DBARE_ADDS_OF_FALLIBLE_KINDS RESULT_VARIABLE rc ERROR_VARIABLE err
                OUTPUT_VARIABLE out)
string(REGEX MATCHALL "ignoring return(ed)? value[^\n]*" refused "${out}${err}")
list(LENGTH refused count)
if(rc EQUAL 0 OR NOT count EQUAL EXPECTED)
  message(FATAL_ERROR "bare adds of the kinds that can fail: exit ${rc}, ${count} refused, "
                      "expected ${EXPECTED} (4 verbs x 6 kinds):\n${out}${err}")
endif()
message(STATUS "bare adds: accepted on 9 infallible kinds, ${count} refused on 6 fallible ones")
