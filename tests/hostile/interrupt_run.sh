#!/usr/bin/env bash
# `ttlplan run` that gets SIGTERM while its emulated program runs: the program's process group is
# killed, the work directory removed, and run ends with exit 1 and one line saying so.
# Usage: interrupt_run.sh TTLPLAN KERNEL.ttl (a kernel that does not end: endless_loop.ttl)
set -uo pipefail
ttlplan=$1 kernel=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TMPDIR=$work
source "$(dirname "$0")/start_run.sh"
start_run "$ttlplan" "$kernel" "$work/out.txt"
kill -TERM "$run"
wait "$run"
status=$?
sleep 0.5
fail=0
[[ $status -eq 1 ]] || { echo "exit status $status, wanted 1"; fail=1; }
if kill -0 "$host" 2>/dev/null; then echo "the emulated program $host survived"; fail=1; fi
grep -q "interrupted by signal 15" "$work/out.txt" || { echo "no interruption message"; fail=1; }
leftover=$(find "$work" -maxdepth 1 -name 'ttlplan-run-*' | wc -l)
[[ $leftover -eq 0 ]] || { echo "$leftover work directories left behind"; fail=1; }
cat "$work/out.txt"
exit $fail
