# SPDX-License-Identifier: MIT
# Warnings per target, never through global flags.
function(ompb_target_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
    -Wstrict-prototypes -Wmissing-prototypes -Wno-unknown-pragmas)
  if(OMPB_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
