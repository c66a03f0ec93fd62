# SPDX-License-Identifier: MIT
# ompbench_add_benchmark(<name> [MPI] SOURCES <file.c>... [LIBRARIES <lib>...])
#
# Builds a benchmark executable linked to ompbench::main (which provides main())
# and to OpenMP::OpenMP_<LANG> for each language of its sources (C, CXX,
# Fortran: .cpp and .f90 files compile with OpenMP too),
# and, unless BUILD_TESTING is OFF, registers the CTest smoke test
# "bench.<name>" that runs every instance once with --test. With MPI it links
# ompbench::mpi instead (a main() that runs the rounds across MPI ranks; run
# it with mpirun) and registers no smoke test: it needs a launcher.
# __FILE__ is mapped relative to the project source directory, so benchmark
# URIs read "benches/examples.c::name[arg]" wherever the tree is checked out.
#
# A project configured without CMAKE_BUILD_TYPE (CMake's default for
# single-configuration generators) compiles with no optimization flag at
# all, i.e. -O0: the benchmark would measure unoptimized code (marked
# "unoptimized" in every report). There the benchmark gets the project's
# Release flags (CMAKE_<LANG>_FLAGS_RELEASE, e.g. -O3 -DNDEBUG) for its C,
# C++ and Fortran sources, and a message says so once per project and
# language (naming the language: "C++: -O3 -DNDEBUG"); set
# CMAKE_BUILD_TYPE (Debug, say) to choose yourself. Only the benchmark
# target is affected, never the rest of the project.
function(ompbench__default_release_flags name langs)
  get_property(multi GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(CMAKE_BUILD_TYPE OR multi)
    return()
  endif()
  foreach(lang ${langs})
    separate_arguments(flags UNIX_COMMAND "${CMAKE_${lang}_FLAGS_RELEASE}")
    target_compile_options(${name} PRIVATE "$<$<COMPILE_LANGUAGE:${lang}>:${flags}>")
    get_property(told DIRECTORY ${PROJECT_SOURCE_DIR} PROPERTY OMPB_RELEASE_DEFAULT_TOLD_${lang})
    if(NOT told)
      set_property(DIRECTORY ${PROJECT_SOURCE_DIR} PROPERTY OMPB_RELEASE_DEFAULT_TOLD_${lang} ON)
      string(REPLACE "CXX" "C++" shown ${lang})
      message(STATUS "ompbench_add_benchmark: CMAKE_BUILD_TYPE is empty, so benchmarks "
        "are built with the Release flags (${shown}: ${CMAKE_${lang}_FLAGS_RELEASE}); set "
        "CMAKE_BUILD_TYPE to choose the build type yourself")
    endif()
  endforeach()
endfunction()

# ompbench__source_languages(<out> <source>...): the languages among C, CXX
# and Fortran of the sources: a source's LANGUAGE property, else its
# extension as the enabled languages list them
# (CMAKE_<LANG>_SOURCE_FILE_EXTENSIONS).
function(ompbench__source_languages out)
  set(langs "")
  foreach(src ${ARGN})
    get_source_file_property(lang ${src} LANGUAGE)
    if(NOT lang)
      get_filename_component(ext ${src} LAST_EXT)
      string(SUBSTRING "${ext}" 1 -1 ext)
      foreach(candidate C CXX Fortran)
        if(ext IN_LIST CMAKE_${candidate}_SOURCE_FILE_EXTENSIONS)
          set(lang ${candidate})
          break()
        endif()
      endforeach()
    endif()
    if(lang MATCHES "^(C|CXX|Fortran)$" AND NOT lang IN_LIST langs)
      list(APPEND langs ${lang})
    endif()
  endforeach()
  set(${out} ${langs} PARENT_SCOPE)
endfunction()

function(ompbench_add_benchmark name)
  cmake_parse_arguments(OMPB_AB "MPI" "" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT OMPB_AB_SOURCES)
    message(FATAL_ERROR "ompbench_add_benchmark(${name}): SOURCES is required")
  endif()
  add_executable(${name} ${OMPB_AB_SOURCES})
  if(OMPB_AB_MPI)
    target_link_libraries(${name} PRIVATE ompbench::mpi ${OMPB_AB_LIBRARIES})
  else()
    target_link_libraries(${name} PRIVATE ompbench::main ${OMPB_AB_LIBRARIES})
  endif()
  # OpenMP for every language of the sources: the package config found it
  # for the languages enabled before find_package(ompbench); a language
  # enabled after it is found here.
  ompbench__source_languages(langs ${OMPB_AB_SOURCES})
  foreach(lang ${langs})
    if(NOT TARGET OpenMP::OpenMP_${lang})
      find_package(OpenMP REQUIRED COMPONENTS ${lang})
    endif()
    target_link_libraries(${name} PRIVATE OpenMP::OpenMP_${lang})
  endforeach()
  target_compile_options(${name} PRIVATE
    "$<$<COMPILE_LANGUAGE:C,CXX>:-fmacro-prefix-map=${PROJECT_SOURCE_DIR}/=>")
  ompbench__default_release_flags(${name} "${langs}")
  if(COMMAND ompb_target_warnings)
    ompb_target_warnings(${name})
  endif()
  # add_test is inert where testing is not enabled; BUILD_TESTING=OFF opts out.
  if((NOT DEFINED BUILD_TESTING OR BUILD_TESTING) AND NOT OMPB_AB_MPI)
    add_test(NAME bench.${name} COMMAND ${name} --test)
  endif()
endfunction()
