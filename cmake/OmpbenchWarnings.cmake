# SPDX-License-Identifier: MIT
# Warnings per target, never through global flags. The flags are chosen per
# language of each source, so a target with C, C++ or Fortran sources gets
# only the flags its compiler understands (-Werror would otherwise fail on
# "valid for C but not for C++" notes).
function(ompb_target_warnings target)
  target_compile_options(${target} PRIVATE
    "$<$<COMPILE_LANGUAGE:C,CXX>:-Wall;-Wextra;-Wpedantic;-Wshadow;-Wno-unknown-pragmas>"
    "$<$<COMPILE_LANGUAGE:C>:-Wstrict-prototypes;-Wmissing-prototypes>"
    "$<$<COMPILE_LANGUAGE:Fortran>:-Wall;-Wextra;-Wimplicit-interface>")
  if(OMPB_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
