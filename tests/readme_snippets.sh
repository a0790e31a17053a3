#!/usr/bin/env bash
# Compiles and runs every ```c block of README.md that has a main(), runs
# every ```python block, and runs every `build/examples/netsched-sim ...`
# command of its ```sh blocks (in a scratch directory that has the
# repository's data/ and the build's examples/), against the freshly built
# library, so the README's usage examples stay true. (Python blocks are
# skipped in sanitized builds, where ctypes would need the sanitizer
# runtimes preloaded.)
# Usage: tests/readme_snippets.sh [build-output-dir] [sanitize 0|1] [examples-dir]
set -u
out=${1:-lib}
san_flags=
[ "${2:-0}" = 1 ] && san_flags="-fsanitize=address,undefined"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk -v dir="$tmp" '
  /^```c$/ { n++; inblk = 1; file = dir "/snippet" n ".c"; next }
  /^```python$/ { n++; inblk = 1; file = dir "/snippet" n ".py"; next }
  /^```sh$/ { n++; inblk = 1; file = dir "/snippet" n ".sh"; next }
  /^```/ && inblk { inblk = 0; close(file); next }
  inblk { print > file }' README.md
pass=0 fail=0
for f in "$tmp"/snippet*.c; do
  [ -e "$f" ] || continue
  grep -q 'int main' "$f" || continue
  # shellcheck disable=SC2086
  if cc -std=c11 -Wall -Werror $san_flags -Iinclude "$f" -o "${f%.c}" -L"$out" -lnetsched \
       -Wl,-rpath,"$(cd "$out" && pwd)" && "${f%.c}" >"${f%.c}.out"; then
    pass=$((pass + 1))
  else
    echo "FAILED: README snippet $(basename "$f")"; cat "${f%.c}.out" 2>/dev/null
    fail=$((fail + 1))
  fi
done
for f in "$tmp"/snippet*.py; do
  [ -e "$f" ] || continue
  [ "${2:-0}" = 1 ] && continue
  if PYTHONPATH=bindings/python NETSCHED_LIBRARY="$(cd "$out" && pwd)/libnetsched.so.0" \
       "${PYTHON:-/usr/bin/python3}" "$f" >"${f%.py}.out" 2>&1; then
    pass=$((pass + 1))
  else
    echo "FAILED: README snippet $(basename "$f")"; cat "${f%.py}.out"
    fail=$((fail + 1))
  fi
done
examples=${3:-build/examples}
repo=$(pwd)
for f in "$tmp"/snippet*.sh; do
  [ -e "$f" ] || continue
  # the CLI commands only (continuation lines joined), not install lines
  sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$f" | grep '^build/examples/netsched-sim' > "$f.cmds" || continue
  run="$tmp/run-$(basename "$f" .sh)"
  mkdir -p "$run/build" && ln -s "$repo/$examples" "$run/build/examples" && ln -s "$repo/data" "$run/data"
  while IFS= read -r cmd; do
    if (cd "$run" && bash -c "$cmd --no-progress") >"$f.out" 2>&1; then
      pass=$((pass + 1))
    else
      echo "FAILED: README command: $cmd"; cat "$f.out"
      fail=$((fail + 1))
    fi
  done < "$f.cmds"
done
echo "readme: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
