#!/usr/bin/env bash
# Writes cffi declarations of the public C API to stdout, generated from
# include/netsched.h by the C preprocessor (so they cannot drift from it):
#   ffi = cffi.FFI(); ffi.cdef(open("netsched.cdef").read()); lib = ffi.dlopen("libnetsched.so.0")
# <stddef.h> and <stdint.h> are replaced by empty files (cffi knows size_t,
# uint64_t, ...); integer #defines NS_* are kept (cffi's "#define X 1").
# Usage: gen_cdef.sh [include-dir] [cc]
set -euo pipefail
inc=${1:-include}
cc=${2:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/sys"
: > "$tmp/sys/stddef.h"
: > "$tmp/sys/stdint.h"
version=$(sed -n 's/^#define NS_VERSION_STRING "\(.*\)"/\1/p' "$inc/netsched.h")
echo "/* netsched.cdef - cffi declarations of libnetsched $version, generated from"
echo "   <netsched.h> by gen_cdef.sh; do not edit. */"
"$cc" -E -dM -nostdinc -I"$tmp/sys" -I"$inc" "$inc/netsched.h" |
  grep -E '^#define NS_[A-Z0-9_]+ -?[0-9]+$' | grep -v '^#define NS_API' | sort
"$cc" -E -P -nostdinc -I"$tmp/sys" -I"$inc" "$inc/netsched.h" | grep -v '^[[:space:]]*$'
