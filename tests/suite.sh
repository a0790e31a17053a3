# Sourced by `make check`: runs each suite, keeps its verdict, and ends with
# one summary: suites passed / failed, and every skipped test or check with
# the reason its suite printed (lines with "SKIP"; Python's runner prints
# "SKIP <test>: <reason>" for each skipped test).
#   suite NAME COMMAND...   run one suite (output shown as it runs)
#   suite_bg NAME COMMAND...  run one suite in the background (its output
#                           printed whole when it ends); suite_summary waits
#   suite_summary           print the summary (with the slowest suites: CI
#                           must stay under 20 minutes); status 1 if a suite failed
_suite_dir=$(mktemp -d)
: > "$_suite_dir/skips" ; : > "$_suite_dir/passed" ; : > "$_suite_dir/failed" ; : > "$_suite_dir/times"

# _suite_record NAME STATUS SECONDS OUTPUT: one suite's verdict, time and
# SKIP lines, kept for the summary (a file each, so that suites run in the
# background count too).
_suite_record() {
  echo "$3 $1" >> "$_suite_dir/times"
  if [ "$2" -eq 0 ]; then echo "$1" >> "$_suite_dir/passed"
  else echo "$1 (exit $2)" >> "$_suite_dir/failed"; fi
  grep -E 'SKIP' "$4" | sed -e 's/^[[:space:]]*//' -e "s|^|$1: |" >> "$_suite_dir/skips"
}

suite() {
  local name=$1; shift
  echo "== $name"
  local t0=$SECONDS
  "$@" 2>&1 | tee "$_suite_dir/out"
  _suite_record "$name" "${PIPESTATUS[0]}" "$((SECONDS - t0))" "$_suite_dir/out"
}

# suite_par JOBS NAME...: runs the suites NAME (each a command without
# arguments: a test binary) JOBS at a time; each one's output is printed
# whole when it ends (under a lock, with its time), and it counts in the
# summary as a suite run by `suite`. The binaries are independent (their
# scratch files are mkstemp's), so on two cores the unit and hostile
# binaries take about half as long, most under sanitizers (.ci/run).
_suite_one() {
  local name=$1 out t0=$SECONDS rc
  shift
  [ $# -gt 0 ] || set -- "$name"
  out=$(mktemp "$_suite_dir/par.XXXXXX")
  "$@" > "$out" 2>&1
  rc=$?
  {
    flock 9
    echo "== $name ($((SECONDS - t0)) s)"
    cat "$out"
    _suite_record "$name" "$rc" "$((SECONDS - t0))" "$out"
  } 9> "$_suite_dir/lock"
  rm -f "$out"
}

# Waits only for its own binaries (not for a suite_bg suite still running).
suite_par() {
  local jobs=$1 name done_pid
  local -A running=()
  shift
  for name in "$@"; do
    _suite_one "$name" &
    running[$!]=1
    if [ "${#running[@]}" -ge "$jobs" ]; then
      wait -n -p done_pid "${!running[@]}"
      unset "running[$done_pid]"
    fi
  done
  [ "${#running[@]}" -eq 0 ] || wait "${!running[@]}"
}

# suite_bg NAME COMMAND...: for a suite that mostly waits (tests/slurm: its
# daemons and jobs sleep), so that the suites after it use the cores
# meanwhile; .ci/run ran tests/slurm (221 s) and the Python suite (65 s)
# one after the other in each of its two passes.
# Signals: `kill <make>` reaches only this shell (GNU make sends SIGTERM to
# each recipe shell's pid), which would die and leave the suite and its
# daemons running to the end. So the suite starts in a process group of its
# own (set -m) and, on INT or TERM, this shell sends TERM to that group -
# tests/slurm/run.sh then stops its daemons in its EXIT trap - and exits
# 130 (bash runs the trap once the foreground suite, if any, has ended).
# Ctrl-C reaches the shell and its foreground suite from the terminal.
# tests/suite_selftest.sh checks both.
_suite_bg_pids=()
_suite_bg_stop() {
  local pid
  for pid in "${_suite_bg_pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null; done
  _suite_bg_pids=()
}
suite_bg() {
  local name=$1
  shift
  echo "== $name: runs in the background; its output follows when it ends"
  trap '_suite_bg_stop; exit 130' INT TERM
  set -m
  _suite_one "$name" "$@" &
  _suite_bg_pids+=($!)
  set +m
}

suite_summary() {
  local nskip npass nfail
  [ "${#_suite_bg_pids[@]}" -eq 0 ] || wait "${_suite_bg_pids[@]}"
  _suite_bg_pids=()
  nskip=$(wc -l < "$_suite_dir/skips")
  npass=$(wc -l < "$_suite_dir/passed")
  nfail=$(wc -l < "$_suite_dir/failed")
  echo "== summary"
  echo "slowest suites (s): $(sort -rn "$_suite_dir/times" | head -5 | tr '\n' ' ')"
  if [ "$nskip" -gt 0 ]; then
    echo "skipped ($nskip):"
    sed 's/^/  /' "$_suite_dir/skips"
  fi
  if [ "$nfail" -gt 0 ]; then
    echo "failed:"; sed 's/^/  /' "$_suite_dir/failed"
  fi
  echo "make check: $npass suites passed, $nfail failed; $nskip tests or checks skipped$([ "$nskip" -gt 0 ] && echo " (why: above)")"
  rm -rf "$_suite_dir"
  [ "$nfail" -eq 0 ]
}
