#!/usr/bin/env bash
# Installs the library into a temporary DESTDIR and builds + runs
# examples/cluster_basics.c out of tree with `pkg-config --cflags --libs netsched`,
# the way a consumer would. Usage: tests/pkgconfig.sh [build-output-dir] [sanitize 0|1]
# (under `make sanitize` the nested make installs the ASan build, so the
# consumer is built with the same sanitizers)
set -u
out=${1:-lib}  # build output in use (for messages)
san_flags=
[ "${2:-0}" = 1 ] && san_flags="-fsanitize=address,undefined"
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
  # shellcheck disable=SC2046,SC2086
  check cc -std=c11 -Wall -Werror $san_flags examples/cluster_basics.c -o "$tmp/cluster_basics" \
    $(pkg-config --cflags --libs netsched)
  check env LD_LIBRARY_PATH="$tmp/root$prefix/lib" "$tmp/cluster_basics"
  make -s uninstall DESTDIR="$tmp/root" PREFIX=$prefix >/dev/null 2>&1
  check test ! -e "$tmp/root$prefix/lib/libnetsched.so.0"
  check test ! -e "$tmp/root$prefix/include/netsched.h"
else
  cat "$tmp/install.log"
  fail=$((fail + 1))
fi
echo "(library from $out)"
echo "pkgconfig: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
