#!/usr/bin/env bash
# `ttlplan run` killed with SIGKILL (which it cannot catch) while its emulated program runs: the
# program ends with it (TTLPLAN_EMU_PARENT, PR_SET_PDEATHSIG), and the work directory it left is
# removed by the next `run`, which finds its PID dead. A kept directory (--keep) stays.
# Usage: kill_run.sh TTLPLAN KERNEL.ttl (a kernel that does not end: endless_loop.ttl)
set -uo pipefail
ttlplan=$1 kernel=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TMPDIR=$work
fail=0
# A kept directory of an earlier run must survive everything below.
"$ttlplan" run --timeout 1 --keep "$kernel" >"$work/kept.txt" 2>&1
kept=$(find "$work" -maxdepth 1 -name 'ttlplan-run-*')
[[ -n $kept ]] || { echo "--keep kept no directory"; cat "$work/kept.txt"; fail=1; }
source "$(dirname "$0")/start_run.sh"
start_run "$ttlplan" "$kernel" "$work/out.txt"
kill -KILL "$run"
wait "$run" 2>/dev/null
for _ in $(seq 50); do kill -0 "$host" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$host" 2>/dev/null; then
  echo "the emulated program $host outlived run"
  kill -KILL "$host"
  fail=1
fi
left=$(find "$work" -maxdepth 1 -name "ttlplan-run-$run-*")
[[ -n $left ]] || { echo "expected the killed run's work directory to be left"; fail=1; }
# The next run removes it (and its own), and leaves the kept one.
"$ttlplan" run --timeout 1 "$kernel" >"$work/next.txt" 2>&1
[[ -z $left || ! -e $left ]] || { echo "the next run did not remove $left"; fail=1; }
[[ -z $kept || -e $kept ]] || { echo "the kept directory $kept was removed"; fail=1; }
others=$(find "$work" -maxdepth 1 -name 'ttlplan-run-*' ! -path "$kept" | wc -l)
[[ $others -eq 0 ]] || { echo "$others work directories left behind"; fail=1; }
[[ $fail -eq 0 ]] && echo "kill_run: ok"
exit $fail
