#!/usr/bin/env bash
# A private single-node Slurm cluster for tests: starts munged, slurmctld and slurmd in a temporary
# directory, runs COMMAND with SLURM_CONF pointing at the cluster, stops everything on exit.
#
#   tests/slurm/cluster.sh [--dir DIR] [--keep] -- COMMAND [ARGS...]
#
# Needs root and the Debian 12 packages slurm-wlm and munge (scripts/setup.sh installs them;
# Debian 12 ships Slurm 22.05.8 and MUNGE 0.5.15). Nothing outside DIR is touched: the munge key,
# socket, pid and log files, the slurm.conf, state and spool directories all live in DIR, the
# daemons get free TCP ports, and no systemd is needed (daemons are started directly). Containers
# without cgroup access work: proctrack/linuxproc, task/none, jobacct_gather/none.
#
# If the cluster does not come up within $SLURM_TEST_START_TIMEOUT seconds (default 60) the script
# fails with exit 1, printing the daemons' logs. Otherwise it exits with COMMAND's status.
set -euo pipefail

usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "cluster.sh: $*" >&2; exit 1; }

dir="" keep=0
while (($#)); do
  case $1 in
    --dir) [[ $# -ge 2 ]] || die "--dir needs a value"; dir=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    *) die "unknown option '$1' (usage: cluster.sh [--dir DIR] [--keep] -- COMMAND...)" ;;
  esac
done
(($#)) || die "no COMMAND given (usage: cluster.sh [--dir DIR] [--keep] -- COMMAND...)"
[[ $(id -u) -eq 0 ]] || die "must run as root (slurmd runs jobs as root here)"
for tool in munged slurmctld slurmd sinfo squeue scancel python3; do
  command -v "$tool" > /dev/null ||
    die "'$tool' not found: install the Debian packages slurm-wlm and munge (scripts/setup.sh)"
done

if [[ -z $dir ]]; then
  dir=$(mktemp -d "${TMPDIR:-/tmp}/ttlplan-slurm.XXXXXX")
else
  rm -rf "$dir"
  mkdir -p "$dir"
fi
dir=$(cd "$dir" && pwd)
chmod 700 "$dir"
mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
chmod 700 "$dir/munge"

pids=()
show_logs() {
  local f
  for f in "$dir"/log/*; do
    [[ -f $f ]] || continue
    echo "----- $f (last 60 lines) -----" >&2
    tail -n 60 "$f" >&2 || true
  done
}
cleanup() {
  local rc=$? pid i
  trap - EXIT INT TERM
  # Cancel what is still queued or running in this (private) cluster and give it a moment, so no
  # job step outlives slurmd; then slurmd, the controller and munged, in reverse start order.
  if [[ -n ${SLURM_CONF:-} ]] && ((${#pids[@]} >= 3)); then
    local jobs
    jobs=$(squeue -h -o %A 2> /dev/null || true)
    if [[ -n $jobs ]]; then
      scancel $jobs 2> /dev/null || true
      for _ in $(seq 50); do [[ -z $(squeue -h -o %A 2> /dev/null) ]] && break; sleep 0.2; done
    fi
  fi
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    pid=${pids[i]}
    kill "$pid" 2> /dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2> /dev/null || true
  done
  if ((keep)); then echo "cluster.sh: kept $dir" >&2; else rm -rf "$dir"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- munge: a private key and socket -----------------------------------------------------------
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge/munge.key"
socket=$dir/munge/munge.socket
((${#socket} < 90)) || die "'$dir' is too long a path for unix sockets: use a shorter --dir"
munged --foreground --force --key-file="$dir/munge/munge.key" --socket="$socket" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" \
  --seed-file="$dir/munge/munged.seed" > "$dir/log/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [[ -S $socket ]] && break; sleep 0.1; done
[[ -S $socket ]] || { show_logs; die "munged did not create its socket $socket"; }

# --- slurm.conf ---------------------------------------------------------------------------------
free_ports() {
  python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))'
}
read -r ctld_port slurmd_port < <(free_ports)
node=$(hostname -s)
cpus=$(nproc)
conf=$dir/slurm.conf
cat > "$conf" << EOF
# Written by tests/slurm/cluster.sh (Slurm 22.05, Debian 12).
ClusterName=ttlplantest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MailProg=/bin/true
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1,sched_min_interval=0,batch_sched_delay=0
MinJobAge=300
MaxArraySize=1001
# Fast start and turnaround for tests.
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=100 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
# No cgroups: an empty cgroup.conf next to slurm.conf keeps slurmd from reading /etc/slurm's.
: > "$dir/cgroup.conf"
export SLURM_CONF=$conf

# --- daemons --------------------------------------------------------------------------------------
slurmctld -D -i -f "$conf" > "$dir/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$conf" -N "$node" > "$dir/log/slurmd.out" 2>&1 &
pids+=($!)

timeout=${SLURM_TEST_START_TIMEOUT:-60}
state=""
for ((t = 0; t < timeout * 2; t++)); do
  for pid in "${pids[@]}"; do
    kill -0 "$pid" 2> /dev/null || { show_logs; die "a daemon (pid $pid) exited while starting"; }
  done
  state=$(sinfo -h -N -n "$node" -o '%t' 2> /dev/null || true)
  [[ $state == idle ]] && break
  sleep 0.5
done
if [[ $state != idle ]]; then
  show_logs
  scontrol show node "$node" >&2 || true
  die "the node '$node' is not idle after ${timeout}s (sinfo state: '${state:-none}')"
fi
echo "cluster.sh: slurm cluster up in $dir (node $node, $cpus CPUs, slurmctld port $ctld_port)" >&2

rc=0
"$@" || rc=$?
if ((rc)); then
  echo "cluster.sh: the command exited $rc; the daemons' logs:" >&2
  show_logs
fi
exit "$rc"
