# SPDX-License-Identifier: MIT
# Installs headers, libraries, the ompbench tool, the CMake package
# (ompbench::ompbench, ompbench::main, ompbench::fork_guard, ompbench::mpi
# and ompbench::fortran when built, ompbench_add_benchmark), ompbench.pc,
# and with Fortran the compiled module (ompbench.mod in
# <includedir>/ompbench/fortran) and ompbench-fortran.pc.
include(CMakePackageConfigHelpers)

install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS ompbench ompbench_main ompbench_fork_guard EXPORT ompbench-targets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(OMPB_MPI_FOUND)
  install(TARGETS ompbench_mpi EXPORT ompbench-targets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
if(OMPB_FORTRAN_FOUND)
  install(TARGETS ompbench_fortran EXPORT ompbench-targets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES ${PROJECT_BINARY_DIR}/fortran/ompbench.mod DESTINATION ${OMPB_FORTRAN_MODDIR})
endif()
install(TARGETS ompbench_tool RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

set(OMPB_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ompbench)
install(EXPORT ompbench-targets NAMESPACE ompbench:: DESTINATION ${OMPB_CMAKE_DIR})
configure_package_config_file(cmake/ompbench-config.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/ompbench-config.cmake
  INSTALL_DESTINATION ${OMPB_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/ompbench-config-version.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES
  ${CMAKE_CURRENT_BINARY_DIR}/ompbench-config.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/ompbench-config-version.cmake
  cmake/OmpbenchAddBenchmark.cmake
  DESTINATION ${OMPB_CMAKE_DIR})

# A static libompbench needs hwloc and jansson at every link; a shared one
# only for static linking of the consumer.
if(BUILD_SHARED_LIBS)
  set(OMPB_PC_REQUIRES "Requires.private: hwloc jansson")
else()
  set(OMPB_PC_REQUIRES "Requires: hwloc jansson")
endif()
# Relocatable: the prefix is derived from where the .pc file is found, so
# `cmake --install --prefix DIR` works without reconfiguring.
file(RELATIVE_PATH OMPB_PC_PREFIX_REL "${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig"
  "${CMAKE_INSTALL_PREFIX}")
configure_file(cmake/ompbench.pc.in ${CMAKE_CURRENT_BINARY_DIR}/ompbench.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ompbench.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# ompbench-fortran.pc: the module's directory and its library, over ompbench.pc.
if(OMPB_FORTRAN_FOUND)
  configure_file(cmake/ompbench-fortran.pc.in ${CMAKE_CURRENT_BINARY_DIR}/ompbench-fortran.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ompbench-fortran.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()

# ompbench-mpi.pc: the MPI main() with the flags of the MPI it was built with.
if(OMPB_MPI_FOUND)
  list(TRANSFORM MPI_C_INCLUDE_DIRS PREPEND "-I" OUTPUT_VARIABLE _ompb_mpi_inc)
  string(JOIN " " OMPB_PC_MPI_CFLAGS ${_ompb_mpi_inc} ${MPI_C_COMPILE_OPTIONS})
  string(JOIN " " OMPB_PC_MPI_LIBS ${MPI_C_LINK_FLAGS} ${MPI_C_LIBRARIES})
  configure_file(cmake/ompbench-mpi.pc.in ${CMAKE_CURRENT_BINARY_DIR}/ompbench-mpi.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ompbench-mpi.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
