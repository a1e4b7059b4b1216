# Sourced by interrupt_run.sh and kill_run.sh: start_run TTLPLAN KERNEL OUT starts
# `ttlplan run --timeout 0 KERNEL` in the background (output to OUT) and waits, at most 120 s,
# until its emulated program runs (a child of `run` named .../host). Sets `run` and `host` to their
# PIDs; exits 1 when the program never starts.
start_run() {
  "$1" run --timeout 0 "$2" >"$3" 2>&1 &
  run=$!
  for _ in $(seq 1200); do
    host=$(pgrep -P "$run" -f '/host ' || true)
    [[ -n $host ]] && return 0
    sleep 0.1
  done
  echo "the emulated program never started"
  cat "$3"
  exit 1
}
