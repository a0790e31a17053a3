# tests/slurm/harness.sh - a real Slurm on this machine for the netsched-slurm
# tests (sourced by tests/slurm/run.sh; recipe in design/SLURM.md).
#
# slurm_up        starts slurmctld and 16 slurmd (4 leaves x 4 nodes x 4 GPUs,
#                 topology/tree with leaf0..leaf3 under one spine) on free
#                 ports, in a fresh temporary directory $SD; exports SLURM_CONF.
# slurm_down      scancels every job, waits for squeue to be empty (a running
#                 job's slurmstepd outlives slurmd otherwise), stops every
#                 daemon by the PID it wrote, removes $SD. Idempotent: the
#                 caller traps it on EXIT so a failing test cleans up too.
# ctld_stop / ctld_start   stop and restart the controller alone (fault tests).

HARNESS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SLURM_NODES=16
SLURM_GPUS=4

# N free TCP ports on 127.0.0.1, chosen by the kernel (bound at once, so distinct).
free_ports() {
  /usr/bin/python3 - "$1" <<'PY'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
}

ctld_start() {
  slurmctld -f "$SD/slurm.conf" -i || return 1
  local i
  for i in $(seq 1 100); do scontrol ping >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "harness: slurmctld did not answer (log: $SD/log/ctld.log)" >&2
  return 1
}

# Stops these PIDs (SIGTERM, SIGKILL after 10 s) and waits until they are gone.
stop_pids() {
  local pid i alive
  [ $# -gt 0 ] || return 0
  kill "$@" 2>/dev/null
  for i in $(seq 1 100); do
    alive=0
    for pid in "$@"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ $alive -eq 0 ] && return 0
    sleep 0.1
  done
  kill -9 "$@" 2>/dev/null
  return 0
}

stop_pidfile() { [ -s "$1" ] && stop_pids "$(cat "$1")"; return 0; }

ctld_stop() { stop_pidfile "$SD/ctld.pid"; }

slurm_up() {
  SD=$(mktemp -d /tmp/netsched-slurm-test.XXXXXX)
  export SD
  mkdir -p "$SD/state" "$SD/log" "$SD/dev" "$SD/out"
  local ports i l
  read -r -a ports <<<"$(free_ports $((SLURM_NODES + 1)))"
  for i in $(seq 0 $((SLURM_GPUS - 1))); do ln -s /dev/null "$SD/dev/nvidia$i"; done
  for i in $(seq 0 $((SLURM_NODES - 1))); do mkdir -p "$SD/spool/n$i"; done
  {
    echo "ClusterName=nstest"
    echo "SlurmctldHost=localhost"
    echo "SlurmctldPort=${ports[0]}"
    echo "AuthType=auth/none"
    echo "CredType=cred/none"
    echo "SlurmUser=root"
    echo "SlurmdUser=root"
    echo "StateSaveLocation=$SD/state"
    echo "SlurmdSpoolDir=$SD/spool/%n"
    echo "SlurmctldPidFile=$SD/ctld.pid"
    echo "SlurmdPidFile=$SD/d.%n.pid"
    echo "SlurmctldLogFile=$SD/log/ctld.log"
    echo "SlurmdLogFile=$SD/log/d.%n.log"
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "MpiDefault=none"
    echo "SchedulerType=sched/builtin"
    echo "SelectType=select/cons_tres"
    echo "SelectTypeParameters=CR_Core"
    echo "SlurmdParameters=config_overrides"
    echo "ReturnToService=2"
    echo "AccountingStorageType=accounting_storage/none"
    echo "JobCompType=jobcomp/none"
    echo "TopologyPlugin=topology/tree"
    echo "GresTypes=gpu"
    echo "MinJobAge=2"
    echo "JobSubmitPlugins=lua"  # docs/slurm.md's job_submit.lua (partition "auto")
    echo "KillWait=1"
    echo "AuthInfo=cred_expire=5"  # a requeued job may start again after 6 s, not 121 s
    echo "SlurmdTimeout=10"   # pings every ~3 s: a resumed node answers again quickly
    for i in $(seq 0 $((SLURM_NODES - 1))); do
      echo "NodeName=n$i NodeHostname=localhost NodeAddr=127.0.0.1 Port=${ports[$((i + 1))]} CPUs=8 Gres=gpu:$SLURM_GPUS State=UNKNOWN"
    done
    echo "PartitionName=gpu Nodes=n[0-$((SLURM_NODES - 1))] Default=YES MaxTime=INFINITE State=UP"
    echo "PartitionName=auto Nodes=n[0-$((SLURM_NODES - 1))] MaxTime=INFINITE State=UP"
  } >"$SD/slurm.conf"
  for l in 0 1 2 3; do
    echo "SwitchName=leaf$l Nodes=n[$((4 * l))-$((4 * l + 3))]"
  done >"$SD/topology.conf"
  echo "SwitchName=spine Switches=leaf[0-3]" >>"$SD/topology.conf"
  {
    echo "AutoDetect=off"
    echo "NodeName=n[0-$((SLURM_NODES - 1))] Name=gpu File=$SD/dev/nvidia[0-$((SLURM_GPUS - 1))]"
  } >"$SD/gres.conf"
  # The job_submit.lua of docs/slurm.md, verbatim.
  awk '/^```lua$/ { on = 1; next } /^```/ { on = 0 } on' "$HARNESS_DIR/../../docs/slurm.md" >"$SD/job_submit.lua"
  [ -s "$SD/job_submit.lua" ] || { echo "harness: no job_submit.lua block in docs/slurm.md" >&2; return 1; }
  export SLURM_CONF="$SD/slurm.conf"
  ctld_start || return 1
  for i in $(seq 0 $((SLURM_NODES - 1))); do
    slurmd -f "$SD/slurm.conf" -N "n$i" || { echo "harness: slurmd n$i failed" >&2; return 1; }
  done
  wait_idle "$SLURM_NODES"
}

# Waits until $1 nodes are idle (30 s at most).
wait_idle() {
  local i n
  for i in $(seq 1 300); do
    n=$(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)
    [ "$n" -ge "$1" ] && return 0
    sleep 0.1
  done
  echo "harness: only $n of $1 nodes idle after 30 s" >&2
  sinfo -N >&2
  return 1
}

# Cancels every job and waits (20 s at most) until squeue is empty.
cancel_all() {
  local i
  scancel --quiet --full -u root 2>/dev/null
  for i in $(seq 1 200); do
    [ -z "$(squeue -h -o %i 2>/dev/null)" ] && return 0
    scancel --quiet --full -u root 2>/dev/null
    sleep 0.1
  done
  echo "harness: jobs left after scancel:" >&2
  squeue >&2
  return 1
}

slurm_down() {
  [ -n "${SD:-}" ] && [ -d "$SD" ] || return 0
  if [ -s "$SD/ctld.pid" ] && kill -0 "$(cat "$SD/ctld.pid")" 2>/dev/null; then
    cancel_all
  fi
  # slurmd takes ~2 s to stop: signal them all, then wait for each.
  local f pids=()
  for f in "$SD"/d.*.pid; do [ -s "$f" ] && pids+=("$(cat "$f")"); done
  stop_pids "${pids[@]}"
  ctld_stop
  rm -rf "$SD"
  SD=
}
