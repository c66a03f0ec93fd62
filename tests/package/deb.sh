#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian packages of debian/ (issue 32), built, checked and used as a
# user of Debian 12 would. Usage: deb.sh BUILD_DIR SOURCE_DIR
# 1. Copies the source tree (git's files when it is a checkout; else the
#    tree without build directories) into a temporary directory and runs
#    `dpkg-buildpackage -us -uc -b` there (DEB_BUILD_OPTIONS nocheck,
#    noautodbgsym: no tests and no -dbgsym packages, which nothing here
#    reads; noopt: -O0, since what is checked is what the packages hold
#    and that their programs link and run, not their speed: 82 s wall and
#    137 s CPU for the whole test against 107 s and 178 s at -O2, idle;
#    parallel=2). Each step says what it took.
# 2. Runs lintian on the result: any error (E:) fails the test; warnings
#    are printed.
# 3. Checks what the packages hold: the runtime package is named after the
#    library's soname, -dev has the headers, the CMake package, the
#    pkg-config files and the static main() library and no internal header,
#    and the tool prints the packaged version.
# 4. Unpacks every .deb into a scratch root with `dpkg -x` and runs
#    tests/package/consumer.sh against <root>/usr: the out-of-tree C, C++
#    and Fortran benchmarks through find_package(ompbench)
#    (CMAKE_PREFIX_PATH=<root>/usr) and through pkg-config, each run at
#    OMP_NUM_THREADS=2 and checked to have had 2 threads.
#
# Why `dpkg -x`: it unpacks a package's files and nothing else, with no
# package database, no maintainer scripts and no root. `dpkg --root=DIR -i`
# would need a dpkg database in DIR and would refuse the packages, whose
# dependencies (libc6, libhwloc15, libjansson4, libgomp1, libgfortran5) are
# not in an empty root, and run their scripts chrooted there, without a
# shell; `--instdir` would record them in this machine's own database. The
# unpacked libraries use this machine's hwloc, jansson and OpenMP runtime,
# which are the packages' dependencies (tools/install-deps.sh).
#
# Why no PKG_CONFIG_SYSROOT_DIR: ompbench.pc derives its prefix from where
# it is found (${pcfiledir}), so PKG_CONFIG_PATH=<root>/usr/lib/<triplet>/
# pkgconfig already gives paths inside the root, as --define-prefix would;
# a sysroot would also move hwloc's and jansson's -I/-L (Requires) into the
# root, where they are not. Checked below.
#
# Skipped (77) when dpkg-buildpackage, dh or lintian is missing.
script_bound=1800
fail_fast=1
. "$(dirname "$0")/../integration/lib.sh" "$@"
[ -n "$src" ] || { echo "usage: $0 BUILD_DIR SOURCE_DIR" >&2; exit 2; }

for tool in dpkg-buildpackage dh lintian; do
  command -v "$tool" > /dev/null || {
    echo "SKIP: $tool is not installed (tools/install-deps.sh installs it)"; exit 77; }
done

# Runs "$@" with its output in $tmp/$1.log, the end of which is shown when
# it fails.
step() {
  local name=$1 t0=$SECONDS; shift
  "$@" > "$tmp/$name.log" 2>&1 || { tail -n 60 "$tmp/$name.log" >&2; fail "$name: $*"; }
  echo "package.deb: $name took $((SECONDS - t0)) s"
}

mkdir "$tmp/src"
if [ "$(git -C "$src" rev-parse --show-toplevel 2> /dev/null)" = "$src" ]; then
  # Tracked and untracked files, not the ignored ones (build trees); a
  # tracked file deleted in the work tree is left out.
  (cd "$src" && git ls-files -z -co --exclude-standard) |
    tar -C "$src" --null -T - --ignore-failed-read -cf - 2> "$tmp/copy.log" |
    tar -C "$tmp/src" -xf - || fail "could not copy $src"
else
  tar -C "$src" --exclude='./build*' --exclude='./obj-*' --exclude=./.git -cf - . |
    tar -C "$tmp/src" -xf - || fail "could not copy $src"
fi
[ -f "$tmp/src/debian/control" ] || fail "no debian/control in the copy of $src"

step dpkg-buildpackage timeout $((1200 * mult)) env -C "$tmp/src" \
  DEB_BUILD_OPTIONS="noopt nocheck noautodbgsym parallel=2" dpkg-buildpackage -us -uc -b
changes=$(ls "$tmp"/ompbench_*.changes)

# lintian: exit status 1 on an error tag (--fail-on error); its tags shown.
step lintian timeout $((300 * mult)) lintian --fail-on error --tag-display-limit 0 "$changes"
grep -E '^[EW]: ' "$tmp/lintian.log" || true

arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
deb() { ls "$tmp/$1"_*.deb 2> /dev/null || fail "package $1 was not built"; }
holds() { # PACKAGE PATH: the package's file list has ./PATH
  dpkg-deb -c "$(deb "$1")" | awk '{ print $6 }' | grep -x "./$2" > /dev/null || fail "$1 does not hold /$2"
}
lib_deb=$(deb libompbench0.3)
mkdir "$tmp/root"
for f in "$tmp"/*.deb; do
  dpkg -x "$f" "$tmp/root" || fail "dpkg -x $f"
done
libdir=$tmp/root/usr/lib/$arch

# The runtime package carries the soname it is named after.
real=$(readlink -f "$libdir/libompbench.so")
soname=$(objdump -p "$real" | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = libompbench.so.0.3 ] || fail "libompbench's soname is '$soname', not libompbench.so.0.3"
dpkg-deb -c "$lib_deb" | grep "/usr/lib/$arch/$soname " > /dev/null || fail "$soname is not in $lib_deb"
holds libompbench-dev usr/include/ompbench.h
holds libompbench-dev "usr/lib/$arch/cmake/ompbench/ompbench-config.cmake"
holds libompbench-dev "usr/lib/$arch/pkgconfig/ompbench.pc"
holds libompbench-dev "usr/lib/$arch/libompbench_main.a"
holds ompbench usr/bin/ompbench
holds ompbench "usr/lib/$arch/ompbench/libompbench_trace.so"
if dpkg-deb -c "$(deb libompbench-dev)" | grep -E '/usr/include/(round|engine|region_[a-z]+)\.h'; then
  fail "libompbench-dev installs an internal header"
fi
version=$(dpkg-deb -f "$lib_deb" Version)
out=$("$tmp/root/usr/bin/ompbench" --version) || fail "the packaged ompbench --version failed"
[ "$out" = "ompbench ${version%%-*}" ] || fail "ompbench --version says '$out', the package is $version"

# pkg-config through the relocated ompbench.pc (no sysroot: see above).
incdir=$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --variable=includedir ompbench)
[ "$(cd "$incdir" && pwd)" = "$tmp/root/usr/include" ] ||
  fail "ompbench.pc's includedir is $incdir, not the scratch root's"

# The consumer against the unpacked packages; it links the root's
# libompbench (CMake's build rpath, pkg-config's -rpath), not another one.
step consumer bash "$src/tests/package/consumer.sh" "$build" "$src" "$tmp/root/usr"
cat "$tmp/consumer.log"

echo "package.deb: $(cd "$tmp" && ls *.deb | tr '\n' ' ')built, lintian without errors, consumer built and run against them"
