# install.cmake - what `cmake --install` puts under the prefix: the
# profiling library (headers - the profiler's and the cover's -, shared and
# static library, CMake package and pkg-config file) and the tools, with
# pulley-macrogen, which composes an outside interpreter's macro ops.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(FILES ${PROJECT_SOURCE_DIR}/include/pulley/profile.h
              ${PROJECT_SOURCE_DIR}/include/pulley/fusion.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pulley)
install(TARGETS pulleyprof LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_BINARY_DIR}/collect/libpulleyprof.a DESTINATION ${CMAKE_INSTALL_LIBDIR})

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/PulleyProfileConfig.cmake.in
  ${PROJECT_BINARY_DIR}/PulleyProfileConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/PulleyProfile
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/PulleyProfileConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/PulleyProfileConfig.cmake
              ${PROJECT_BINARY_DIR}/PulleyProfileConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/PulleyProfile)

# The .pc file names the prefix given to `cmake --install --prefix` when
# that differs from CMAKE_INSTALL_PREFIX: it is written at install time.
install(CODE "
  set(CMAKE_INSTALL_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
  set(CMAKE_INSTALL_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
  set(PROJECT_VERSION \"${PROJECT_VERSION}\")
  configure_file(\"${CMAKE_CURRENT_LIST_DIR}/pulley-profile.pc.in\"
                 \"${PROJECT_BINARY_DIR}/pulley-profile.pc\" @ONLY)
  file(INSTALL \"${PROJECT_BINARY_DIR}/pulley-profile.pc\"
       DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig\")")

install(TARGETS pulley-collect pulley-collect-exact pulley-ngrams pulley-report pulley-run
                pulley-asm pulley-dis pulley-trace pulley-macrogen
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
