#!/usr/bin/env bash
# Installs the library the way a user does and builds consumers against it:
#  1. `make install PREFIX=<non-default dir>` (no DESTDIR): the installed .pc
#     and CMake package name that prefix; a pkg-config consumer and a CMake
#     consumer (find_package(netsched CONFIG), netsched::netsched) build and
#     run; a program linked without an rpath does NOT find libnetsched.so.0
#     (docs/building.md "Running against a non-system prefix" explains both fixes,
#     tested here); man pages and bash completion land; uninstall removes
#     every file it installed.
#  2. `make install PREFIX=/opt/ns DESTDIR=<stage>` (packaging): files land
#     under the stage and say /opt/ns, never the stage or /usr/local.
# The nested make runs without SANITIZE (and without the parent's MAKEFLAGS),
# so under `make sanitize` it still installs and tests the normal build.
# Usage: tests/install.sh [build-output-dir]
set -u
out=${1:-lib}  # build output in use (for messages)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 skip=0
check() {  # quiet on success; the command's output on failure
  if "$@" >"$tmp/check.out" 2>&1; then pass=$((pass + 1))
  else echo "FAILED: $*"; cat "$tmp/check.out"; fail=$((fail + 1)); fi
}
has() { grep -qF -- "$2" "$1" || { echo "  $1 lacks '$2':"; cat "$1"; return 1; }; }
version=$(sed -n 's/^#define NS_VERSION_STRING "\(.*\)"/\1/p' include/netsched.h)
nmake() { env -u SANITIZE MAKEFLAGS= make -s "$@" >"$tmp/make.log" 2>&1 || { cat "$tmp/make.log"; return 1; }; }

# ---- 1. a real install into a non-default prefix ---------------------------
prefix="$tmp/opt/netsched"
if nmake install PREFIX="$prefix"; then
  pass=$((pass + 1))
  export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
  check has "$prefix/lib/pkgconfig/netsched.pc" "prefix=$prefix"
  check test "$(pkg-config --modversion netsched)" = "$version"
  check test "$(pkg-config --variable=libdir netsched)" = "$prefix/lib"
  check test -L "$prefix/lib/libnetsched.so.0"
  # shellcheck disable=SC2046
  check cc -std=c11 -Wall -Werror examples/cluster_basics.c -o "$tmp/plain" \
    $(pkg-config --cflags --libs netsched)
  # Without an rpath the loader cannot find the library in a non-system prefix...
  check bash -c "! env -u LD_LIBRARY_PATH '$tmp/plain' >/dev/null 2>&1"
  # ... LD_LIBRARY_PATH fixes that for one run ...
  check env LD_LIBRARY_PATH="$prefix/lib" "$tmp/plain"
  # ... and an rpath taken from pkg-config fixes it for good (the README C example's line).
  # shellcheck disable=SC2046
  check cc -std=c11 -Wall -Werror examples/cluster_basics.c -o "$tmp/rpath" \
    $(pkg-config --cflags --libs netsched) -Wl,-rpath,"$(pkg-config --variable=libdir netsched)"
  check env -u LD_LIBRARY_PATH "$tmp/rpath"
  # the installed CLI carries the rpath of its LIBDIR
  check env -u LD_LIBRARY_PATH "$prefix/bin/netsched-sim" --version
  for f in share/man/man1/netsched-sim.1 share/man/man3/libnetsched.3 \
           share/bash-completion/completions/netsched-sim \
           lib/cmake/netsched/netsched-config.cmake lib/cmake/netsched/netsched-config-version.cmake; do
    check test -s "$prefix/$f"
  done
  # every function or type libnetsched(3) names is declared in the public headers
  for f in $(grep -o '^\.BR* ns_[a-z0-9_]*' share/man/libnetsched.3 | awk '{print $2}' | sort -u); do
    check grep -qw "$f" include/netsched.h include/netsched/*.h
  done
  # every option of --help is documented in the man page
  for o in $("$prefix/bin/netsched-sim" --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
    check grep -q -- "$(printf '%s' "$o" | sed 's/-/\\\\-/g')" "$prefix/share/man/man1/netsched-sim.1"
  done
  if command -v man >/dev/null; then
    check bash -c "MANPATH='$prefix/share/man' man -P cat netsched-sim 2>/dev/null | grep -q -- '--policy'"
  fi
  # netsched-slurm (built where libslurm's header is): its man page lands and
  # describes every option of its --help
  if [ -x "$prefix/bin/netsched-slurm" ]; then
    check env -u LD_LIBRARY_PATH "$prefix/bin/netsched-slurm" --version
    check test -s "$prefix/share/man/man1/netsched-slurm.1"
    for o in $("$prefix/bin/netsched-slurm" --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
      check grep -q -- "$(printf '%s' "$o" | sed 's/-/\\\\-/g')" "$prefix/share/man/man1/netsched-slurm.1"
    done
  elif [ -e /usr/include/slurm/slurm.h ]; then
    echo "FAILED: netsched-slurm not installed although slurm/slurm.h is present"; fail=$((fail + 1))
  fi
  # bash completion: options, policy names (from --list), enumerated values (from --help)
  comp() {  # comp WORD... -> the completions of the last word
    env -u LD_LIBRARY_PATH PATH="$prefix/bin:$PATH" bash -c '
      source "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _netsched_sim; echo "${COMPREPLY[*]}"' \
      "$prefix/share/bash-completion/completions/netsched-sim" "$@"
  }
  check test "$(comp netsched-sim --polic)" = "--policy"
  check test "$(comp netsched-sim --policy ff,lwf)" = "ff,lwf-1"
  check test "$(comp netsched-sim --network ph)" = "phase"
  if command -v cmake >/dev/null; then
    mkdir -p "$tmp/cm"
    cp examples/cluster_basics.c "$tmp/cm/"
    cat > "$tmp/cm/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.13)
project(consumer C)
find_package(netsched 0.1 CONFIG REQUIRED)
add_executable(cluster_basics cluster_basics.c)
target_link_libraries(cluster_basics PRIVATE netsched::netsched)
EOF
    if (cd "$tmp/cm" && cmake -S . -B build -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/cmake.log" 2>&1 &&
        cmake --build build >>"$tmp/cmake.log" 2>&1); then
      pass=$((pass + 1))
      # CMake's build tree links with the imported library's directory as rpath
      check env -u LD_LIBRARY_PATH "$tmp/cm/build/cluster_basics"
    else
      cat "$tmp/cmake.log"; echo "FAILED: CMake consumer"; fail=$((fail + 1))
    fi
    # a major version the package is not must be refused
    sed -i 's/find_package(netsched 0.1 /find_package(netsched 1.0 /' "$tmp/cm/CMakeLists.txt"
    check bash -c "! (cd '$tmp/cm' && cmake -S . -B build2 -DCMAKE_PREFIX_PATH='$prefix' >/dev/null 2>&1)"
  else
    echo "SKIP: CMake consumer - cmake is not installed (Debian package cmake, in .ci/run)"
    skip=$((skip + 1))
  fi
  # the Python package: docs/python.md's one command, into a fresh venv, offline; it
  # finds the library of this prefix with no environment variable set
  venv="$tmp/venv"
  if nmake install-python PREFIX="$prefix" VENV="$venv"; then
    pass=$((pass + 1))
    check bash -c "cd '$tmp' && env -u NETSCHED_LIBRARY -u LD_LIBRARY_PATH -u PYTHONPATH '$venv/bin/python' -c '
import netsched, os, sys
assert netsched.__file__.startswith(\"$venv/\"), netsched.__file__
assert netsched.library_path == \"$prefix/lib/libnetsched.so.0\", netsched.library_path
assert netsched.version() == \"$version\"
pkg = os.path.dirname(netsched.__file__)
assert os.path.exists(os.path.join(pkg, \"py.typed\")) and os.path.exists(os.path.join(pkg, \"netsched.cdef\"))
'"
  else
    fail=$((fail + 1))
  fi
  check test -s "$prefix/share/netsched/netsched.cdef"
  nmake uninstall PREFIX="$prefix"
  left=$(find "$prefix" -type f -o -type l 2>/dev/null)
  check test -z "$left"
  [ -z "$left" ] || echo "  uninstall left: $left"
else
  fail=$((fail + 1))
fi

# ---- 2. a staged install (DESTDIR) for packaging ---------------------------
stage="$tmp/stage"
if nmake install PREFIX=/opt/ns DESTDIR="$stage"; then
  pass=$((pass + 1))
  check has "$stage/opt/ns/lib/pkgconfig/netsched.pc" "prefix=/opt/ns"
  check has "$stage/opt/ns/lib/cmake/netsched/netsched-config.cmake" "/opt/ns/lib/libnetsched.so.$version"
  check has "$stage/opt/ns/lib/cmake/netsched/netsched-config.cmake" "/opt/ns/include"
  check bash -c "! grep -rq -e '$stage' -e /usr/local '$stage/opt/ns/lib/pkgconfig' '$stage/opt/ns/lib/cmake'"
  export PKG_CONFIG_PATH="$stage/opt/ns/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$stage"
  # shellcheck disable=SC2046
  check cc -std=c11 -Wall -Werror examples/cluster_basics.c -o "$tmp/staged" \
    $(pkg-config --cflags --libs netsched)
  unset PKG_CONFIG_SYSROOT_DIR
else
  fail=$((fail + 1))
fi
echo "(library from $out)"
echo "install: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
