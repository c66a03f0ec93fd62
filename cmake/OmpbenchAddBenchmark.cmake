# SPDX-License-Identifier: MIT
# ompbench_add_benchmark(<name> SOURCES <file.c>... [LIBRARIES <lib>...])
#
# Builds a benchmark executable linked to ompbench::main (which provides main())
# and, unless BUILD_TESTING is OFF, registers the CTest smoke test
# "bench.<name>" that runs every instance once with --test.
# __FILE__ is mapped relative to the project source directory, so benchmark
# URIs read "benches/examples.c::name[arg]" wherever the tree is checked out.
function(ompbench_add_benchmark name)
  cmake_parse_arguments(OMPB_AB "" "" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT OMPB_AB_SOURCES)
    message(FATAL_ERROR "ompbench_add_benchmark(${name}): SOURCES is required")
  endif()
  add_executable(${name} ${OMPB_AB_SOURCES})
  target_link_libraries(${name} PRIVATE ompbench::main ${OMPB_AB_LIBRARIES})
  target_compile_options(${name} PRIVATE "-fmacro-prefix-map=${PROJECT_SOURCE_DIR}/=")
  if(COMMAND ompb_target_warnings)
    ompb_target_warnings(${name})
  endif()
  # add_test is inert where testing is not enabled; BUILD_TESTING=OFF opts out.
  if(NOT DEFINED BUILD_TESTING OR BUILD_TESTING)
    add_test(NAME bench.${name} COMMAND ${name} --test)
  endif()
endfunction()
