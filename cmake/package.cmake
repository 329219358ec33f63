# `cpack -G DEB` in the build directory: numasim_VERSION_ARCH.deb with what `cmake --install`
# installs (cmake/install.cmake) under /usr, plus what Debian asks of a package: the changelog
# and the lintian override for the static numasim-guest. Its dependencies are the Debian
# packages of the libraries the binaries link, found by dpkg-shlibdeps (package dpkg-dev).
set(NUMASIM_PACKAGE_CONTACT "numasim maintainers <maintainers@users.noreply.a-seed-d5f6df23.example>"
  CACHE STRING "The Maintainer of the Debian package")

# Only in the package (a component of its own, left out of a plain `cmake --install`).
set(NUMASIM_CHANGELOG "${CMAKE_BINARY_DIR}/packaging/changelog.Debian")
configure_file("${CMAKE_SOURCE_DIR}/packaging/changelog.Debian.in" "${NUMASIM_CHANGELOG}" @ONLY)
add_custom_command(OUTPUT "${NUMASIM_CHANGELOG}.gz"
  COMMAND "${NUMASIM_GZIP}" -9n -f -k "${NUMASIM_CHANGELOG}"
  DEPENDS "${NUMASIM_CHANGELOG}"
  COMMENT "Debian changelog")
add_custom_target(numasim_changelog ALL DEPENDS "${NUMASIM_CHANGELOG}.gz")
install(FILES "${NUMASIM_CHANGELOG}.gz" DESTINATION "${CMAKE_INSTALL_DOCDIR}"
  COMPONENT debian EXCLUDE_FROM_ALL)
install(FILES "${CMAKE_SOURCE_DIR}/packaging/lintian-overrides" RENAME numasim
  DESTINATION "${CMAKE_INSTALL_DATADIR}/lintian/overrides" COMPONENT debian EXCLUDE_FROM_ALL)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME numasim)
set(CPACK_PACKAGE_CONTACT "${NUMASIM_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "simulator of Linux automatic NUMA balancing")
set(CPACK_PACKAGE_DESCRIPTION
  "numasim runs the kernel's NUMA-balancing algorithm (task_numa_work,
do_numa_page, task_numa_migrate, ...) on a simulated NUMA machine with the
kernel profile's fair scheduler, a memory manager and a cost model, and
prints what NUMA developers read: mmtests compare tables, /proc/vmstat
counters, perf-stat tables and tracepoints. It A/B-tests a policy change in
seconds, deterministically, and checks its model against a real kernel
booted under qemu (numasim oracle).")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
# Both components in one package: the installed files and the Debian-only ones.
set(CPACK_COMPONENTS_ALL Unspecified debian)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)
# A Debian revision (0.1.0-1): the package is made from an upstream version, as Debian names
# its changelog (changelog.Debian.gz) for such packages.
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Control files 0644 and scripts 0755, as lintian checks.
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
