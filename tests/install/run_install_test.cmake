# SPDX-License-Identifier: Apache-2.0
# Installs BUILD_DIR into WORK_DIR/prefix and builds and runs the consumer against it,
# first through find_package(bloomkit), then through pkg-config and the compiler.
cmake_minimum_required(VERSION 3.25)

function(run)
  cmake_parse_arguments(ARG "" "WHAT" "COMMAND" ${ARGN})
  execute_process(COMMAND ${ARG_COMMAND} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARG_WHAT} failed (${rc}):\n$ ${ARG_COMMAND}\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix "${WORK_DIR}/prefix")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

run(WHAT "cmake --install" COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")
foreach(installed include/bloomkit/bloomkit.h ${LIBDIR}/libbloomkit.a ${LIBDIR}/cmake/bloomkit/bloomkitConfig.cmake
                  ${LIBDIR}/cmake/bloomkit/bloomkitConfigVersion.cmake ${LIBDIR}/pkgconfig/bloomkit.pc)
  if(NOT EXISTS "${prefix}/${installed}")
    message(FATAL_ERROR "cmake --install did not install ${installed}")
  endif()
endforeach()

set(sanitize_flags "")
if(SANITIZE)
  set(sanitize_flags "-fsanitize=${SANITIZE}")
endif()

# 1. find_package(bloomkit) -> bloomkit::core
run(WHAT "configuring the consumer" COMMAND "${CMAKE_COMMAND}" -S "${CONSUMER_DIR}" -B "${WORK_DIR}/build" -G "${GENERATOR}"
    "-DCMAKE_CXX_COMPILER=${CXX}" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${prefix}"
    "-DCMAKE_CXX_FLAGS=${sanitize_flags}" "-DCMAKE_EXE_LINKER_FLAGS=${sanitize_flags}")
run(WHAT "building the consumer" COMMAND "${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
run(WHAT "running the consumer (find_package)" COMMAND "${WORK_DIR}/build/consumer")
if(NOT run_output MATCHES "bloomkit consumer: ok")
  message(FATAL_ERROR "consumer (find_package) printed:\n${run_output}")
endif()
message(STATUS "find_package consumer: ${run_output}")

# 2. pkg-config --cflags --libs bloomkit, with the prefix's pkgconfig directory only.
if(NOT PKG_CONFIG)
  message(FATAL_ERROR "pkg-config was not found when bloomkit was configured")
endif()
run(WHAT "pkg-config" COMMAND "${CMAKE_COMMAND}" -E env "PKG_CONFIG_PATH=${prefix}/${LIBDIR}/pkgconfig"
    "${PKG_CONFIG}" --cflags --libs bloomkit)
string(STRIP "${run_output}" pc_flags)
message(STATUS "pkg-config --cflags --libs bloomkit: ${pc_flags}")
separate_arguments(pc_list UNIX_COMMAND "${pc_flags}")
# The include directory must be the prefix's own, not the configured default prefix.
set(pc_include "")
foreach(flag IN LISTS pc_list)
  if(flag MATCHES "^-I(.+)$" AND pc_include STREQUAL "")
    file(REAL_PATH "${CMAKE_MATCH_1}" pc_include)
  endif()
endforeach()
file(REAL_PATH "${prefix}/include" want_include)
if(NOT pc_include STREQUAL want_include)
  message(FATAL_ERROR "pkg-config's include directory '${pc_include}' is not the prefix's ${want_include}: ${pc_flags}")
endif()
separate_arguments(sanitize_list UNIX_COMMAND "${sanitize_flags}")
run(WHAT "compiling the consumer with pkg-config flags"
    COMMAND "${CXX}" -O1 ${sanitize_list} "${CONSUMER_DIR}/main.cc" -o "${WORK_DIR}/consumer_pc" ${pc_list})
run(WHAT "running the consumer (pkg-config)" COMMAND "${WORK_DIR}/consumer_pc")
if(NOT run_output MATCHES "bloomkit consumer: ok")
  message(FATAL_ERROR "consumer (pkg-config) printed:\n${run_output}")
endif()
message(STATUS "pkg-config consumer: ${run_output}")
