# Sourced by `make check`: runs each suite, keeps its verdict, and ends with
# one summary: suites passed / failed, and every skipped test or check with
# the reason its suite printed (lines with "SKIP"; Python's runner prints
# "SKIP <test>: <reason>" for each skipped test).
#   suite NAME COMMAND...   run one suite (output shown as it runs)
#   suite_summary           print the summary (with the slowest suites: CI
#                           must stay under 20 minutes); status 1 if a suite failed
_suite_dir=$(mktemp -d)
_suite_pass=0 _suite_fail=0
: > "$_suite_dir/skips" ; : > "$_suite_dir/failed" ; : > "$_suite_dir/times"

suite() {
  local name=$1; shift
  echo "== $name"
  local t0=$SECONDS
  "$@" 2>&1 | tee "$_suite_dir/out"
  local rc=${PIPESTATUS[0]}
  echo "$((SECONDS - t0)) $name" >> "$_suite_dir/times"
  if [ "$rc" -eq 0 ]; then _suite_pass=$((_suite_pass + 1))
  else _suite_fail=$((_suite_fail + 1)); echo "$name (exit $rc)" >> "$_suite_dir/failed"; fi
  grep -E 'SKIP' "$_suite_dir/out" | sed -e 's/^[[:space:]]*//' -e "s|^|$name: |" >> "$_suite_dir/skips"
}

suite_summary() {
  local nskip
  nskip=$(wc -l < "$_suite_dir/skips")
  echo "== summary"
  echo "slowest suites (s): $(sort -rn "$_suite_dir/times" | head -5 | tr '\n' ' ')"
  if [ "$nskip" -gt 0 ]; then
    echo "skipped ($nskip):"
    sed 's/^/  /' "$_suite_dir/skips"
  fi
  if [ "$_suite_fail" -gt 0 ]; then
    echo "failed:"; sed 's/^/  /' "$_suite_dir/failed"
  fi
  echo "make check: $_suite_pass suites passed, $_suite_fail failed; $nskip tests or checks skipped$([ "$nskip" -gt 0 ] && echo " (why: above)")"
  rm -rf "$_suite_dir"
  [ "$_suite_fail" -eq 0 ]
}
