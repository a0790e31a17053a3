#!/usr/bin/env bash
# Installs the library into a temporary DESTDIR and builds + runs
# examples/cluster_basics.c out of tree with `pkg-config --cflags --libs netsched`,
# the way a consumer would. Usage: tests/pkgconfig.sh [build-output-dir]
# The nested make runs without SANITIZE (and without the parent's MAKEFLAGS),
# so under `make sanitize` it still installs and tests the normal build.
set -u
out=${1:-lib}  # build output in use (for messages)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { if "$@"; then pass=$((pass + 1)); else echo "FAILED: $*"; fail=$((fail + 1)); fi; }

prefix=/usr/local
# The consumer build is a plain one: do not inherit SANITIZE=1 from `make sanitize`
# (an uninstrumented program cannot load an ASan-built library).
if env -u SANITIZE MAKEFLAGS= make -s install DESTDIR="$tmp/root" PREFIX=$prefix >"$tmp/install.log" 2>&1; then
  pass=$((pass + 1))
  export PKG_CONFIG_PATH="$tmp/root$prefix/lib/pkgconfig"
  export PKG_CONFIG_SYSROOT_DIR="$tmp/root"
  check test "$(pkg-config --modversion netsched)" = "$(sed -n 's/^#define NS_VERSION_STRING "\(.*\)"/\1/p' include/netsched.h)"
  check test -L "$tmp/root$prefix/lib/libnetsched.so.0"
  # shellcheck disable=SC2046
  check cc -std=c11 -Wall -Werror examples/cluster_basics.c -o "$tmp/cluster_basics" \
    $(pkg-config --cflags --libs netsched)
  check env LD_LIBRARY_PATH="$tmp/root$prefix/lib" "$tmp/cluster_basics"
  # the simulator CLI runs from the install tree against the installed library
  check env LD_LIBRARY_PATH="$tmp/root$prefix/lib" "$tmp/root$prefix/bin/netsched-sim" --list
  make -s uninstall DESTDIR="$tmp/root" PREFIX=$prefix >/dev/null 2>&1
  check test ! -e "$tmp/root$prefix/bin/netsched-sim"
  check test ! -e "$tmp/root$prefix/lib/libnetsched.so.0"
  check test ! -e "$tmp/root$prefix/include/netsched.h"
else
  cat "$tmp/install.log"
  fail=$((fail + 1))
fi
echo "(library from $out)"
echo "pkgconfig: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
