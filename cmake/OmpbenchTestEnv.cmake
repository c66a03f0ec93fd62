# SPDX-License-Identifier: MIT
# No test talks to a runner it did not start. Every test gets runner FIFO
# paths that do not exist (a test that starts its own runner sets its own
# paths) and none of the variables a CodSpeed runner sets, nor OMPB_RUNNER (removed through
# ENVIRONMENT_MODIFICATION, which ctest before CMake 3.22 ignores), so a runner, or
# any other program holding /tmp/runner.ctl.fifo and /tmp/runner.ack.fifo,
# cannot change what a test sees. With OMPB_TEST_FOREIGN_RUNNER (default
# ON) every test also requires the fixture "foreign_runner"
# (tests/foreign_runner.sh): a fake runner holds the default FIFOs while the
# suite runs and its cleanup test fails if any frame reached it.
option(OMPB_TEST_FOREIGN_RUNNER
  "Hold the default runner FIFOs with a fake runner while the tests run" ON)
set(OMPB_NO_RUNNER_DIR ${PROJECT_BINARY_DIR}/tests/no-runner-here)

# Every test finds Debian's python3 first in its PATH: the interpreter
# tools/install-deps.sh installs with the modules the tests import
# (python3-scipy, python3-yaml). An interpreter earlier in the PATH is not
# only another one: a pyenv shim (as on this project's machines) is a
# shell script that starts about ten processes before Python: 0.45 s of
# CPU a call against 0.04 s for Debian's, idle. (Most scripts name
# /usr/bin/python3 already; a whole Release ctest took as much CPU with
# this as without, 981 s against 987 s on a slow host.)
find_program(OMPB_TEST_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
set(OMPB_TEST_BIN_DIR ${PROJECT_BINARY_DIR}/tests/bin)
if(OMPB_TEST_PYTHON3)
  file(MAKE_DIRECTORY ${OMPB_TEST_BIN_DIR})
  file(CREATE_LINK ${OMPB_TEST_PYTHON3} ${OMPB_TEST_BIN_DIR}/python3 SYMBOLIC)
endif()

# ompb_isolate_tests(): applies the above to every test of the calling
# directory; call it at the end of each CMakeLists.txt that adds tests
# (set_property(TEST) reaches only the current directory's tests). It also
# labels each test without a label by the part of its name before the
# first dot (unit, integration, contributing, boundary, docs, valgrind,
# bench, ...), so that `ctest -L unit` and `make check` select by kind.
function(ompb_isolate_tests)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(t IN LISTS tests)
    get_property(labels TEST ${t} PROPERTY LABELS)
    if(NOT labels AND t MATCHES "^([^.]+)\\.")
      set_property(TEST ${t} PROPERTY LABELS ${CMAKE_MATCH_1})
    endif()
    if(t MATCHES "^foreign_runner\\.")
      continue()
    endif()
    set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT
      "OMPB_RUNNER_CTL_FIFO=${OMPB_NO_RUNNER_DIR}/runner.ctl.fifo"
      "OMPB_RUNNER_ACK_FIFO=${OMPB_NO_RUNNER_DIR}/runner.ack.fifo")
    set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT_MODIFICATION
      "CODSPEED_ENV=unset:" "CODSPEED_RUNNER_MODE=unset:" "CODSPEED_PROFILE_FOLDER=unset:"
      "OMPB_RUNNER=unset:")
    if(OMPB_TEST_PYTHON3)
      set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT_MODIFICATION
        "PATH=path_list_prepend:${OMPB_TEST_BIN_DIR}")
    endif()
    if(OMPB_TEST_FOREIGN_RUNNER)
      set_property(TEST ${t} APPEND PROPERTY FIXTURES_REQUIRED foreign_runner)
    endif()
  endforeach()
endfunction()
