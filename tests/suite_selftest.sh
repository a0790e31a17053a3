#!/usr/bin/env bash
# Checks tests/suite.sh's suite_bg against what `make check` users do:
#   1. Ctrl-C (SIGINT to the recipe shell's process group, as the terminal
#      sends it) or `kill <make>` (make sends SIGTERM to the recipe shell's
#      pid) while a background suite runs stops that suite at once, and the
#      suite's own EXIT trap runs (tests/slurm/run.sh stops its daemons
#      there) - the daemon-like child it started is gone within 10 s;
#   2. without a signal, the background suite's output and verdict reach
#      the summary (a failing background suite fails make check).
# Usage: bash tests/suite_selftest.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
recipe=""
# What a failed case leaves running: the recipe shell's group, the fake
# suite and its daemon (by PID).
kill_leftovers() {
  local f
  [ -n "$recipe" ] && kill -KILL -- "-$recipe" 2>/dev/null
  for f in "$tmp/daemon.pid" "$tmp/suite.pid"; do
    [ -s "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
  done
}
trap 'kill_leftovers; rm -rf "$tmp"' EXIT
passes=0 fails=0
ok()  { echo "PASS $1"; passes=$((passes + 1)); }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }
# PID gone: no such process, or a zombie not yet reaped (its parent, the
# suite, has exited; init reaps it when it gets to it)
gone() { ! kill -0 "$1" 2>/dev/null || [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = Z ]; }

# A stand-in for tests/slurm/run.sh: traps INT/TERM like it, starts a
# long-lived "daemon" and removes it (and a marker) in its EXIT trap.
cat > "$tmp/fake_suite.sh" <<'SUITE'
dir=$1
trap 'kill "$daemon" 2>/dev/null; rm -f "$dir/running"; echo stopped > "$dir/stopped"' EXIT
trap 'exit 130' INT TERM
echo $$ > "$dir/suite.pid"
sleep 300 &
daemon=$!
echo "$daemon" > "$dir/daemon.pid"
touch "$dir/running"
while :; do sleep 0.2; done
SUITE

# 1. A signal to the recipe shell. SIGINT to its whole process group is
# Ctrl-C at the terminal (make's recipe shell and everything it starts
# without job control share the terminal's foreground group); SIGTERM to
# its pid alone is `kill <make>`: GNU make sends SIGTERM to each recipe
# shell by pid, not to a group (here it arrives while the shell waits in
# suite_summary; during a foreground suite bash runs the trap when that
# suite ends). Before suite_bg's trap, this case left the suite running.
# set -m gives the recipe shell a group of its own, with SIGINT not
# ignored, as make starts it.
interrupt() {  # interrupt LABEL KILL-ARGS...: KILL-ARGS get the recipe's pid appended
  local label=$1 daemon rc
  shift
  rm -f "$tmp/running" "$tmp/stopped" "$tmp/daemon.pid" "$tmp/suite.pid"
  set -m
  bash -c '. "$1/suite.sh"; suite_bg fake bash "$2/fake_suite.sh" "$2"; suite_summary' \
    _ "$here" "$tmp" \
    > "$tmp/out1" 2>&1 &
  recipe=$!
  set +m
  for _ in $(seq 100); do [ -e "$tmp/running" ] && break; sleep 0.1; done
  if [ ! -e "$tmp/running" ]; then
    bad "$label: the background suite did not start"; return
  fi
  sleep 0.3
  "$@" "$recipe"
  daemon=$(cat "$tmp/daemon.pid")
  for _ in $(seq 100); do [ -e "$tmp/stopped" ] && gone "$daemon" && break; sleep 0.1; done
  if [ -e "$tmp/stopped" ] && gone "$daemon"; then
    ok "$label: background suite stopped, its EXIT trap ran, its daemon is gone"
  else
    bad "$label: background suite still running 10 s later (stopped=$([ -e "$tmp/stopped" ] && echo yes || echo no), daemon $daemon gone=$(gone "$daemon" && echo yes || echo no))"
    kill_leftovers
  fi
  wait "$recipe"; rc=$?
  if [ "$rc" -eq 130 ]; then ok "$label: recipe shell exits 130"
  else bad "$label: recipe shell exited $rc, expected 130"; fi
  recipe=""
}
group_int() { kill -INT -- "-$1"; }
interrupt "ctrl-c (SIGINT to the group)" group_int
interrupt "kill make (SIGTERM to the recipe shell)" kill -TERM

# 2. No signal: a background suite's output and failure reach the summary.
bash -c '. "$1/suite.sh"; suite_bg failing bash -c "echo bg-output; exit 3";
         suite quick true; suite_summary' _ "$here" > "$tmp/out2" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && grep -q '^bg-output$' "$tmp/out2" \
   && grep -q 'failing (exit 3)' "$tmp/out2" \
   && grep -q 'make check: 1 suites passed, 1 failed' "$tmp/out2"; then
  ok "summary: background suite's output and failure reported"
else
  bad "summary: rc=$rc, output:"; sed 's/^/  /' "$tmp/out2"
fi

echo "tests/suite_selftest.sh: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
