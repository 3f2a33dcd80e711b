# SPDX-License-Identifier: Apache-2.0
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Exported as bloomkit::core, the name the build tree's alias and the README use
# (without this the installed target would be bloomkit::bloomkit_core).
set_target_properties(bloomkit_core PROPERTIES EXPORT_NAME core)
install(TARGETS bloomkit_core
  EXPORT bloomkitTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/bloomkit DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT bloomkitTargets NAMESPACE bloomkit::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/bloomkit)
configure_package_config_file(cmake/bloomkitConfig.cmake.in
  ${PROJECT_BINARY_DIR}/bloomkitConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/bloomkit)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/bloomkitConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/bloomkitConfig.cmake
  ${PROJECT_BINARY_DIR}/bloomkitConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/bloomkit)
# The .pc file finds its prefix from its own location, so that an install moved or
# made with `cmake --install --prefix <dir>` still points at its own headers.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(BLOOMKIT_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH _bloomkit_pc_up "${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
  string(REGEX REPLACE "/$" "" _bloomkit_pc_up "${_bloomkit_pc_up}")
  set(BLOOMKIT_PC_PREFIX "\${pcfiledir}/${_bloomkit_pc_up}")
endif()
configure_file(cmake/bloomkit.pc.in ${PROJECT_BINARY_DIR}/bloomkit.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/bloomkit.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# What a user runs, beside the library (README "Install"):
#   bin/bloomkit                                    the CLI (src/cli/CMakeLists.txt)
#   <libdir>/bloomkit/bloomkit.so                   the Redis module: /usr/lib/bloomkit/bloomkit.so
#                                                   from the .deb, /usr/local/lib/bloomkit/... from
#                                                   `cmake --install build/release`
#   share/man/man1/bloomkit.1                       manual page      \  generated from bloomkit --help
#   share/bash-completion/completions/bloomkit      bash completion  |  by scripts/gen-docs at build
#   share/zsh/{vendor-completions,site-functions}/_bloomkit  zsh     /  time
#   share/doc/bloomkit/                             README.md, LICENSE, docs/*.md
set(BLOOMKIT_INSTALL_MODULEDIR "${CMAKE_INSTALL_LIBDIR}/bloomkit" CACHE STRING
  "Where bloomkit.so is installed, relative to the prefix")
if(TARGET bloomkit_redis)
  # Executable, as redis-server 7 refuses to load a module file without execute permission
  # (the default for a MODULE library is 644).
  install(TARGETS bloomkit_redis LIBRARY DESTINATION ${BLOOMKIT_INSTALL_MODULEDIR}
    PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endif()

if(TARGET bloomkit AND NOT BLOOMKIT_FUZZ)
  find_program(BLOOMKIT_GEN_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
  set(_gen_dir ${PROJECT_BINARY_DIR}/gen-docs)
  set(_gen_outputs ${_gen_dir}/bloomkit.1 ${_gen_dir}/bloomkit.bash ${_gen_dir}/_bloomkit)
  add_custom_command(OUTPUT ${_gen_outputs}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_gen_dir}
    COMMAND ${BLOOMKIT_GEN_PYTHON3} ${PROJECT_SOURCE_DIR}/scripts/gen-docs $<TARGET_FILE:bloomkit> ${_gen_dir}
    DEPENDS bloomkit ${PROJECT_SOURCE_DIR}/scripts/gen-docs
    COMMENT "Generating the bloomkit manual page and shell completions"
    VERBATIM)
  add_custom_target(bloomkit_gen_docs ALL DEPENDS ${_gen_outputs})
  install(FILES ${_gen_dir}/bloomkit.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  install(FILES ${_gen_dir}/bloomkit.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
          RENAME bloomkit)
  # zsh on Debian searches /usr/share/zsh/vendor-completions (packages) and
  # /usr/local/share/zsh/site-functions (local installs). The choice is made at install
  # time, since CPack installs with its own prefix (/usr).
  install(CODE [[
    if(CMAKE_INSTALL_PREFIX MATCHES "(^|/)usr/?$")
      set(BLOOMKIT_ZSH_DIR vendor-completions)
    else()
      set(BLOOMKIT_ZSH_DIR site-functions)
    endif()]])
  install(FILES ${_gen_dir}/_bloomkit DESTINATION "${CMAKE_INSTALL_DATADIR}/zsh/\${BLOOMKIT_ZSH_DIR}")
endif()

install(FILES README.md LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
file(GLOB _bloomkit_docs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md ${PROJECT_SOURCE_DIR}/docs/*.png)
install(FILES ${_bloomkit_docs} DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

include(BloomkitPackage)
