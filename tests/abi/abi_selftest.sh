#!/usr/bin/env bash
# tests/abi/abi_selftest.sh - proves that `make abi-check` catches what it
# must, on scratch copies of the library (the committed tree is untouched):
#   baseline absent            -> skip message, exit 0
#   unchanged library          -> pass
#   a function added           -> pass (additions are compatible)
#   a function removed         -> FAIL
#   a parameter type changed   -> FAIL
# Usage: tests/abi/abi_selftest.sh OUT OBJ "LIB_LIBS" (run by make abi-selftest)
set -u
out=${1:-lib}
obj=${2:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { echo "ok: $*"; pass=$((pass + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }

so=$(find "$out" -maxdepth 1 -name "libnetsched.so.*.*.*" 2>/dev/null | head -n1)
objs=$(find "$obj/obj/src" -name '*.o' | sort)
if [ -z "$so" ] || [ -z "$objs" ]; then
  echo "abi-selftest: build the library first (make lib)"
  exit 1
fi
soname=$(readelf -d "$so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
# The library's link libraries come from the Makefile (LIB_LIBS), so the
# scratch copies link exactly like the real one.
libs=${3:?usage: abi_selftest.sh OUT OBJ "LIB_LIBS"}
relink() { # relink <output.so> <version-script> <objects...>
  local dst=$1 map=$2
  shift 2
  # shellcheck disable=SC2086
  ${CC:-cc} -shared -Wl,-soname,"$soname" -Wl,--version-script="$map" -Wl,--no-undefined \
    -o "$dst" "$@" $libs
}
abicheck() { # abicheck <baseline> <library> <headers>
  make -s --no-print-directory abi-check ABI_BASELINE="$1" ABI_LIB="$2" ABI_HEADERS="$3" \
    >"$tmp/check.log" 2>&1
}

# 1. No baseline: a clear skip, not a failure.
if abicheck "$tmp/absent.abi" "$so" include && grep -q "SKIPPED - no baseline" "$tmp/check.log"; then
  ok "absent baseline skips"
else
  bad "absent baseline"; cat "$tmp/check.log"
fi

# 2. Baseline of the current library; the library itself is compatible.
if ! make -s --no-print-directory abi-dump ABI_BASELINE="$tmp/base.abi" >"$tmp/dump.log" 2>&1; then
  cat "$tmp/dump.log"
  echo "abi-selftest: 0 passed, 1 failed"
  exit 1
fi
if abicheck "$tmp/base.abi" "$so" include; then ok "unchanged library passes"; else
  bad "unchanged library"; cat "$tmp/check.log"; fi

# 3. An added exported function is compatible.
printf '%s\n' '__attribute__((visibility("default"))) int ns_abi_selftest_added(int x);' \
  'int ns_abi_selftest_added(int x) { return x + 1; }' >"$tmp/added.c"
${CC:-cc} -g -fPIC -c "$tmp/added.c" -o "$tmp/added.o"
# shellcheck disable=SC2086
relink "$tmp/added.so" lib/libnetsched.map $objs "$tmp/added.o"
if abicheck "$tmp/base.abi" "$tmp/added.so" include; then ok "added function passes"; else
  bad "added function"; cat "$tmp/check.log"; fi

# 4. A removed function (hidden by the version script) must fail.
victim=ns_job_clear_phases
sed "s/^  local:/  local:\n    $victim;/" lib/libnetsched.map >"$tmp/removed.map"
# shellcheck disable=SC2086
relink "$tmp/removed.so" "$tmp/removed.map" $objs
if nm -D --defined-only "$tmp/removed.so" | grep -q " $victim\$"; then
  bad "scratch library still exports $victim"
elif abicheck "$tmp/base.abi" "$tmp/removed.so" include; then
  bad "removed $victim was not detected"; cat "$tmp/check.log"
elif grep -q "$victim" "$tmp/check.log" && grep -q "abi-check: FAILED" "$tmp/check.log"; then
  ok "removed function fails"
else
  bad "removed function: unexpected report"; cat "$tmp/check.log"
fi

# 5. A changed parameter type (uint64_t -> uint32_t) must fail.
mkdir -p "$tmp/tree"
cp -r include src "$tmp/tree/"
sig_old='ns_job_set_model_bytes(ns_job \*job, uint64_t bytes)'
sig_new='ns_job_set_model_bytes(ns_job *job, uint32_t bytes)'
sed -i "s/$sig_old/$sig_new/" "$tmp/tree/include/netsched/core.h" "$tmp/tree/src/core/job.c"
if ! grep -q 'uint32_t bytes' "$tmp/tree/src/core/job.c"; then
  bad "could not make the scratch change (job.c changed?)"
else
  ${CC:-cc} -std=c11 -g -O2 -fPIC -fvisibility=hidden -DNS_BUILDING -I"$tmp/tree/include" \
    -I"$tmp/tree/src" -c "$tmp/tree/src/core/job.c" -o "$tmp/job.o"
  # shellcheck disable=SC2086
  # shellcheck disable=SC2046 # one object path per word
  relink "$tmp/changed.so" lib/libnetsched.map $(echo "$objs" | grep -v '/core/job\.o$') "$tmp/job.o"
  if abicheck "$tmp/base.abi" "$tmp/changed.so" "$tmp/tree/include"; then
    bad "changed parameter type was not detected"; cat "$tmp/check.log"
  elif grep -q "ns_job_set_model_bytes" "$tmp/check.log"; then
    ok "changed parameter type fails"
  else
    bad "changed parameter type: unexpected report"; cat "$tmp/check.log"
  fi
fi

echo "abi-selftest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
