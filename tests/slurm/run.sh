#!/usr/bin/env bash
# tests/slurm/run.sh BINARY [CASE...] - netsched-slurm against a real Slurm:
# one slurmctld and 16 slurmd (4 leaves x 4 nodes x 4 GPUs) started by
# harness.sh in a temporary directory, stopped by PID on exit (also when a
# case fails). Every case starts from an empty queue (cancel_all).
#
# Expected placements are derived by hand from each policy's rule on the
# 16-node layout (leaf0 = n0-n3, leaf1 = n4-n7, ...; node k holds GPUs
# 4k..4k+3); the derivations are the comments of each case.
set -u
BIN=${1:?usage: run.sh path/to/netsched-slurm [case...]}
shift
HERE=$(cd "$(dirname "$0")" && pwd)

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null; then
  echo "tests/slurm: SKIPPED - slurmctld/slurmd not installed (Debian: apt-get install slurm-wlm)"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "tests/slurm: SKIPPED - slurmd must run as root to start jobs (run as root, as .ci/run does)"
  exit 0
fi

# shellcheck source=harness.sh
source "$HERE/harness.sh"
trap slurm_down EXIT
trap 'exit 130' INT TERM

PASS=0
FAIL=0
FAILED=()
CASE=""

fail() {
  echo "  FAIL [$CASE]: $*"
  CASE_OK=0
}

# ---- helpers ------------------------------------------------------------
# submit SBATCH-ARGS... -> prints the job id (a 300 s sleep, output discarded)
submit() { sbatch --parsable -o /dev/null "$@" --wrap "sleep 300" | cut -d';' -f1; }

# ns ARGS... : runs the adapter; stdout in $OUT, stderr in $ERR, status in $RC
ns() {
  "$BIN" --lock "$SD/lock" "$@" >"$SD/out.txt" 2>"$SD/err.txt"
  RC=$?
  OUT=$(cat "$SD/out.txt")
  ERR=$(cat "$SD/err.txt")
}

expect_rc() { [ "$RC" -eq "$1" ] || fail "exit status $RC, expected $1 (stderr: $ERR)"; }
expect_line() { grep -qxF -- "$1" <<<"$OUT" || fail "no line '$1' in output: $(tr '\n' '|' <<<"$OUT")"; }
expect_no_line_re() { ! grep -qE -- "$1" <<<"$OUT" || fail "unexpected line matching '$1': $(tr '\n' '|' <<<"$OUT")"; }

# Comma-separated expanded node list of a job ("" if none).
job_nodes() { scontrol show hostnames "$(squeue -h -j "$1" -o %N 2>/dev/null)" 2>/dev/null | paste -sd,; }
job_state() { squeue -h -j "$1" -o %t 2>/dev/null; }
# GPUs Slurm gave a running job per node: "n0:1,n3:4,n4:3".
gres_split() {
  scontrol show job -d "$1" | sed -n 's/^ *Nodes=\([^ ]*\) .*GRES=gpu[^:]*:\([0-9]*\).*/\1 \2/p' |
    while read -r nl g; do for n in $(scontrol show hostnames "$nl"); do echo "$n:$g"; done; done | paste -sd,
}

# expect_runs JOB NODES: the job reaches R on exactly these nodes (20 s at most).
expect_runs() {
  local i st
  for i in $(seq 1 200); do
    st=$(job_state "$1")
    [ "$st" = R ] && break
    sleep 0.1
  done
  [ "$st" = R ] || { fail "job $1 is '$st', not running ($(squeue -h -j "$1" -o '%r %N'))"; return; }
  [ "$(job_nodes "$1")" = "$2" ] || fail "job $1 runs on '$(job_nodes "$1")', expected '$2'"
}

expect_held() {
  local r
  r=$(squeue -h -j "$1" -o '%t %r')
  [ "$r" = "PD JobHeldUser" ] || fail "job $1 is '$r', expected still held"
}

# Brings nodes back after a case downed or drained them (they re-register).
resume() {
  local i
  scontrol update NodeName="$1" State=RESUME 2>/dev/null # a DOWN node may be back already (ReturnToService=2)
  for i in $(seq 1 300); do
    # back = no node down/drained, none marked not responding (idle*)
    [ -z "$(sinfo -h -N -t down,drain,drng,fail,unk -o %N)" ] &&
      ! sinfo -h -N -o %t | grep -q '\*' && return 0
    sleep 0.1
  done
  fail "nodes $1 did not come back: $(sinfo -h -N -t down,drain,drng,fail,unk -o '%N %t' | sort -u)"
}

job_comment() { squeue -h -j "$1" -o %k; }

run_case() {
  CASE=$1
  CASE_OK=1
  echo "== slurm: $CASE"
  local t=$SECONDS
  cancel_all >/dev/null || true
  "$CASE"
  if [ $CASE_OK -eq 1 ]; then PASS=$((PASS + 1)); else FAIL=$((FAIL + 1)); FAILED+=("$CASE"); fi
  echo "   $CASE: $((SECONDS - t)) s" # where the suite's time goes (.ci/run's budget)
}

# ---- cases --------------------------------------------------------------

# first-fit, then the dry run, not-opted-in jobs, waits, --once twice.
case_ff_once() {
  local a b c d e
  a=$(submit -H --comment=netsched --gpus=3)
  b=$(submit -H --comment=netsched -N 2 --gpus-per-node=4)
  c=$(submit -H --comment=netsched --gpus=8)
  d=$(submit -H --gpus=2)                                # not opted in
  e=$(submit -H --comment=netsched --gpus=100)           # larger than the cluster
  local before_d
  before_d=$(squeue -h -j "$d" -o '%t %r %k %Q')
  # --dry-run: the same lines, nothing changes.
  ns --once --dry-run
  expect_rc 0
  local dry=$OUT
  # ff = lowest free GPU ids. a: GPUs 0-2 -> n0. b: -N 2 x 4 hides n0 (1
  # free < 4) -> GPUs 4-11 = n1,n2. c: GPU 3 (n0), 12-15 (n3), 16-18 (n4).
  expect_line "$a placed n0"
  expect_line "$b placed n1,n2"
  expect_line "$c placed n0,n3,n4"
  expect_no_line_re "^$d "
  # (the wording is the library's; it must name the demand)
  grep -qE "^$e waits: .*ns_place_first_fit: .*100 GPUs" <<<"$OUT" || fail "no wait line for $e: $OUT"
  for j in "$a" "$b" "$c" "$e"; do expect_held "$j"; done
  [ "$(job_comment "$e")" = netsched ] || fail "dry run wrote a comment: $(job_comment "$e")"
  ns --once
  expect_rc 0
  [ "$OUT" = "$dry" ] || fail "--once printed '$OUT', the dry run '$dry'"
  expect_runs "$a" n0
  expect_runs "$b" n1,n2
  expect_runs "$c" n0,n3,n4
  # Slurm chooses the split of a --gpus job over its nodes; here it equals
  # first-fit's (1 free GPU on n0, 4 on n3, 3 on n4).
  [ "$(gres_split "$c")" = "n0:1,n3:4,n4:3" ] || fail "Slurm split $c as $(gres_split "$c")"
  [ "$(gres_split "$b")" = "n1:4,n2:4" ] || fail "Slurm split $b as $(gres_split "$b")"
  case "$(job_comment "$e")" in
    "netsched waits: "*"100 GPUs"*) ;;
    *) fail "wait reason not in the comment of $e: '$(job_comment "$e")'" ;;
  esac
  [ "$(squeue -h -j "$d" -o '%t %r %k %Q')" = "$before_d" ] || fail "job $d (not opted in) changed"
  # --once again: nothing placed twice, nothing moved.
  ns --once
  expect_rc 0
  expect_no_line_re "placed"
  expect_line "$e waits: $(job_comment "$e" | sed 's/^netsched waits: //')"
  expect_runs "$a" n0
  expect_runs "$c" n0,n3,n4
}

# LWF-1: servers by increasing committed workload (ties: lower id).
case_lwf1() {
  local a b c
  # a (3 GPUs, 1000 iterations of ResNet-50, 62.4 ms) on n0: LWF-1 with
  # |G| = 3 > kappa walks servers by workload, all 0 -> n0 (GPUs 0-2).
  a=$(submit -H --comment=netsched:model=resnet50,iters=1000 --gpus=3)
  # b (8 GPUs): n0 now carries a's workload, n1..n15 none -> n1, n2
  # (first-fit would take n0's free GPU 3 first: n0,n1,n2).
  b=$(submit -H --comment=netsched --gpus=8)
  ns --once --policy lwf-1
  expect_rc 0
  expect_line "$a placed n0"
  expect_line "$b placed n1,n2"
  expect_runs "$a" n0
  expect_runs "$b" n1,n2
  # The running jobs are read back with their workload: c (4 GPUs) avoids
  # n0-n2 -> n3.
  c=$(submit -H --comment=netsched:model=vgg16,iters=10 --gpus=4)
  ns --once --policy lwf-1
  expect_line "$c placed n3"
  expect_runs "$c" n3
}

# vClos topology awareness: an 8-GPU job on one leaf, a 16-GPU job on a whole leaf.
case_vclos() {
  local a b c d
  # a (3): stage 0, the server with the fewest free GPUs that fits -> n0.
  a=$(submit -H --comment=netsched --gpus=3)
  # b (8 = -N 2 x 4): stage 1, the leaf with the fewest idle servers among
  # those with 2: leaf0 (n1-n3 idle) -> n1,n2.
  b=$(submit -H --comment=netsched -N 2 --gpus-per-node=4)
  # c (8): leaf0 has 1 idle server left; leaf1 -> n4,n5 (first-fit: n0,n3,n4).
  c=$(submit -H --comment=netsched --gpus=8)
  # d (16): a whole idle leaf; leaf1 has 2 idle -> leaf2 = n8-n11.
  d=$(submit -H --comment=netsched --gpus=16)
  ns --once --policy vclos
  expect_rc 0
  expect_line "$a placed n0"
  expect_line "$b placed n1,n2"
  expect_line "$c placed n4,n5"
  expect_line "$d placed n8,n9,n10,n11"
  expect_runs "$a" n0
  expect_runs "$b" n1,n2
  expect_runs "$c" n4,n5
  expect_runs "$d" n8,n9,n10,n11
}

# Orders: with room for one 4-GPU job, FIFO offers the earlier (long) job,
# SRSF the one with less remaining service (GPUs x iterations x ideal
# iteration: 4 x 10000 x VGG-16's 89.5+ ms vs 4 x 10 x ResNet-50's 62.4+ ms).
case_order() {
  local fill big small
  fill=$(submit -N 15 --gpus-per-node=4)
  for i in $(seq 1 200); do [ "$(job_state "$fill")" = R ] && break; sleep 0.1; done
  [ "$(job_state "$fill")" = R ] || { fail "filler did not start"; return; }
  big=$(submit -H --comment=netsched:model=vgg16,iters=10000 --gpus=4)
  small=$(submit -H --comment=netsched:model=resnet50,iters=10 --gpus=4)
  local free
  free=$(comm -23 <(seq 0 15 | sed 's/^/n/' | sort) <(job_nodes "$fill" | tr , '\n' | sort))
  ns --once --dry-run
  expect_line "$big placed $free"
  grep -q "^$small waits: " <<<"$OUT" || fail "fifo: $OUT"
  ns --once --dry-run --order srsf
  expect_line "$small placed $free"
  grep -q "^$big waits: " <<<"$OUT" || fail "srsf: $OUT"
  ns --once --dry-run --policy srsf-ff
  expect_line "$small placed $free"
}

# CASSINI ranks the base policy's candidates by link compatibility. With
# one spine and --links-per-pair 1 every leaf has one uplink, so cross-leaf
# jobs out of the same leaf share it (NIC ports are per GPU: never shared).
case_cassini() {
  local f r f2 j
  f=$(submit -H --comment=netsched --gpus=12)     # ff: n0-n2 (no hints: no phases)
  r=$(submit -H --comment=netsched:model=vgg16,iters=100000 --gpus=8)   # ff: n3,n4 (leaf0|leaf1)
  f2=$(submit -H --comment=netsched --gpus=8)     # ff: n5,n6
  ns --once --links-per-pair 1
  expect_line "$r placed n3,n4"
  expect_line "$f2 placed n5,n6"
  expect_runs "$r" n3,n4
  expect_runs "$f2" n5,n6
  # j (VGG-16, 8 GPUs): first-fit takes n7,n8 (leaf1|leaf2), sharing leaf1's
  # uplink and downlink with r; VGG-16 on 8 GPUs communicates 2*7/8*526.4 MB
  # *8/10 Gbps = 737 ms of an 826 ms iteration, so the two cannot interleave
  # (score < 1). CASSINI's second candidate (n7 hidden) is n8,n9 inside
  # leaf2, sharing nothing (score 1): it wins.
  j=$(submit -H --comment=netsched:model=vgg16,iters=100 --gpus=8)
  ns --once --dry-run --links-per-pair 1
  expect_line "$j placed n7,n8"
  ns --once --policy cassini-ff --links-per-pair 1
  expect_line "$j placed n8,n9"
  expect_runs "$j" n8,n9
}

# Every preset places a 4-GPU job where it then runs: on one node for all
# but rand (every other policy consolidates a job of one node's size on an
# empty cluster), on exactly the printed nodes for all.
case_all_presets() {
  local p j line nodes
  for p in $("$BIN" --list | awk '{print $1}'); do
    cancel_all >/dev/null
    j=$(submit -H --comment=netsched:model=resnet50,iters=100 --gpus=4)
    ns --once --policy "$p"
    [ "$RC" -eq 0 ] || { fail "$p: exit $RC ($ERR)"; continue; }
    line=$(grep "^$j " <<<"$OUT")
    nodes=${line#"$j placed "}
    [ "$nodes" != "$line" ] || { fail "$p: '$line'"; continue; }
    [ "$p" = rand ] || [ "${nodes//,/}" = "$nodes" ] || fail "$p: a 4-GPU job on $nodes"
    expect_runs "$j" "$nodes"
  done
  # The adapter knows every preset of the simulator, by the same names.
  local sim="$(dirname "$BIN")/../../examples/netsched-sim"
  if [ -x "$sim" ]; then
    diff <("$sim" --list 2>/dev/null | awk 'NF {print $1}' | sort) <("$BIN" --list | awk '{print $1}' | sort) >/dev/null ||
      fail "preset names differ from netsched-sim --list"
  fi
}

# Waits: a job that does not fit now gets the policy's reason, on stdout
# and in its comment; it is placed once room appears.
case_waits() {
  local big small
  big=$(submit -H --comment=netsched --gpus=64)      # the whole cluster
  small=$(submit --gpus=4)                            # Slurm's own job on 4 GPUs
  expect_runs "$small" n0 2>/dev/null || true
  for i in $(seq 1 100); do [ "$(job_state "$small")" = R ] && break; sleep 0.1; done
  ns --once
  # 60 of 64 GPUs free: first-fit's message says so (its wording is the
  # library's); the comment carries the same reason after the marker.
  local why
  why=$(grep "^$big waits: " <<<"$OUT" | sed "s/^$big waits: //")
  grep -qE "^ns_place_first_fit: .*64 GPUs.* 60 " <<<"$why" || fail "wait line: $OUT"
  [ "$(job_comment "$big")" = "netsched waits: $why" ] || fail "comment: $(job_comment "$big")"
  expect_held "$big"
  # Backfilling: a later 1-GPU job is placed past the waiting one (ff), but
  # not under strict FIFO ("fifo": head-of-line blocking).
  local tiny
  tiny=$(submit -H --comment=netsched --gpus=1)
  ns --once --dry-run
  expect_line "$tiny placed n1"
  ns --once --dry-run --policy fifo
  expect_line "$tiny waits: behind job $big (strict FIFO: no backfilling)"
  scancel "$small" "$tiny"
  for i in $(seq 1 100); do [ -z "$(job_state "$small")" ] && break; sleep 0.1; done
  ns --once
  expect_line "$big placed n0,n1,n2,n3,n4,n5,n6,n7,n8,n9,n10,n11,n12,n13,n14,n15"
  [ "$(job_comment "$big")" = netsched ] || fail "wait reason left in the comment: $(job_comment "$big")"
}

# --partition: jobs of that partition are held and marked by docs/slurm.md's
# job_submit.lua, then placed; a held job elsewhere without the marker is not.
case_partition() {
  local a b c
  a=$(submit -p auto --gpus=4)
  c=$(submit -p auto --comment=netsched:model=vgg16,iters=5 --gpus=4)
  b=$(submit -H --gpus=4)
  [ "$(squeue -h -j "$a" -o '%t %Q %k')" = "PD 0 netsched" ] || fail "lua did not hold/mark $a: $(squeue -h -j "$a" -o '%t %Q %k')"
  [ "$(job_comment "$c")" = "netsched:model=vgg16,iters=5" ] || fail "lua changed hints: $(job_comment "$c")"
  ns --once --partition auto
  expect_line "$a placed n0"
  expect_line "$c placed n1"
  expect_no_line_re "^$b "
  expect_runs "$a" n0
  expect_runs "$c" n1
  expect_held "$b"
}

# Faults: a job cancelled and a job released by someone else between read
# and update; a node going down in the same window.
case_faults_midcycle() {
  local a b c
  a=$(submit -H --comment=netsched --gpus=4)   # -> n0, cancelled meanwhile
  b=$(submit -H --comment=netsched --gpus=4)   # -> n1, released by an admin meanwhile
  c=$(submit -H --comment=netsched --gpus=4)   # -> n2, which is drained meanwhile
  NETSCHED_SLURM_TEST_PAUSE_S=3 "$BIN" --lock "$SD/lock" --once >"$SD/out.txt" 2>"$SD/err.txt" &
  local pid=$!
  for i in $(seq 1 50); do grep -q "test pause" "$SD/err.txt" 2>/dev/null && break; sleep 0.1; done
  scancel "$a"
  scontrol release "$b"
  # (drained, not DOWN: with ReturnToService=2 a DOWN node whose slurmd
  # answers comes back by itself, and Slurm could start c there first)
  scontrol update NodeName=n2 State=DRAIN Reason=test
  wait $pid
  RC=$?
  OUT=$(cat "$SD/out.txt")
  ERR=$(cat "$SD/err.txt")
  expect_rc 0
  expect_line "$a placed n0"
  expect_line "$c placed n2"
  grep -q "job $a" <<<"$ERR" || fail "no message for the cancelled job: $ERR"
  grep -q "job $b changed since this cycle read it" <<<"$ERR" || fail "no message for the released job: $ERR"
  # b was released by someone else without our node list: Slurm places it.
  [ -z "$(squeue -h -j "$b" -o %R | grep -v '^n')" ] || true
  [ "$(scontrol show job "$b" | grep -o 'ReqNodeList=[^ ]*')" = "ReqNodeList=(null)" ] ||
    fail "the released job got a node list: $(scontrol show job "$b" | grep -o 'ReqNodeList=[^ ]*')"
  # c waits for the drained n2; the next cycle moves it: first-fit's lowest
  # free node, n0 unless Slurm started b there (a's n0 is free again).
  local bnode want=n0
  for i in $(seq 1 100); do [ "$(job_state "$b")" = R ] && break; sleep 0.1; done
  bnode=$(job_nodes "$b")
  [ "$bnode" = n0 ] && want=n1
  ns --once
  expect_line "$c placed $want"
  expect_runs "$c" "$want"
  resume n2
}

# Faults: jobs the adapter read finish between read and update. f (held,
# opted in) is released by someone else, runs and completes; r (running,
# not opted in, committed on its node in the snapshot) completes. The
# cycle's decisions stand as printed; f is reported and left alone (no
# comment, no node list), g is placed as planned, d (not opted in) is not
# touched, and the run exits 0. The 30 s test pause is ended by SIGTERM
# once both jobs have finished (--once then completes its cycle).
case_job_finishes_midcycle() {
  local r f g d i pid go="$SD/go.$RANDOM"
  # r: Slurm's own job on a whole node (4 GPUs) until $go exists.
  r=$(sbatch --parsable -o /dev/null --gpus=4 --wrap "until [ -e $go ]; do sleep 0.1; done" | cut -d';' -f1)
  for i in $(seq 1 200); do [ "$(job_state "$r")" = R ] && break; sleep 0.1; done
  [ "$(job_state "$r")" = R ] || { fail "r is '$(job_state "$r")', not running"; return; }
  # first-fit, reading r on its node: f (4 GPUs) on the lowest other node, g on the next.
  local free nf ng
  free=$(seq 0 15 | sed 's/^/n/' | grep -vxF "$(job_nodes "$r")")
  nf=$(sed -n 1p <<<"$free") ng=$(sed -n 2p <<<"$free")
  f=$(sbatch --parsable -o /dev/null -H --comment=netsched --gpus=4 --wrap true | cut -d';' -f1)
  g=$(submit -H --comment=netsched --gpus=4)
  d=$(submit -H --gpus=2)
  local before_d
  before_d=$(squeue -h -j "$d" -o '%t %r %k %Q')
  NETSCHED_SLURM_TEST_PAUSE_S=30 "$BIN" --lock "$SD/lock" --once >"$SD/out.txt" 2>"$SD/err.txt" &
  pid=$!
  for i in $(seq 1 100); do grep -q "test pause" "$SD/err.txt" 2>/dev/null && break; sleep 0.1; done
  grep -q "test pause" "$SD/err.txt" || fail "the adapter did not reach its pause: $(cat "$SD/err.txt")"
  touch "$go"
  scontrol release "$f"
  # Finished = COMPLETED, or already purged (MinJobAge=2).
  local done_r="" done_f=""
  for i in $(seq 1 250); do
    case "$(squeue -h -t all -j "$r" -o %T 2>/dev/null)" in "" | COMPLETED) done_r=1 ;; esac
    case "$(squeue -h -t all -j "$f" -o %T 2>/dev/null)" in "" | COMPLETED) done_f=1 ;; esac
    [ -n "$done_r" ] && [ -n "$done_f" ] && break
    sleep 0.1
  done
  [ -n "$done_r" ] || fail "r did not finish: $(squeue -h -t all -j "$r" -o '%T %R')"
  [ -n "$done_f" ] || fail "f did not finish: $(squeue -h -t all -j "$f" -o '%T %R')"
  kill -TERM "$pid"
  wait "$pid"
  RC=$?
  OUT=$(cat "$SD/out.txt")
  ERR=$(cat "$SD/err.txt")
  expect_rc 0
  expect_line "$f placed $nf"
  expect_line "$g placed $ng"
  expect_no_line_re "^($r|$d) "
  [ "$(wc -l <<<"$OUT")" -eq 2 ] || fail "output: $(tr '\n' '|' <<<"$OUT")"
  # f: reported as finished (or gone), once; no other complaint.
  grep -qE "^netsched-slurm: job $f (changed since this cycle read it \(now COMPLETED, |vanished: )" <<<"$ERR" ||
    fail "no message for the finished job $f: $ERR"
  [ "$(grep -vc 'test pause' <<<"$ERR")" -eq 1 ] || fail "stderr: $(tr '\n' '|' <<<"$ERR")"
  # f untouched: no wait reason written, no node list (if Slurm still has it).
  if [ -n "$(squeue -h -t all -j "$f" -o %T 2>/dev/null)" ]; then
    [ "$(squeue -h -t all -j "$f" -o %k)" = netsched ] || fail "f's comment: $(squeue -h -t all -j "$f" -o %k)"
    [ "$(scontrol show job "$f" | grep -o 'ReqNodeList=[^ ]*')" = "ReqNodeList=(null)" ] ||
      fail "the finished job got a node list: $(scontrol show job "$f" | grep -o 'ReqNodeList=[^ ]*')"
  fi
  expect_runs "$g" "$ng"
  [ "$(squeue -h -j "$d" -o '%t %r %k %Q')" = "$before_d" ] || fail "job $d (not opted in) changed"
}

# Unusable nodes are never chosen: n0 drained, n1 failing, n2 reserved
# (an advance reservation the job is not in) -> first-fit takes n3, n4.
case_unusable_nodes() {
  local a
  scontrol update NodeName=n0 State=DRAIN Reason=test
  scontrol update NodeName=n1 State=FAIL Reason=test
  scontrol create reservation ReservationName=nstest StartTime=now Duration=10 Users=root \
    Nodes=n2 >/dev/null || fail "cannot create the reservation"
  a=$(submit -H --comment=netsched --gpus=8)
  ns --once
  expect_line "$a placed n3,n4"
  expect_runs "$a" n3,n4
  scontrol delete ReservationName=nstest
  resume n0,n1
}

# The lock refuses a second instance; SIGTERM ends the daemon after its cycle.
case_lock_and_signals() {
  local a pid
  "$BIN" --lock "$SD/lock" --interval 0.5 >"$SD/d.out" 2>"$SD/d.err" &
  pid=$!
  sleep 0.5
  ns --once
  expect_rc 3
  grep -q "another instance (pid $pid) holds the lock" <<<"$ERR" || fail "lock message: $ERR"
  a=$(submit -H --comment=netsched --gpus=4)
  for i in $(seq 1 50); do grep -q "^$a placed" "$SD/d.out" && break; sleep 0.1; done
  grep -qx "$a placed n0" "$SD/d.out" || fail "daemon did not place $a: $(cat "$SD/d.out" "$SD/d.err")"
  kill -TERM "$pid"
  local t0=$SECONDS
  wait "$pid"
  local rc=$?
  [ $rc -eq 0 ] || fail "daemon exit $rc after SIGTERM"
  [ $((SECONDS - t0)) -le 3 ] || fail "daemon took $((SECONDS - t0)) s to stop"
  # The lock is free again.
  ns --once
  expect_rc 0
}

# The controller: unreachable -> exit 4 (--once) within --timeout; a
# restart under the daemon -> it says so and retries with backoff within its
# --timeout (libslurm alone retries ~10 s per call), then places again.
case_controller_restart() {
  local pid a t0
  "$BIN" --lock "$SD/lock" --interval 0.5 --timeout 2 >"$SD/d.out" 2>"$SD/d.err" &
  pid=$!
  sleep 1
  ctld_stop
  t0=$SECONDS
  ns --once --lock "$SD/lock2" --timeout 2
  expect_rc 4
  [ $((SECONDS - t0)) -le 3 ] || fail "--once --timeout 2 took $((SECONDS - t0)) s"
  grep -q "controller could not be reached within --timeout 2 s" <<<"$ERR" || fail "message: $ERR"
  for i in $(seq 1 50); do grep -q "retrying in" "$SD/d.err" && break; sleep 0.1; done
  grep -q "retrying in" "$SD/d.err" || fail "daemon did not report the outage within 5 s: $(cat "$SD/d.err")"
  ctld_start || fail "slurmctld did not restart"
  wait_idle 16 >/dev/null || true
  a=$(submit -H --comment=netsched --gpus=4)
  for i in $(seq 1 400); do grep -q "^$a placed" "$SD/d.out" && break; sleep 0.1; done
  grep -qx "$a placed n0" "$SD/d.out" || fail "daemon did not place $a after the restart: $(tail -3 "$SD/d.err")"
  kill -TERM "$pid"
  wait "$pid" || fail "daemon exit $? after SIGTERM"
}

# Dally and the state file: accepts are remembered across restarts; a
# corrupt or foreign file is reported and ignored.
case_dally_state() {
  local st="$SD/dally.state" a b c
  # a (4): one machine holds it -> machine-tier accept, one recorded wait.
  a=$(submit -H --comment=netsched --gpus=4)
  ns --once --policy dally --state "$st"
  expect_line "$a placed n0"
  [ "$(head -2 "$st" | paste -sd' ')" = "netsched-slurm-state 2 policy dally" ] || fail "state header: $(head -2 "$st")"
  [ "$(grep -c '^wait 0 4 ' "$st")" -eq 1 ] || fail "state: $(cat "$st")"
  # b (4) after a restart: the first wait is replayed, the second added.
  b=$(submit -H --comment=netsched --gpus=4)
  ns --once --policy dally --state "$st"
  expect_line "$b placed n1"
  [ "$(grep -c '^wait 0 4 ' "$st")" -eq 2 ] || fail "state after restart: $(cat "$st")"
  # A decline: 2 GPUs with no machine holding 2 free (each node keeps 1 free).
  scancel "$a" "$b"
  for i in $(seq 1 100); do [ -z "$(job_state "$a")$(job_state "$b")" ] && break; sleep 0.1; done
  local fill
  fill=$(submit -N 16 --gpus-per-node=3)
  for i in $(seq 1 200); do [ "$(job_state "$fill")" = R ] && break; sleep 0.1; done
  c=$(submit -H --comment=netsched --gpus=2)
  ns --once --policy dally --state "$st"
  grep -qE "^$c waits: dally: no single machine free for it; declined after [0-9]+ s \(machine timer 43200 s, rack timer 86400 s\)$" <<<"$OUT" ||
    fail "decline line: $OUT"
  # Corrupt file: reported, ignored, replaced by the next save.
  printf 'netsched-slurm-state 1\npolicy dally\nwait 0 4 oops\n' >"$st"
  ns --once --policy dally --state "$st"
  expect_rc 0
  grep -q "state file '$st' ignored: malformed 'wait' line at line 3" <<<"$ERR" || fail "corrupt: $ERR"
  [ "$(grep -c '^wait' "$st")" -eq 0 ] || fail "corrupt file not replaced: $(cat "$st")"
  # Foreign file (another policy; not a state file at all).
  printf 'netsched-slurm-state 1\npolicy dally-manual\n' >"$st"
  ns --once --policy dally --state "$st"
  grep -q "ignored: it belongs to another policy" <<<"$ERR" || fail "foreign: $ERR"
  head -c 100 /dev/urandom >"$st"
  ns --once --policy dally --state "$st"
  expect_rc 0
  grep -q "ignored: not a netsched-slurm state file" <<<"$ERR" || fail "random bytes: $ERR"
  [ -z "$(ls "$SD" | grep '\.tmp\.')" ] || fail "temporary state files left: $(ls "$SD")"
}

# Bad usage (netsched-sim's conventions): one message naming the option and
# quoting the value, "did you mean" for a near miss, exit 2; --help lists
# every option with its default; --version.
case_usage() {
  ns --once --policy nope
  expect_rc 2
  grep -q "^netsched-slurm: --policy 'nope': unknown policy (known: ff ls " <<<"$ERR" || fail "$ERR"
  ns --once --policy vclso
  expect_rc 2
  grep -q "^netsched-slurm: --policy 'vclso': unknown policy; did you mean 'vclos'?" <<<"$ERR" || fail "$ERR"
  ns --interval -3
  expect_rc 2
  grep -q "^netsched-slurm: --interval '-3': expected a number" <<<"$ERR" || fail "$ERR"
  ns --once --order srfs
  expect_rc 2
  grep -q "^netsched-slurm: --order 'srfs': unknown order; did you mean 'srsf'? (known: fifo, srsf, sjf, nw-sens)" <<<"$ERR" || fail "$ERR"
  ns
  expect_rc 2
  grep -q "give exactly one of --once and --interval" <<<"$ERR" || fail "$ERR"
  # An unknown option is named as such (it used to read as a missing value).
  ns --once --bogus ''
  expect_rc 2
  [ "$(head -1 <<<"$ERR")" = "netsched-slurm: unknown option '--bogus'" ] || fail "$ERR"
  ns --once --polcy=vclos
  expect_rc 2
  grep -q "^netsched-slurm: unknown option '--polcy=vclos'; did you mean '--policy'?" <<<"$ERR" || fail "$ERR"
  ns --once --policy
  expect_rc 2
  grep -q "^netsched-slurm: missing value for '--policy'$" <<<"$ERR" || fail "$ERR"
  ns --once --dry-run=1
  expect_rc 2
  ns --once --timeout 0
  expect_rc 2
  grep -q "^netsched-slurm: --timeout '0': expected a number in \[1, 3600\]" <<<"$ERR" || fail "$ERR"
  ns --once --policy 2d-las --preempt requeu
  expect_rc 2
  grep -q "^netsched-slurm: --preempt 'requeu': unknown preemption mode; did you mean 'requeue'? (known: off, requeue)" <<<"$ERR" || fail "$ERR"
  ns --once --preempt requeue
  expect_rc 2
  grep -q "^netsched-slurm: --preempt 'requeue': policy ff never suspends a job (the preemptive policies: 2d-las, 2d-gittins)" <<<"$ERR" || fail "$ERR"
  ns --once --policy 2d-las --order srsf --preempt=requeue
  expect_rc 2
  grep -q "^netsched-slurm: --preempt 'requeue': policy 2d-las with --order srsf never suspends a job" <<<"$ERR" || fail "$ERR"
  # Dally's lease re-offers go by measured Nw_sens, which the adapter has
  # not: it never suspends under Slurm, so --preempt requeue is refused
  # with that reason (tests/slurm/test_decide_policy.c: the cycle itself).
  local dp
  for dp in dally dally-manual; do
    ns --once --policy "$dp" --preempt requeue
    expect_rc 2
    grep -q "^netsched-slurm: --preempt 'requeue': policy $dp never suspends a job under Slurm: its lease re-offers go by measured Nw_sens, which netsched-slurm cannot measure (the preemptive policies: 2d-las, 2d-gittins)$" <<<"$ERR" || fail "$ERR"
  done
  ns --once stray
  expect_rc 2
  grep -q "^netsched-slurm: unexpected argument 'stray'" <<<"$ERR" || fail "$ERR"
  # --help: every option on a line of its own with a description, each
  # option that takes a value with its default; exit 0 on stdout.
  ns --help
  expect_rc 0
  local o
  for o in --once --interval --policy --order --preempt --dry-run --partition --state --lock --timeout \
    --link-gbps --nic-gbps --links-per-pair --spines --seed --verbose --list --version --help; do
    grep -qE -- "^  $o( [A-Z]+)? +[a-z]" <<<"$OUT" || fail "--help does not describe $o"
  done
  for o in --interval --policy --order --preempt --partition --state --lock --timeout --link-gbps \
    --nic-gbps --links-per-pair --spines --seed; do
    grep -E -- "^  $o " <<<"$OUT" | grep -qE "\(default|until SIGTERM" || fail "--help: no default for $o"
  done
  grep -q "^Exit status: 0 done" <<<"$OUT" || fail "--help has no exit status"
  ns --version
  expect_rc 0
  grep -qE "^netsched-slurm [0-9]+\.[0-9]+\.[0-9]+ \(libnetsched [0-9.]+, built for Slurm [0-9]+\.[0-9]+\.[0-9]+\)$" <<<"$OUT" || fail "--version: $OUT"
  # No configuration: the documented status (4) and a message within
  # --timeout, not libslurm's fatal() (exit 1) after its 60 s of retries.
  local t0=$SECONDS
  SLURM_CONF="$SD/missing.conf" ns --once --timeout 2
  expect_rc 4
  [ $((SECONDS - t0)) -le 4 ] || fail "a missing slurm.conf took $((SECONDS - t0)) s to report"
  grep -q "^netsched-slurm: the Slurm configuration ($SD/missing.conf) could not be read within --timeout 2 s" <<<"$ERR" || fail "$ERR"
  local a
  a=$(submit -H --comment=netsched:model=gpt9 --gpus=1)
  ns --once
  expect_line "$a waits: bad hint in comment: unknown model 'gpt9' (known: vgg16|resnet50|inception3|lstm-ptb)"
}

# -N n --gpus-per-node=G with G below a node's GPUs: Slurm fixes G per node.
case_per_node() {
  local b c
  # b (-N 2 x 2) on an empty cluster: first-fit for all 4 GPUs takes GPUs
  # 0-3, all on n0 - not Slurm's split; so first-fit places one node's 2
  # GPUs twice: n0 (GPUs 0-1), then with n0 hidden n1 (GPUs 4-5).
  b=$(submit -H --comment=netsched -N 2 --gpus-per-node=2)
  ns --once
  expect_line "$b placed n0,n1"
  expect_runs "$b" n0,n1
  [ "$(gres_split "$b")" = "n0:2,n1:2" ] || fail "Slurm split $b as $(gres_split "$b")"
  # Dally is not asked twice (each offer feeds its tuner): its best-fit
  # machine accept puts c's 4 GPUs on n2 (n0, n1 have 2 free), so c waits.
  c=$(submit -H --comment=netsched -N 2 --gpus-per-node=2)
  ns --once --dry-run --policy dally
  expect_line "$c waits: the policy splits its 4 GPUs over 1 nodes unevenly; Slurm's -N 2 --gpus-per-node=2 cannot express that (submit with --gpus=4 to let the policy choose the split)"
}

# Issue 28, defect 1: a released --gpus=T job that has not started is
# modelled the way Slurm splits it (one GPU on each listed node, then the
# nodes' free GPUs in order), not as an even split. Slurm's own job holds 1
# GPU of n0; big (8) is placed by first-fit on n0 (3 free), n1, n2 and kept
# from starting by its begin time, so the next cycle sees it in flight:
# Slurm will give it n0:3, n1:4, n2:1, so small (1) goes to n2 (first-fit's
# lowest free GPU, 9). The even split (3, 3, 2) left a GPU free on n1 and
# sent small there, where it waited behind big with 52 GPUs idle.
case_inflight_split() {
  local r big small i
  r=$(submit -w n0 --gres=gpu:1)
  for i in $(seq 1 100); do [ "$(job_state "$r")" = R ] && break; sleep 0.1; done
  big=$(submit -H --begin=now+600 --comment=netsched --gpus=8)
  ns --once --policy ff
  expect_line "$big placed n0,n1,n2"
  [ "$(squeue -h -j "$big" -o '%t %Q')" != "PD 0" ] && [ "$(job_state "$big")" = PD ] ||
    fail "big is not released and pending: $(squeue -h -j "$big" -o '%t %r %Q')"
  small=$(submit -H --comment=netsched --gpus=1)
  ns --once --policy ff
  expect_line "$small placed n2"
  expect_runs "$small" n2
  # Slurm starts big on its nodes with exactly the split the cycle assumed.
  scontrol update JobId="$big" StartTime=now
  expect_runs "$big" n0,n1,n2
  [ "$(gres_split "$big")" = "n0:3,n1:4,n2:1" ] || fail "Slurm split $big as $(gres_split "$big")"
}

# Issue 28, defect 2: right after a controller restart the nodes are in
# state UNKNOWN until their slurmd registers again. The adapter decides
# nothing then (it used to count them as gone: re-place the released job
# elsewhere and tell the held one "no server has 4 free GPUs"). f was
# released onto n0, which Slurm's own job fills; h is held.
case_restart_unknown() {
  local fill f h i
  fill=$(submit -w n0 --gres=gpu:4)
  for i in $(seq 1 100); do [ "$(job_state "$fill")" = R ] && break; sleep 0.1; done
  f=$(submit -H --comment=netsched --gpus=4)
  scontrol update JobId="$f" NodeList=n0
  scontrol release "$f"
  h=$(submit -H --comment=netsched --gpus=4)
  ctld_stop
  ctld_start || { fail "slurmctld did not restart"; return; }
  ns --once
  local unknown
  unknown=$(sinfo -h -N -t unk -o %N | sort -u | wc -l)
  expect_rc 0
  [ -z "$OUT" ] || fail "decisions while nodes were UNKNOWN: $(tr '\n' '|' <<<"$OUT")"
  grep -qE "^netsched-slurm: [0-9]+ of 16 nodes \(n[0-9]+, \.\.\.\) have not registered since the controller started [0-9]+ s ago; nothing decided this cycle$" <<<"$ERR" ||
    fail "stderr (UNKNOWN nodes after the run: $unknown): $ERR"
  [ "$(scontrol show job "$f" | grep -o 'ReqNodeList=[^ ]*')" = "ReqNodeList=n0" ] ||
    fail "f was moved: $(scontrol show job "$f" | grep -o 'ReqNodeList=[^ ]*')"
  [ "$(squeue -h -j "$f" -o %Q)" != 0 ] || fail "f was held again"
  expect_held "$h"
  [ "$(job_comment "$h")" = netsched ] || fail "h got a reason: $(job_comment "$h")"
  # Once the nodes are back, f stays in flight on n0 and h is placed on n1.
  for i in $(seq 1 200); do [ -z "$(sinfo -h -N -t unk -o %N)" ] && break; sleep 0.1; done
  ns --once
  expect_rc 0
  [ "$OUT" = "$h placed n1" ] || fail "after the nodes registered: $(tr '\n' '|' <<<"$OUT")"
  expect_runs "$h" n1
  [ "$(scontrol show job "$f" | grep -o 'ReqNodeList=[^ ]*')" = "ReqNodeList=n0" ] || fail "f moved later"
}

# Issue 28, defect 3: vClos on a fabric with fewer spines than GPUs per
# server (--spines 1 < 4) has no virtual Clos, so an 8-GPU job needs one
# leaf with 2 idle nodes. With 3 nodes of every leaf busy it waits (it used
# to be "never fits this cluster"); a 20-GPU job (more than a leaf's 16)
# never fits. Leaf 2 freed: the 8-GPU job goes there (n8, n9).
case_few_spines() {
  local l fills=() a b i
  for l in 0 1 2 3; do fills+=("$(submit -N 3 --gpus-per-node=4 -w "n[$((4 * l))-$((4 * l + 2))]")"); done
  for i in $(seq 1 100); do [ -z "$(squeue -h -t pd -o %i)" ] && break; sleep 0.1; done
  a=$(submit -H --comment=netsched --gpus=8)
  b=$(submit -H --comment=netsched --gpus=20)
  ns --once --policy vclos --spines 1
  expect_line "$a waits: ns_vclos_place: no leaf has 2 idle servers now (no l x s virtual Clos of this fabric fits 8 GPUs: 1 spines, 4 GPUs per server)"
  grep -q "^$b waits: never fits this cluster: ns_vclos_place: job 'slurm-$b' (20 GPUs) fits no l x s virtual Clos" <<<"$OUT" || fail "b: $OUT"
  scancel "${fills[2]}"
  for i in $(seq 1 100); do [ -z "$(job_state "${fills[2]}")" ] && break; sleep 0.1; done
  ns --once --policy vclos --spines 1
  expect_line "$a placed n8,n9"
  expect_runs "$a" n8,n9
  expect_held "$b"
}

# Issue 31: the user's comment is kept byte for byte; only the section from
# the last " waits: " on is the adapter's, shortened to Slurm's 1024-byte
# limit (never the user's text); numeric hints are parsed strictly; a
# control character in a comment cannot break the one-line-per-job output.
case_comments() {
  local filler long u1000 u1020 a b c d e f g i
  filler=$(submit -w n15 --gres=gpu:1) # 63 GPUs free: a (64) waits
  for i in $(seq 1 100); do [ "$(job_state "$filler")" = R ] && break; sleep 0.1; done
  long="netsched my notes $(printf 'x%.0s' $(seq 1 700)) END"      # 728 bytes
  u1000="netsched $(printf 'y%.0s' $(seq 1 991))"                   # 1000 bytes
  u1020="netsched $(printf 'z%.0s' $(seq 1 1011))"                  # 1020 bytes
  a=$(submit -H --comment="$long" --gpus=64)
  b=$(submit -H --comment="$u1000" --gpus=64)
  c=$(submit -H --comment="$u1020" --gpus=64)
  d=$(submit -H --comment="netsched:iters=99999999999999999999999" --gpus=1)
  e=$(submit -H --comment="netsched:iters= -5" --gpus=1)
  f=$(submit -H --comment="netsched:model=vgg16,iters=0x10" --gpus=1)
  g=$(submit -H --comment="$(printf 'netsched:model=vgg\n16,iters=1\033[2J')" --gpus=1)
  ns --once
  expect_rc 0
  [ "$(wc -l <<<"$OUT")" -eq 7 ] || fail "not one line per job: $(tr '\n' '|' <<<"$OUT")"
  local why
  why=$(sed -n "s/^$a waits: //p" <<<"$OUT")
  [ -n "$why" ] || fail "no wait line for a"
  [ "$(job_comment "$a")" = "$long waits: $why" ] || fail "a's comment: $(job_comment "$a" | tail -c 120)"
  # 1000 + 8 bytes leave 16 for the reason: 13 of it and "..."
  [ "$(job_comment "$b")" = "$u1000 waits: ${why:0:13}..." ] || fail "b's comment: $(job_comment "$b" | tail -c 40)"
  [ "$(job_comment "$c")" = "$u1020" ] || fail "c's comment changed: $(job_comment "$c" | tail -c 40)"
  grep -q "^$c waits: ns_place_first_fit: " <<<"$OUT" || fail "c: $OUT"
  expect_line "$d waits: bad hint in comment: hint iters '99999999999999999999999' is not a whole number in [1, 2^53] (decimal digits only)"
  expect_line "$e waits: bad hint in comment: hint iters ' -5' is not a whole number in [1, 2^53] (decimal digits only)"
  expect_line "$f waits: bad hint in comment: hint iters '0x10' is not a whole number in [1, 2^53] (decimal digits only)"
  expect_line "$g waits: bad hint in comment: unknown model 'vgg\\x0a16' (known: vgg16|resnet50|inception3|lstm-ptb)"
  # Again: the section is replaced, never stacked.
  ns --once
  [ "$(job_comment "$a")" = "$long waits: $why" ] || fail "a's comment after a second cycle: $(job_comment "$a" | tail -c 120)"
  # Room appears: a is placed and its comment is the user's 728 bytes again.
  scancel "$filler" "$b" "$c"
  for i in $(seq 1 100); do [ -z "$(job_state "$filler")" ] && break; sleep 0.1; done
  ns --once
  expect_line "$a placed n0,n1,n2,n3,n4,n5,n6,n7,n8,n9,n10,n11,n12,n13,n14,n15"
  [ "$(job_comment "$a")" = "$long" ] || fail "a's comment once placed: $(job_comment "$a" | tail -c 120)"
}

# Issue 28: a stream of 30 jobs (1-16 GPUs, --gpus=N, one every 1.5 s, each
# running 2-6 s) under the daemon with --interval 1 --policy vclos, the
# controller restarted after the 15th. Every job runs, each is placed once,
# on exactly the nodes Slurm runs it on: one node for <= 4 GPUs, else
# ceil(N/4) nodes of one leaf (there is no virtual Clos with 1 spine).
case_stream() {
  local sizes=(1 2 4 8 1 3 16 2 1 8 4 2 6 1 8 2 1 16 4 3 8 1 2 12 1 8 4 2 5 1)
  local pid k ids=() id i t0=$SECONDS
  "$BIN" --lock "$SD/lock" --interval 1 --policy vclos >"$SD/s.out" 2>"$SD/s.err" &
  pid=$!
  for k in "${!sizes[@]}"; do
    if [ "$k" -eq 15 ]; then
      ctld_stop
      ctld_start || { fail "slurmctld did not restart"; break; }
    fi
    id=$(sbatch --parsable -o /dev/null -H --comment=netsched --gpus="${sizes[$k]}" \
      --wrap "echo \$SLURM_JOB_NODELIST > $SD/out/ran.\$SLURM_JOB_ID; sleep $((2 + k % 5))" | cut -d';' -f1)
    [ -n "$id" ] || fail "submission $k failed"
    ids+=("$id")
    sleep 1.5
  done
  for i in $(seq 1 900); do
    [ -z "$(squeue -h -o %i 2>/dev/null)" ] && [ "$(ls "$SD/out" | grep -c '^ran\.')" -ge 30 ] && break
    sleep 0.1
  done
  kill -TERM "$pid"
  wait "$pid" || fail "daemon exit $?"
  local ran
  ran=$(ls "$SD/out" | grep -c '^ran\.')
  [ "$ran" -eq 30 ] || fail "$ran of 30 jobs ran (left: $(squeue -h -o '%i %t %r' | tr '\n' '|'))"
  local multi=0 n placed nodes leaves want
  for k in "${!ids[@]}"; do
    id=${ids[$k]} n=${sizes[$k]}
    placed=$(grep -c "^$id placed " "$SD/s.out")
    [ "$placed" -eq 1 ] || { fail "job $id placed $placed times"; continue; }
    nodes=$(sed -n "s/^$id placed //p" "$SD/s.out")
    [ -s "$SD/out/ran.$id" ] || continue
    [ "$(scontrol show hostnames "$(cat "$SD/out/ran.$id")" | paste -sd,)" = "$nodes" ] ||
      fail "job $id placed on $nodes, ran on $(cat "$SD/out/ran.$id")"
    want=$(((n + 3) / 4))
    [ "$(tr , '\n' <<<"$nodes" | wc -l)" -eq "$want" ] || fail "job $id ($n GPUs) on $nodes"
    leaves=$(tr , '\n' <<<"$nodes" | sed 's/^n//' | awk '{print int($1 / 4)}' | sort -u | wc -l)
    [ "$leaves" -eq 1 ] || fail "job $id ($n GPUs) spans $leaves leaves: $nodes"
    [ "$n" -ge 8 ] && multi=$((multi + 1))
  done
  echo "  stream: 30 jobs ($multi of 8+ GPUs) done in $((SECONDS - t0)) s, restart included"
}

# Issue 28 item 3: --preempt requeue under 2d-las, on the 64-GPU cluster.
# L (preemptible) and N (not) hold 32 GPUs each (first-fit: n0-n7, n8-n15).
# Their earlier runs are in the --state file: 4000 GPU-s each, above
# 2D-LAS's first threshold (3250 GPU-s), so both run in the second queue.
# S (4 GPUs) arrives on the full cluster: it enters the first queue and is
# granted first; N is in the queue with no attained service (not
# preemptible: first queue, counted before S), so L's 32 do not fit in the
# 28 left and the policy suspends L: L is requeued (held), its attained
# service (4000 GPU-s + 32 x its run) joins its history in the state file,
# and S is placed on first-fit's lowest freed GPUs (n0). Every cycle is a
# fresh --once process reading the state file (an adapter restart each
# time). L waits until Slurm lets it start again (CredExpire 5 + 1 s),
# is placed again on n0-n7 once S has ended, runs its second run (which
# ends at once) and completes. N is never requeued.
case_preempt_las() {
  local st="$SD/las.state" l n s i out="" arr line got
  local args=(--once --policy 2d-las --preempt requeue --state "$st")
  l=$(sbatch --parsable -o /dev/null -H --comment=netsched:preemptible --gpus=32 --wrap \
    "echo run >> $SD/out/L.runs; [ \${SLURM_RESTART_COUNT:-0} -ge 1 ] && exit 0; sleep 300" | cut -d';' -f1)
  n=$(submit -H --comment=netsched --gpus=32)
  ns "${args[@]}"
  expect_line "$l placed n0,n1,n2,n3,n4,n5,n6,n7"
  expect_line "$n placed n8,n9,n10,n11,n12,n13,n14,n15"
  expect_runs "$l" n0,n1,n2,n3,n4,n5,n6,n7
  expect_runs "$n" n8,n9,n10,n11,n12,n13,n14,n15
  [ "$(head -1 "$st")" = "netsched-slurm-state 2" ] || fail "state: $(cat "$st")"
  arr=$(($(date -d "$(squeue -h -j "$l" -o %V)" +%s) * 1000))
  printf 'job %s 4000000 %s\njob %s 4000000 %s\n' "$l" "$arr" "$n" "$arr" >>"$st"
  s=$(sbatch --parsable -o /dev/null -H --comment=netsched --gpus=4 --wrap "sleep 2" | cut -d';' -f1)
  ns "${args[@]}"
  expect_rc 0
  out+="$OUT"$'\n'
  line=$(grep "^$l requeued " <<<"$OUT")
  got=$(sed -n 's/^[0-9]* requeued (attained service \([0-9]*\) GPU-s; .*/\1/p' <<<"$line")
  [ -n "$got" ] && [ "$got" -ge 4000 ] && [ "$got" -le 4100 ] || fail "requeue line: $OUT"
  expect_line "$s placed n0"
  [ "$(wc -l <<<"$OUT")" -eq 2 ] || fail "output: $(tr '\n' '|' <<<"$OUT")"
  for i in $(seq 1 100); do [ "$(job_state "$l")" = CG ] || break; sleep 0.1; done # its processes end
  [ "$(squeue -h -j "$l" -o '%t %Q %r')" = "PD 0 job requeued in held state" ] ||
    fail "L after the requeue: $(squeue -h -j "$l" -o '%t %Q %r')"
  # history: 4000 GPU-s + 32 GPUs x this run (Slurm's whole seconds), the
  # attained service the requeue line printed; its first arrival kept
  line=$(grep "^job $l " "$st")
  awk -v a="$arr" -v g="$got" '{ d = $3 - g * 1000; exit !($3 >= 4000000 && $3 % 32000 == 0 &&
    d > -500 && d <= 500 && $4 == a) }' <<<"$line" ||
    fail "L's history after the requeue: '$line' (printed $got GPU-s, arrival $arr)"
  expect_runs "$s" n0
  for i in $(seq 1 40); do # one --once a second: a restart each time
    ns "${args[@]}"
    out+="$OUT"$'\n'
    grep -q "^$l placed " <<<"$OUT" && break
    grep -qE "^$l waits: (requeued; Slurm lets it start again in [0-9]+ s|2d-las: |.*GPUs)" <<<"$OUT" ||
      fail "L while requeued: $(tr '\n' '|' <<<"$OUT")"
    sleep 1
  done
  expect_line "$l placed n0,n1,n2,n3,n4,n5,n6,n7"
  for i in $(seq 1 100); do
    case "$(squeue -h -t all -j "$l" -o %T 2>/dev/null)" in "" | COMPLETED) break ;; esac
    sleep 0.1
  done
  [ "$(cat "$SD/out/L.runs" 2>/dev/null | wc -l)" -eq 2 ] || fail "L ran $(wc -l <"$SD/out/L.runs") times"
  case "$(squeue -h -t all -j "$l" -o %T 2>/dev/null)" in "" | COMPLETED) ;; *) fail "L did not complete: $(squeue -h -t all -j "$l" -o '%T %r')" ;; esac
  # L ended: the next cycle drops its history (a completed job is in no snapshot)
  ns "${args[@]}"
  ! grep -q "^job $l " "$st" || fail "L's history outlived it: $(cat "$st")"
  grep -q "^$n " <<<"$out" && fail "N was decided on: $(grep "^$n " <<<"$out")"
  [ "$(grep -c ' requeued ' <<<"$out")" -eq 1 ] || fail "requeues: $(grep ' requeued ' <<<"$out")"
  [ "$(job_state "$n")" = R ] && scontrol show job "$n" | grep -q "Restarts=0 " ||
    fail "N: $(squeue -h -j "$n" -o '%t %r'), $(scontrol show job "$n" | grep -o 'Restarts=[0-9]*')"
}

# --preempt requeue's failures: the policy suspends P (32 GPUs, n0-n7) and
# Q (n8-n15) - both preemptible, 4000 GPU-s each from the state file, so
# both in 2D-LAS's second queue - for H (36 GPUs, first queue: granted
# first, 28 left). Between the decision and the requeues (the test pause)
# P loses its requeue flag and Q is cancelled. P: Slurm refuses, P keeps
# its GPUs, and H, placed by first-fit on n0-n8, would land on them: it
# waits, saying so. Q: gone, nothing to do. Without --preempt, or with a
# policy that never suspends, --preempt is a usage error / nothing.
case_preempt_faults() {
  local st="$SD/f.state" p q h arr pid
  p=$(submit -H --comment=netsched:preemptible --gpus=32)
  q=$(submit -H --comment=netsched:model=resnet50,iters=10,preemptible --gpus=32)
  ns --once --policy 2d-las --preempt requeue --state "$st"
  expect_runs "$p" n0,n1,n2,n3,n4,n5,n6,n7
  expect_runs "$q" n8,n9,n10,n11,n12,n13,n14,n15
  arr=$(($(date -d "$(squeue -h -j "$p" -o %V)" +%s) * 1000))
  printf 'job %s 4000000 %s\njob %s 4000000 %s\n' "$p" "$arr" "$q" "$arr" >>"$st"
  h=$(submit -H --comment=netsched --gpus=36)
  NETSCHED_SLURM_TEST_PAUSE_S=3 "$BIN" --lock "$SD/lock" --once --policy 2d-las --preempt requeue \
    --state "$st" >"$SD/out.txt" 2>"$SD/err.txt" &
  pid=$!
  for i in $(seq 1 50); do grep -q "test pause" "$SD/err.txt" 2>/dev/null && break; sleep 0.1; done
  scontrol update JobId="$p" Requeue=0
  scancel "$q"
  wait $pid
  RC=$?
  OUT=$(cat "$SD/out.txt")
  ERR=$(cat "$SD/err.txt")
  expect_rc 0
  grep -q "^$p requeued " <<<"$OUT" || fail "P: $OUT"
  grep -q "^$q requeued " <<<"$OUT" || fail "Q: $OUT"
  grep -q "^netsched-slurm: job $p: Slurm refused to requeue it: .*; it is not offered as preemptible again$" <<<"$ERR" ||
    fail "no refusal for P: $ERR"
  grep -q "^netsched-slurm: job $q: not requeued, it does not run any more" <<<"$ERR" || fail "no message for Q: $ERR"
  expect_line "$h waits: its GPUs were to come from job $p, which Slurm refused to requeue"
  [ "$(job_state "$p")" = R ] || fail "P: $(squeue -h -j "$p" -o '%t %r')"
  expect_held "$h"
  grep -q "^job $p " "$st" && [ "$(grep "^job $p " "$st" | cut -d' ' -f3)" = 4000000 ] ||
    fail "P's history changed: $(cat "$st")"
  # The next cycle reads P's requeue flag: not preemptible, nothing suspended.
  ns --once --policy 2d-las --preempt requeue --state "$st"
  expect_no_line_re "requeued"
  grep -q "^$h waits: " <<<"$OUT" || fail "H: $OUT"
}

CASES=("$@")
[ ${#CASES[@]} -gt 0 ] || CASES=(case_usage case_ff_once case_per_node case_lwf1 case_vclos case_waits case_order case_partition
  case_cassini case_unusable_nodes case_faults_midcycle case_job_finishes_midcycle
  case_lock_and_signals case_dally_state
  case_controller_restart case_all_presets
  case_inflight_split case_restart_unknown case_few_spines case_comments case_stream
  case_preempt_las case_preempt_faults)

t0=$SECONDS
slurm_up || { echo "tests/slurm: FAILED - the test cluster did not start"; exit 1; }
echo "tests/slurm: 16 nodes up in $SD"
# NS_SLURM_SKIP="case_a case_b: reason": cases left out of this run, each
# named on a SKIP line with the reason.
skip_list=${NS_SLURM_SKIP:-}
skip_cases=${skip_list%%:*} skip_why=${skip_list#*:}
for c in "${CASES[@]}"; do
  if [ -n "$skip_list" ] && [[ " $skip_cases " == *" $c "* ]]; then
    echo "   SKIP $c:${skip_why}"; continue
  fi
  run_case "$c"
done
echo "tests/slurm: $PASS passed, $FAIL failed (${FAILED[*]:-}) in $((SECONDS - t0)) s"
[ "$FAIL" -eq 0 ]
