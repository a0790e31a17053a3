#!/usr/bin/env bash
# Runs every example program of examples/ (built into DIR) and then the
# README's main job, `netsched-sim --all` (the same programs `make demo`
# runs, in the same order). A program that exits non-zero fails the suite,
# so an example that disagrees with the library cannot go unnoticed.
#   tests/examples.sh DIR          output of each program shown (make demo)
#   tests/examples.sh DIR --quiet  output shown only for a failing program
#                                  (make check)
set -u
dir=${1:?usage: tests/examples.sh DIR [--quiet]}
quiet=0
[ "${2:-}" = --quiet ] && quiet=1
[ -d "$dir" ] || { echo "examples: no directory $dir (build it with make examples)"; exit 1; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
pass=0 fail=0 failed=
run() {
  local rc
  if [ "$quiet" = 1 ]; then "$@" >"$log" 2>&1; rc=$?; else echo "== $*"; "$@"; rc=$?; fi
  if [ "$rc" -eq 0 ]; then pass=$((pass + 1)); return; fi
  fail=$((fail + 1)); failed="$failed $(basename "$1")"
  echo "FAILED (exit $rc): $*"
  [ "$quiet" = 1 ] && sed 's/^/  | /' "$log"
}
# One program per examples/*.c (run from the repository's root), so a stale
# binary of a removed example is not run and a missing one is a failure.
for src in examples/*.c; do
  e=$dir/$(basename "$src" .c)
  [ "$e" = "$dir/netsched-sim" ] && continue
  [ -x "$e" ] || { echo "FAILED: $e (from $src) was not built"; fail=$((fail + 1)); continue; }
  run "$e"
done
[ -x "$dir/netsched-sim" ] || { echo "examples: $dir/netsched-sim is missing"; exit 1; }
run "$dir/netsched-sim" --all
echo "examples: $pass passed, $fail failed${failed:+ (failed:$failed)}"
[ "$fail" -eq 0 ]
