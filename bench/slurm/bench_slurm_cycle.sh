#!/usr/bin/env bash
# bench/slurm/bench_slurm_cycle.sh BINARY [JOBS] - one whole netsched-slurm
# cycle against the real 16-node test cluster (tests/slurm/harness.sh) with
# JOBS (default 1000) held, opted-in jobs of the AdaDUAL size mix (1-32 GPUs):
#  - `--once --dry-run` x 5: read nodes, topology and jobs over RPC, decide,
#    print (the read + decision part of a cycle);
#  - `--once` x 1: the same plus one RPC per job (reload + comment) and the
#    updates of the placed jobs.
# Needs root and slurm-wlm, like tests/slurm. Prints median / max wall ms.
set -u
BIN=${1:?usage: bench_slurm_cycle.sh path/to/netsched-slurm [jobs]}
JOBS=${2:-1000}
HERE=$(cd "$(dirname "$0")" && pwd)
command -v slurmctld >/dev/null && [ "$(id -u)" -eq 0 ] ||
  { echo "bench_slurm_cycle: SKIPPED - needs root and slurm-wlm"; exit 0; }
# shellcheck source=../../tests/slurm/harness.sh
source "$HERE/../../tests/slurm/harness.sh"
trap slurm_down EXIT
slurm_up || exit 1

sizes=(1 1 1 1 1 1 1 1 2 2 4 4 4 8 8 8 16 32)
t0=$(date +%s.%N)
for i in $(seq 1 "$JOBS"); do
  g=${sizes[$((RANDOM % ${#sizes[@]}))]}
  sbatch -H --comment=netsched:model=resnet50,iters=$((1000 + RANDOM % 5000)) --gpus="$g" \
    -o /dev/null --wrap "sleep 600" >/dev/null || exit 1
done
echo "submitted $JOBS held jobs in $(echo "$(date +%s.%N) - $t0" | bc) s"

ms() { local a b; a=$(date +%s%N); "$@" >/dev/null 2>&1; b=$(date +%s%N); echo $(((b - a) / 1000000)); }
lines=$("$BIN" --once --dry-run | wc -l)
[ "$lines" -eq "$JOBS" ] || { echo "bench_slurm_cycle: a dry run printed $lines lines, not $JOBS"; exit 1; }
for policy in ff vclos; do
  runs=()
  for r in 1 2 3 4 5; do runs+=("$(ms "$BIN" --once --dry-run --policy "$policy")"); done
  sorted=$(printf '%s\n' "${runs[@]}" | sort -n | paste -sd' ')
  echo "$policy --once --dry-run (read + decide), 5 runs, ms: $sorted (median $(printf '%s\n' "${runs[@]}" | sort -n | sed -n 3p))"
done
t=$(ms "$BIN" --once --lock "$SD/lock" --policy ff)
sleep 5
placed=$(squeue -h -t R | wc -l)
echo "ff --once (read + decide + act on $JOBS jobs): $t ms; $placed jobs running 5 s later"
