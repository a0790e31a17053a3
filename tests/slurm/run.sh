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
  cancel_all >/dev/null || true
  "$CASE"
  if [ $CASE_OK -eq 1 ]; then PASS=$((PASS + 1)); else FAIL=$((FAIL + 1)); FAILED+=("$CASE"); fi
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

# The controller: unreachable -> exit 2 (--once); a restart under the
# daemon -> retries with backoff, then places again.
case_controller_restart() {
  local pid a
  "$BIN" --lock "$SD/lock" --interval 0.5 >"$SD/d.out" 2>"$SD/d.err" &
  pid=$!
  sleep 1
  ctld_stop
  ns --once --lock "$SD/lock2"
  expect_rc 2
  grep -q "controller could not be reached" <<<"$ERR" || fail "message: $ERR"
  for i in $(seq 1 300); do grep -q "retrying in" "$SD/d.err" && break; sleep 0.1; done
  grep -q "retrying in" "$SD/d.err" || fail "daemon did not report the outage: $(cat "$SD/d.err")"
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
  [ "$(head -2 "$st" | paste -sd' ')" = "netsched-slurm-state 1 policy dally" ] || fail "state header: $(head -2 "$st")"
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

# Bad usage: a message naming the option and quoting the value; exit 1.
case_usage() {
  ns --once --policy nope
  expect_rc 1
  grep -q "^netsched-slurm: --policy 'nope': unknown policy; known: ff " <<<"$ERR" || fail "$ERR"
  ns --interval -3
  expect_rc 1
  grep -q "^netsched-slurm: --interval '-3': expected a number" <<<"$ERR" || fail "$ERR"
  ns --once --order zz
  grep -q "^netsched-slurm: --order 'zz': unknown order; known: fifo|srsf|sjf|nw-sens" <<<"$ERR" || fail "$ERR"
  ns
  expect_rc 1
  grep -q "give exactly one of --once and --interval" <<<"$ERR" || fail "$ERR"
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

CASES=("$@")
[ ${#CASES[@]} -gt 0 ] || CASES=(case_usage case_ff_once case_per_node case_lwf1 case_vclos case_waits case_order case_partition
  case_cassini case_unusable_nodes case_faults_midcycle case_job_finishes_midcycle
  case_lock_and_signals case_dally_state
  case_controller_restart case_all_presets)

t0=$SECONDS
slurm_up || { echo "tests/slurm: FAILED - the test cluster did not start"; exit 1; }
echo "tests/slurm: 16 nodes up in $SD"
for c in "${CASES[@]}"; do run_case "$c"; done
echo "tests/slurm: $PASS passed, $FAIL failed (${FAILED[*]:-}) in $((SECONDS - t0)) s"
[ "$FAIL" -eq 0 ]
