# SPDX-License-Identifier: MIT
# ompbench_add_benchmark(<name> [MPI] SOURCES <file.c>... [LIBRARIES <lib>...])
#
# Builds a benchmark executable linked to ompbench::main (which provides main())
# and, unless BUILD_TESTING is OFF, registers the CTest smoke test
# "bench.<name>" that runs every instance once with --test. With MPI it links
# ompbench::mpi instead (a main() that runs the rounds across MPI ranks; run
# it with mpirun) and registers no smoke test: it needs a launcher.
# __FILE__ is mapped relative to the project source directory, so benchmark
# URIs read "benches/examples.c::name[arg]" wherever the tree is checked out.
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
  target_compile_options(${name} PRIVATE "-fmacro-prefix-map=${PROJECT_SOURCE_DIR}/=")
  if(COMMAND ompb_target_warnings)
    ompb_target_warnings(${name})
  endif()
  # add_test is inert where testing is not enabled; BUILD_TESTING=OFF opts out.
  if((NOT DEFINED BUILD_TESTING OR BUILD_TESTING) AND NOT OMPB_AB_MPI)
    add_test(NAME bench.${name} COMMAND ${name} --test)
  endif()
endfunction()
