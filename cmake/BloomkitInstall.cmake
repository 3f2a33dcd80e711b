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
