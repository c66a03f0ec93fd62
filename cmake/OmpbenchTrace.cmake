# SPDX-License-Identifier: MIT
# libompbench_trace.so: the library `ompbench trace` preloads into the
# program it traces (lib/trace/, docs/trace.md): the fork guard's entry
# points (lib/main/fork_guard_gnu.c) with their wrapping hook and its OMPT
# tool (lib/main/fork_guard_ompt.c, with the trace's events), a copy of the
# library's objects for the region markers, and libdw for region names.
# It exports the OpenMP entry points, ompt_start_tool and _exit only
# (lib/trace/trace.map).
pkg_check_modules(LIBDW REQUIRED IMPORTED_TARGET libdw)
add_library(ompbench_trace SHARED lib/trace/trace_load.c lib/trace/trace_gnu.c
  lib/trace/trace_omp.c lib/trace/trace_sites.c lib/trace/trace_names.c
  ${OMPB_FORK_GUARD_SOURCES} $<TARGET_OBJECTS:ompbench_objects>)
set_target_properties(ompbench_trace PROPERTIES C_VISIBILITY_PRESET hidden
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
target_include_directories(ompbench_trace PRIVATE include lib)
target_compile_definitions(ompbench_trace PRIVATE _GNU_SOURCE OMPB_OMPT_TRACE)
# No OpenMP runtime of its own: its omp_* and GOMP_* references bind to the
# runtime the program loads (libgomp or libomp), so that preloading it never
# adds a second runtime to a process (OpenMP's flags compile it, nothing
# links one).
find_package(Threads REQUIRED)
target_compile_options(ompbench_trace PRIVATE ${OpenMP_C_FLAGS})
target_link_libraries(ompbench_trace PRIVATE PkgConfig::HWLOC
  PkgConfig::JANSSON PkgConfig::LIBDW Threads::Threads m ${CMAKE_DL_LIBS})
set(_ompb_trace_map ${PROJECT_SOURCE_DIR}/lib/trace/trace.map)
target_link_options(ompbench_trace PRIVATE LINKER:--version-script=${_ompb_trace_map})
set_property(TARGET ompbench_trace APPEND PROPERTY LINK_DEPENDS ${_ompb_trace_map})
ompb_target_warnings(ompbench_trace)
# A private library (only the tool loads it, by path): in a folder of its
# own under the library directory, as plugins are, not beside the public
# libraries with their sonames.
install(TARGETS ompbench_trace LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/ompbench)

# The tool finds it from itself once installed (../LIBDIR/ompbench), else
# in the build.
add_dependencies(ompbench_tool ompbench_trace)
target_compile_definitions(ompbench_tool PRIVATE
  OMPB_TRACE_LIBRARY_BUILD="$<TARGET_FILE:ompbench_trace>"
  OMPB_TRACE_LIBRARY_INSTALLED="${CMAKE_INSTALL_LIBDIR}/ompbench/$<TARGET_FILE_NAME:ompbench_trace>")
