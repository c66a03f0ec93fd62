#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Where output may go (lib/core/outfile.c), for every writer: the benchmark
# binary's --output and --topology-xml, compare --output, scaling --output
# and --svg, collect --json. Regular files are replaced atomically, also
# through symbolic links (the link stays, the file behind it keeps its
# mode); a 250-byte file name works; a hard link gets the new content under
# the name given only (documented). Anything else is written directly:
# FIFOs reach their reader, /dev/stdout and >(cmd) work, /dev/full is an
# error (exit 2). Device nodes are only ever touched as root inside a
# private mount namespace with a tmpfs on /dev (skipped otherwise); as a
# non-root user the real /dev/null is used, which that user cannot replace.
# Usage: output_targets.sh BUILD_DIR SOURCE_DIR
. "$(dirname "$0")/lib.sh" "$@"
bin=$build/benches/examples
tool=$build/tools/ompbench
data=$src/tests/data/compare
chmod 755 "$tmp"

# Each writer as a function of its output path.
w_output() { timeout 60 "$bin" --filter '^count_set_bits\[42\]$' --test --format csv --output "$1"; }
w_topology() { timeout 60 "$bin" --filter '^count_set_bits\[42\]$' --show-plan --topology-xml "$1" >/dev/null; }
w_compare() { timeout 60 "$tool" compare --output "$1" "$data/base.json" "$data/head.json"; }
w_scaling() { timeout 60 "$tool" scaling --output "$1" "$data/scaling.json"; }
w_svg() { timeout 60 "$tool" scaling --svg "$1" "$data/scaling.json" >/dev/null; }
w_collect() {
  timeout 60 "$tool" collect --json "$1" -- "$bin" --filter '^count_set_bits\[42\]$' --test \
    --format csv >/dev/null
}
writers=(w_output w_topology w_compare w_scaling w_svg w_collect)

# ---- regular files -----------------------------------------------------
for w in "${writers[@]}"; do
  d=$tmp/$w
  mkdir -p "$d/real/sub" "$d/links"
  # A relative link to a relative link to a 0600 file in another directory.
  echo old > "$d/real/sub/r.out"
  chmod 600 "$d/real/sub/r.out"
  ln -s ../real/sub/r.out "$d/links/hop"
  ln -s hop "$d/links/link.out"
  "$w" "$d/links/link.out" 2> "$d/err" || { fail "$w: through a symlink: exit $?"; cat "$d/err"; }
  [ -L "$d/links/link.out" ] && [ -L "$d/links/hop" ] || fail "$w: the symlinks were replaced"
  [ -f "$d/real/sub/r.out" ] && ! grep -qx old "$d/real/sub/r.out" && [ -s "$d/real/sub/r.out" ] ||
    fail "$w: the file behind the links did not get the output"
  [ "$(stat -c %a "$d/real/sub/r.out")" = 600 ] || fail "$w: mode $(stat -c %a "$d/real/sub/r.out"), not 600"
  ls "$d/real/sub" "$d/links" | grep -q '\.tmp\.' && fail "$w: temporary file left"
  # A dangling link creates its target, as a shell redirection would.
  ln -s ../real/new.out "$d/links/dangling"
  "$w" "$d/links/dangling" 2> "$d/err" || fail "$w: dangling link: exit $?"
  [ -L "$d/links/dangling" ] && [ -s "$d/real/new.out" ] || fail "$w: dangling link not written through"
  # A name of 250 bytes (the temporary name must fit NAME_MAX, 255).
  long=$(printf 'n%.0s' $(seq 250))
  "$w" "$d/$long" 2> "$d/err" || { fail "$w: 250-byte name: exit $?"; cat "$d/err"; }
  [ -s "$d/$long" ] || fail "$w: 250-byte name not written"
  # Hard links: the name given gets a new file, the other keeps the old one.
  echo old > "$d/h1"
  ln "$d/h1" "$d/h2"
  "$w" "$d/h1" 2> "$d/err" || fail "$w: hard link: exit $?"
  grep -qx old "$d/h2" && ! grep -qx old "$d/h1" || fail "$w: hard link behaviour differs from the docs"
done

# ---- FIFOs: the report reaches the reader; the FIFO stays a FIFO --------
for w in "${writers[@]}"; do
  f=$tmp/$w.fifo
  mkfifo "$f"
  timeout 60 cat "$f" > "$tmp/$w.got" &
  reader=$!
  "$w" "$f" 2> "$tmp/err" || { fail "$w: FIFO: exit $?"; cat "$tmp/err"; }
  wait "$reader" || fail "$w: the FIFO's reader did not finish"
  [ -p "$f" ] || fail "$w: the FIFO was replaced"
  [ -s "$tmp/$w.got" ] || fail "$w: the FIFO's reader got nothing"
done

# ---- descriptors and device nodes ------------------------------------------
# Everything below names paths in /dev. A writer that wrongly replaces its
# target would, as root, replace the machine's /dev/stdout or /dev/null:
# so as root it runs only in a private mount namespace whose /dev is a
# fresh tmpfs, and as an unprivileged user (nobody), who cannot write /dev.
# dev_checks DIR prints one line per failure.
dev_checks() {
  local d=$1 w rc
  for w in w_output w_compare w_scaling; do
    "$w" /dev/stdout > "$d/stdout.out" 2> "$d/err" || { echo "FAIL: $w: /dev/stdout: exit $?"; cat "$d/err"; }
    [ -s "$d/stdout.out" ] || echo "FAIL: $w: /dev/stdout got nothing"
    rm -f "$d/sub.out"
    "$w" >(cat > "$d/sub.out") 2> "$d/err" || { echo "FAIL: $w: >(cmd): exit $?"; cat "$d/err"; }
    # The reader is a process of its own: wait for it (bash waits for the
    # last process substitution by $!), then poll as a fallback. This runs
    # in a child bash, where $mult is exported (unset, the poll did not
    # wait at all, and a loaded machine once lost the race).
    wait "$!" 2> /dev/null
    for _ in $(seq $((100 * ${mult:-1}))); do
      [ -s "$d/sub.out" ] && break; sleep 0.05
    done
    [ -s "$d/sub.out" ] || echo "FAIL: $w: >(cmd) got nothing"
  done
  for w in w_svg w_collect; do
    "$w" /dev/fd/3 3> "$d/fd3.out" 2> "$d/err" || echo "FAIL: $w: /dev/fd/3: exit $?"
    [ -s "$d/fd3.out" ] || echo "FAIL: $w: /dev/fd/3 got nothing"
  done
  # A closed descriptor is an error that names the path, exit 2.
  w_compare /dev/fd/9 2> "$d/err"
  rc=$?
  [ $rc -eq 2 ] && grep -qF /dev/fd/9 "$d/err" || echo "FAIL: compare --output /dev/fd/9 (closed): exit $rc"
  for w in "${writers[@]}"; do
    "$w" /dev/null 2> "$d/err" || { echo "FAIL: $w: /dev/null: exit $?"; cat "$d/err"; }
    [ -c /dev/null ] || echo "FAIL: $w: /dev/null is no longer a character device"
    "$w" /dev/full 2> "$d/err"
    rc=$?
    [ $rc -eq 2 ] && grep -qF "No space left on device" "$d/err" ||
      { echo "FAIL: $w: /dev/full: exit $rc (want 2, 'No space left on device')"; cat "$d/err"; }
    [ -c /dev/full ] || echo "FAIL: $w: /dev/full is no longer a character device"
  done
  [ -L /dev/stdout ] || echo "FAIL: /dev/stdout is no longer a symbolic link"
}
export -f dev_checks "${writers[@]}"
export bin tool data mult writers_s="${writers[*]}"
run_checks() { # run_checks DIR [PREFIX...]: dev_checks as the prefix says
  local d=$1
  shift
  "$@" bash -c 'writers=($writers_s); dev_checks "$1"' bash "$d"
}

if [ "$(id -u)" -ne 0 ]; then
  out=$(run_checks "$tmp")
  [ -z "$out" ] || { echo "$out"; fails=$((fails + 1)); }
else
  if unshare -m --propagation private true 2>/dev/null; then
    out=$(unshare -m --propagation private bash -c '
      mount -t tmpfs ompb-test-dev /dev || { echo SKIP; exit 0; }
      mknod -m 666 /dev/null c 1 3 && mknod -m 666 /dev/full c 1 7 || { echo SKIP; exit 0; }
      ln -s /proc/self/fd /dev/fd && ln -s /proc/self/fd/1 /dev/stdout || { echo SKIP; exit 0; }
      writers=($writers_s)
      dev_checks "$1"' bash "$tmp")
    if [ "$out" = SKIP ]; then
      echo "output_targets: note: no tmpfs on /dev in a mount namespace here; root device checks skipped"
    elif [ -n "$out" ]; then
      echo "$out (as root, private /dev)"; fails=$((fails + 1))
    fi
  else
    echo "output_targets: note: unshare -m is not permitted here; root device checks skipped"
  fi
  nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  if "${nobody[@]}" test -x "$bin" -a -x "$tool" -a -r "$data/base.json" 2>/dev/null; then
    mkdir "$tmp/nobody" && chmod 777 "$tmp/nobody"
    out=$(run_checks "$tmp/nobody" "${nobody[@]}")
    [ -z "$out" ] || { echo "$out (as nobody)"; fails=$((fails + 1)); }
  else
    echo "output_targets: note: user nobody cannot run the build here; unprivileged device checks skipped"
  fi
fi

[ $fails -eq 0 ] && echo "output_targets: all targets written as documented"
[ $fails -eq 0 ]
