# `cmake --install BUILD --prefix P`: the numasim binary, numasim-guest where the binary looks for
# it, the man pages and the bash and zsh completions. Machine presets, kernel profiles, built-in
# scenarios and the guest's init script are compiled into the binary (cmake/embed.cmake), so
# there is no data directory. `cpack -G DEB` packages the same files (cmake/package.cmake).

# numasim finds numasim-guest at NUMASIM_GUEST_DIR relative to its own directory
# (src/experiment/oracle.cpp): both paths are relative to the prefix, so the relation holds for
# any prefix, also one given only at install time or moved afterwards.
set(NUMASIM_GUEST_INSTALL_DIR "${CMAKE_INSTALL_LIBEXECDIR}/numasim")
file(RELATIVE_PATH NUMASIM_GUEST_DIR "/prefix/${CMAKE_INSTALL_BINDIR}"
  "/prefix/${NUMASIM_GUEST_INSTALL_DIR}")
target_compile_definitions(numasim_experiment PRIVATE NUMASIM_GUEST_DIR="${NUMASIM_GUEST_DIR}")

# The man pages and completions, written by the numasim just built each time it is linked
# (cmake/cli-docs.cmake), so that they always match the binary, also after `--target numasim`.
# gzip compresses the pages; the generator itself is numasim, so it cannot be missing.
find_program(NUMASIM_GZIP gzip)
if(NOT NUMASIM_GZIP)
  message(FATAL_ERROR "numasim: the man pages are installed gzip-compressed and gzip is not "
    "installed: apt-get install gzip (scripts/setup.sh)")
endif()
set(NUMASIM_DOCS_DIR "${CMAKE_BINARY_DIR}/cli-docs")
add_custom_command(TARGET numasim POST_BUILD
  COMMAND "${CMAKE_COMMAND}" -DNUMASIM=$<TARGET_FILE:numasim> -DOUT="${NUMASIM_DOCS_DIR}"
          -DGZIP="${NUMASIM_GZIP}" -P "${CMAKE_SOURCE_DIR}/cmake/cli-docs.cmake"
  COMMENT "numasim man pages and shell completions")

# Directories 0755 whatever the umask (Debian policy; lintian's non-standard-dir-perm).
set(CMAKE_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
  OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
install(TARGETS numasim RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
if(TARGET numasim-guest)
  install(TARGETS numasim-guest RUNTIME DESTINATION "${NUMASIM_GUEST_INSTALL_DIR}")
endif()
install(DIRECTORY "${NUMASIM_DOCS_DIR}/man1/" DESTINATION "${CMAKE_INSTALL_MANDIR}/man1")
install(FILES "${NUMASIM_DOCS_DIR}/completion/numasim"
  DESTINATION "${CMAKE_INSTALL_DATADIR}/bash-completion/completions")
install(FILES "${NUMASIM_DOCS_DIR}/completion/_numasim"
  DESTINATION "${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions")
install(FILES "${CMAKE_SOURCE_DIR}/packaging/copyright" DESTINATION "${CMAKE_INSTALL_DOCDIR}")

# The plugin ABI for out-of-tree placement policies (docs/placement-policies.md, "Plugins"): its
# header and a CMake package, so that `find_package(numasim)` in a plugin's own CMake file gives
# the header-only target numasim::policy_plugin. Arch-independent, like the header, so under
# share/ (one of find_package's search paths).
set(NUMASIM_CMAKE_INSTALL_DIR "${CMAKE_INSTALL_DATADIR}/cmake/numasim")
install(DIRECTORY "${CMAKE_SOURCE_DIR}/include/numasim" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
set_target_properties(numasim_policy_plugin PROPERTIES EXPORT_NAME policy_plugin)
install(TARGETS numasim_policy_plugin EXPORT numasimTargets)
install(EXPORT numasimTargets NAMESPACE numasim:: DESTINATION "${NUMASIM_CMAKE_INSTALL_DIR}")
include(CMakePackageConfigHelpers)
configure_package_config_file("${CMAKE_SOURCE_DIR}/cmake/numasimConfig.cmake.in"
  "${CMAKE_BINARY_DIR}/numasimConfig.cmake" INSTALL_DESTINATION "${NUMASIM_CMAKE_INSTALL_DIR}")
# Before 1.0 a minor version may change what the package holds; the plugin ABI has its own
# version, checked when a plugin loads.
write_basic_package_version_file("${CMAKE_BINARY_DIR}/numasimConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES "${CMAKE_BINARY_DIR}/numasimConfig.cmake"
  "${CMAKE_BINARY_DIR}/numasimConfigVersion.cmake" DESTINATION "${NUMASIM_CMAKE_INSTALL_DIR}")
