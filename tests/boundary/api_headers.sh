#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The exported functions are exactly the functions the public headers
# declare, and each declaration carries OMPB_API:
# - a function declared in include/ompbench/*.h without OMPB_API fails
#   (it would be hidden: callers of the shared library could not link);
# - an exported ompb_ symbol no header declares with OMPB_API fails;
# - a declared function the library does not export fails (not defined, or
#   defined in a file that does not include its public header);
# - a global function named as public API (ompb_, one underscore) in the
#   library's objects that no public header declares fails: internal names
#   take ompb__.
# Declarations are read as the headers write them: a line at column 0
# outside comments and macro bodies; `static` and `template` helpers are
# inline and never exported.
# Usage: api_headers.sh NM LIBRARY.so INCLUDE_DIR LIBRARY_OBJECTS.a
set -euo pipefail
export LC_ALL=C
nm=${1:-nm} lib=$2 inc=$3 objs=$4

# Header text without comments, preprocessor lines or macro bodies.
declarations() {
  awk '
    { line = $0; out = "" }
    {
      while (line != "") {
        if (incomment) {
          i = index(line, "*/"); if (!i) { line = ""; break }
          line = substr(line, i + 2); incomment = 0; continue
        }
        i = index(line, "/*"); j = index(line, "//")
        if (j && (!i || j < i)) { out = out substr(line, 1, j - 1); line = ""; break }
        if (!i) { out = out line; line = ""; break }
        out = out substr(line, 1, i - 1); line = substr(line, i + 2); incomment = 1
      }
    }
    inmacro { inmacro = (out ~ /\\$/); next }
    out ~ /^[ \t]*#/ { inmacro = (out ~ /\\$/); next }
    out ~ /^(static|template|typedef)[ \t]/ { next }
    out ~ /^[A-Za-z_]/ { print out }
  ' "$@"
}
names() { grep -oE '\bompb_[a-z0-9_]*[a-z0-9][ \t]*\(' | sed -E 's/[ \t]*\($//' | sort -u; }

headers=("$inc"/ompbench.h "$inc"/ompbench/*.h)
decls=$(declarations "${headers[@]}")
declared=$(grep -vE '^OMPB_API[ \t]' <<< "$decls" | names || true)
marked=$(grep -E '^OMPB_API[ \t]' <<< "$decls" | names || true)
exported=$("$nm" -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }' \
           | grep -E '^ompb_[a-z0-9]' | sort -u || true)
defined=$("$nm" -g --defined-only "$objs" 2>/dev/null | awk '$2 ~ /^[TW]$/ { print $3 }' \
          | grep -E '^ompb_[a-z0-9]' | sort -u || true)
count() { sed '/^$/d' <<< "$1" | wc -l; }
fail=0
report() { # report MESSAGE LIST
  [ -n "$2" ] || return 0
  echo "FAIL: $1:"; sed 's/^/    /' <<< "$2"; fail=1
}
report "declared in include/ without OMPB_API" "$declared"
report "exported by $(basename "$lib") but not declared with OMPB_API in include/" \
  "$(comm -23 <(echo "$exported") <(echo "$marked") | sed '/^$/d')"
report "declared with OMPB_API but not exported" \
  "$(comm -13 <(echo "$exported") <(echo "$marked") | sed '/^$/d')"
report "defined in the library under a public name (ompb_) but not declared with OMPB_API in include/" \
  "$(comm -23 <(echo "$defined") <(echo "$marked") | sed '/^$/d')"
# Reading nothing would make every comparison above pass.
[ "$(count "$marked")" -gt 0 ] || { echo "FAIL: no OMPB_API declaration found in $inc"; fail=1; }
[ "$fail" = 0 ] || exit 1
echo "api_headers: $(count "$marked") functions declared with OMPB_API, all exported," \
     "nothing else exported or named as public"
