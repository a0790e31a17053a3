#!/usr/bin/env bash
# Compiles and runs every ```c block of README.md and docs/*.md that has a
# main(), runs every ```python block, and walks every command line of their
# ```sh blocks (rules below), against the freshly built library, so the
# usage examples and commands a reader copies stay true. (app.c in the
# scratch session is the first C program, README's.) (Python blocks are skipped in sanitized
# builds, where ctypes would need the sanitizer runtimes preloaded.)
# Usage: tests/readme_snippets.sh [build-output-dir] [sanitize 0|1] [examples-dir]
set -u
out=${1:-lib}
san_flags=
[ "${2:-0}" = 1 ] && san_flags="-fsanitize=address,undefined"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk -v dir="$tmp" '
  /^```c$/ { n++; inblk = 1; file = dir "/snippet" n ".c"; print FILENAME ":" FNR > (dir "/snippet" n ".src"); next }
  /^```python$/ { n++; inblk = 1; file = dir "/snippet" n ".py"; print FILENAME ":" FNR > (dir "/snippet" n ".src"); next }
  /^```sh$/ { n++; inblk = 1; file = dir "/snippet" n ".sh"; print FILENAME ":" FNR > (dir "/snippet" n ".src"); next }
  /^```/ && inblk { inblk = 0; close(file); next }
  inblk { print > file }' README.md docs/*.md
pass=0 fail=0
for f in "$tmp"/snippet*.c; do
  [ -e "$f" ] || continue
  grep -q 'int main' "$f" || continue
  # shellcheck disable=SC2086
  if cc -std=c11 -Wall -Werror $san_flags -Iinclude "$f" -o "${f%.c}" -L"$out" -lnetsched \
       -Wl,-rpath,"$(cd "$out" && pwd)" && "${f%.c}" >"${f%.c}.out"; then
    pass=$((pass + 1))
  else
    echo "FAILED: the C program at $(cat "${f%.c}.src")"; cat "${f%.c}.out" 2>/dev/null
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
    echo "FAILED: the Python block at $(cat "${f%.py}.src")"; cat "${f%.py}.out"
    fail=$((fail + 1))
  fi
done
# ---- the README's commands: every line of every ```sh block is walked -----
# A command line (continuation lines joined, trailing comment dropped) must
# match one rule below, or the walk fails naming it, so a command added to
# the README is either run here or deliberately accounted for:
#  - the apt-get line: its packages must be exactly .ci/run's PACKAGES;
#  - a line .ci/run runs verbatim (make demo, the test line): CI runs it on
#    its fresh clone; `make check` is the command running this very walk;
#  - sbatch -H --comment=netsched...: a job for netsched-slurm, which needs a
#    Slurm controller: tests/slurm/run.sh submits jobs that way;
#  - anything else is RUN, in order, in one bash session of a scratch
#    directory (so `export` and `N=$(...)` carry over between lines) that
#    has the repository's data/, the build's examples/ under build/, the
#    README's C example as app.c and the files of tests/fixtures/readme/;
#    HOME is a scratch directory, `python3` is $PYTHON with the checkout's
#    bindings, `make` is the checkout's make (normal build, even under
#    `make sanitize`), `sbatch --array=A-B --wrap CMD` runs CMD for each
#    index locally, and `make uninstall` lines run last. netsched-sim lines
#    get --no-progress. In sanitized builds only the netsched-sim lines run
#    (the others use the normal build or Python).
# PENDING lists commands known to fail, each with the issue that fixes it:
# they are reported as SKIP, and one that passes fails the walk (so the
# entry is removed as soon as the fix lands).
PENDING=(
)
examples=${3:-build/examples}
repo=$(pwd)
sess=$tmp/session
mkdir -p "$sess/build" "$sess/home" "$sess/bin"
ln -s "$repo/$examples" "$sess/build/examples"
ln -s "$repo/data" "$sess/data"
[ -d tests/fixtures/readme ] && cp -r tests/fixtures/readme/. "$sess/"
app=$(ls "$tmp"/snippet*.c 2>/dev/null | sort -V | xargs -r grep -l 'int main' | head -1)
[ -n "$app" ] && cp "$app" "$sess/app.c"
cat > "$sess/bin/python3" <<SHIM
#!/bin/sh
PYTHONPATH="$repo/bindings/python" NETSCHED_LIBRARY="$repo/lib/libnetsched.so.0" \
  NETSCHED_SIM="$repo/build/examples/netsched-sim" exec "${PYTHON:-/usr/bin/python3}" "\$@"
SHIM
realmake=$(command -v make)
cat > "$sess/bin/make" <<SHIM
#!/bin/sh
exec env -u SANITIZE -u MAKELEVEL MAKEFLAGS= MFLAGS= "$realmake" -C "$repo" "\$@"
SHIM
cat > "$sess/bin/sbatch" <<'SHIM'
#!/bin/bash
# sbatch --array=A-B --wrap CMD: CMD once per index, here, one after another.
range= cmd=
while [ $# -gt 0 ]; do
  case $1 in --array=*) range=${1#--array=} ;; --wrap) cmd=$2; shift ;; esac
  shift
done
[ -n "$range" ] && [ -n "$cmd" ] || { echo "sbatch shim: only --array=A-B --wrap CMD" >&2; exit 2; }
for i in $(seq "${range%-*}" "${range#*-}"); do
  SLURM_ARRAY_TASK_ID=$i bash -c "$cmd" || exit 1
done
SHIM
chmod +x "$sess/bin/"*
cipkgs=$(sed -n '/^PACKAGES=(/,/^)/p' .ci/run | sed -e 's/#.*//' -e '1d;$d' | tr -s ' \n' '\n' | grep . | sort)
cmds=$tmp/commands last=$tmp/commands-last
: > "$cmds"; : > "$last"
for f in $(ls "$tmp"/snippet*.sh 2>/dev/null | sort -V); do  # in document order
  while IFS= read -r cmd; do
    case $cmd in
      "apt-get update && apt-get install "*)
        want=$(printf '%s\n' "$cmd" | sed 's/.*--no-install-recommends //' | tr ' ' '\n' | grep . | sort)
        if [ "$want" = "$cipkgs" ]; then pass=$((pass + 1))
        else echo "FAILED: README's apt-get packages differ from .ci/run's PACKAGES (< README, > .ci/run):"
          diff <(echo "$want") <(echo "$cipkgs") | sed -n 's/^[<>]/  &/p'; fail=$((fail + 1)); fi ;;
      "make check") pass=$((pass + 1)) ;;
      "sbatch -H --comment=netsched"*)
        if grep -q -- '-H --comment=netsched' tests/slurm/run.sh; then pass=$((pass + 1))
        else echo "FAILED: README command not submitted by tests/slurm/run.sh: $cmd"; fail=$((fail + 1)); fi ;;
      *)
        if grep -qxF -- "$cmd" .ci/run; then pass=$((pass + 1))
        elif [[ $cmd == "make uninstall"* ]]; then printf '%s\n' "$cmd" >> "$last"
        else printf '%s\n' "$cmd" >> "$cmds"; fi ;;
    esac
  done < <(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$f" |
           sed -e 's/[[:space:]][[:space:]]*#.*$//' -e 's/[[:space:]]*$//' |
           grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$')
done
cat "$last" >> "$cmds"
# One session runs them all in order; command i's output goes to out.i and
# its exit status to rc.i.
n=0
{ echo "cd '$sess' || exit 1; export HOME='$sess/home' PATH='$sess/bin:$PATH'"
  while IFS= read -r cmd; do
    n=$((n + 1))
    case $cmd in
      build/examples/netsched-sim*) cmd="$cmd --no-progress" ;;
      *) [ "${2:-0}" = 1 ] && { echo "echo skipped > '$tmp/rc.$n'"; continue; } ;;
    esac
    printf '%s\n' "$cmd" > "$tmp/cmd.$n"
    echo "eval \"\$(cat '$tmp/cmd.$n')\" < /dev/null > '$tmp/out.$n' 2>&1; echo \$? > '$tmp/rc.$n'"
  done < "$cmds"
} > "$tmp/session.sh"
bash "$tmp/session.sh" > /dev/null 2>&1
i=0
while IFS= read -r cmd; do
  i=$((i + 1))
  rc=$(cat "$tmp/rc.$i" 2>/dev/null || echo "not reached")
  [ "$rc" = skipped ] && continue
  pending=
  for p in ${PENDING[@]+"${PENDING[@]}"}; do [[ $cmd == "${p%%|*}"* ]] && pending=${p#*|}; done
  if [ -n "$pending" ]; then
    if [ "$rc" = 0 ]; then echo "FAILED: README command passes now, remove it from PENDING: $cmd"; fail=$((fail + 1))
    else echo "SKIP README command (known to fail, $pending): $cmd"; fi
  elif [ "$rc" = 0 ]; then pass=$((pass + 1))
  else echo "FAILED (exit $rc): README command: $cmd"; tail -20 "$tmp/out.$i" | sed 's/^/  | /'; fail=$((fail + 1)); fi
done < "$cmds"
echo "readme: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
