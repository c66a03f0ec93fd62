# SPDX-License-Identifier: MIT
# Sourced by tests/integration/contributing_*.sh (not a test): a copy of
# the source tree (argument 2) to follow one of CONTRIBUTING.md's recipes
# in, removed on exit. Sets src (the source tree) and tree (the copy), and
# defines doc_block FIRST-LINE: the ```c block of CONTRIBUTING.md whose
# first line is FIRST-LINE (other sections have C blocks of their own).
set -euo pipefail
src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -C "$src" --exclude='./build*' --exclude='./.git' -cf - . | tar -C "$tmp" -xf -
tree=$tmp
doc_block() {
  awk -v want="$1" '/^```c$/ { inblock = 1; first = 1; next }
       /^```$/ { inblock = 0; keep = 0; next }
       inblock && first { keep = ($0 == want); first = 0 }
       inblock && keep' "$src/CONTRIBUTING.md"
}
