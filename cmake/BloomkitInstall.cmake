include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

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
configure_file(cmake/bloomkit.pc.in ${PROJECT_BINARY_DIR}/bloomkit.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/bloomkit.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
