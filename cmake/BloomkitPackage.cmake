# SPDX-License-Identifier: Apache-2.0
# The Debian package: `cpack -G DEB --config build/release/CPackConfig.cmake` writes
# bloomkit_<version>_<arch>.deb with everything `cmake --install` installs, under /usr
# (so the module is /usr/lib/bloomkit/bloomkit.so). dpkg-shlibdeps computes Depends from
# the binaries (libc6, libstdc++6, libzstd1, ...). tests/install checks the package.
set(CPACK_PACKAGE_NAME bloomkit)
set(CPACK_PACKAGE_VENDOR "the bloomkit authors")
set(CPACK_PACKAGE_CONTACT "bloomkit maintainers <bloomkit@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
  "A C++20 library of classic, blocked, counting, scalable and cuckoo filters with a portable,
checksummed file format; the bloomkit command-line tool that sizes, builds, queries and
inspects filter files; and bloomkit.so, a Redis module speaking RedisBloom's BF.* and CF.*
commands (load it with redis-server --loadmodule /usr/lib/bloomkit/bloomkit.so).")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_RESOURCE_FILE_README ${PROJECT_SOURCE_DIR}/README.md)
set(CPACK_RPM_PACKAGE_LICENSE ${BLOOMKIT_LICENSE})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "redis-server (>= 6.2)")
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_SOURCE_IGNORE_FILES /build/ /var/ /\\.git/ __pycache__)
include(CPack)
