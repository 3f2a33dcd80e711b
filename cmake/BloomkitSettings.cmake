# SPDX-License-Identifier: Apache-2.0
include(GNUInstallDirs)
# Warnings and sanitizers travel through INTERFACE targets, never through CMAKE_CXX_FLAGS.
add_library(bloomkit_warnings INTERFACE)
target_compile_options(bloomkit_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wnon-virtual-dtor
  -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wnull-dereference -Wimplicit-fallthrough
  # g++ 12 at -O3 reports false -Wrestrict overlaps inside std::string's operator+
  # (GCC bug 105329, fixed in 13); the release preset builds at -O3 with -Werror.
  $<$<AND:$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>
  $<$<BOOL:${BLOOMKIT_WERROR}>:-Werror>)

add_library(bloomkit_sanitizers INTERFACE)
if(BLOOMKIT_SANITIZE)
  target_compile_options(bloomkit_sanitizers INTERFACE
    -fsanitize=${BLOOMKIT_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(bloomkit_sanitizers INTERFACE -fsanitize=${BLOOMKIT_SANITIZE})
endif()

# What a test that loads a sanitized bloomkit.so into Debian's (unsanitized) redis-server
# adds to its environment: the sanitizer runtimes preloaded, since they must come first
# in the process, and leak checks off (Redis does not free everything at exit).
set(BLOOMKIT_HOST_SANITIZER_ENV "")
if(BLOOMKIT_SANITIZE MATCHES "address")
  set(_preload "")
  foreach(runtime asan ubsan)
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=lib${runtime}.so
      OUTPUT_VARIABLE _path OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(IS_ABSOLUTE "${_path}")
      string(APPEND _preload " ${_path}")
    endif()
  endforeach()
  string(STRIP "${_preload}" _preload)
  set(BLOOMKIT_HOST_SANITIZER_ENV "LD_PRELOAD=${_preload};ASAN_OPTIONS=detect_leaks=0")
endif()

if(BLOOMKIT_FUZZ)
  # Coverage instrumentation for everything the fuzz targets reach; the targets add
  # -fsanitize=fuzzer for libFuzzer's main.
  target_compile_options(bloomkit_sanitizers INTERFACE -fsanitize=fuzzer-no-link)
endif()

find_package(PkgConfig REQUIRED)
# xxHash is used header-only (XXH_INLINE_ALL) so the hash inlines into the hot loops;
# pkg-config only locates the header.
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
find_package(zstd CONFIG REQUIRED)
# LZF: the string compression of Redis' RDB and DUMP payloads (RedisBloom-format filters).
find_package(liblzf CONFIG REQUIRED)
if(TARGET zstd::libzstd_shared)
  set(BLOOMKIT_ZSTD_TARGET zstd::libzstd_shared)
else()
  set(BLOOMKIT_ZSTD_TARGET zstd::libzstd_static)
endif()
