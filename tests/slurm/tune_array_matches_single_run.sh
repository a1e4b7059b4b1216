#!/usr/bin/env bash
# ctest slurm.tune_array_matches_single_run: scripts/slurm/tune-array.sh on a private single-node
# Slurm cluster (tests/slurm/cluster.sh) gives the single-machine run's result: `db best --json`
# equal, and the merged db's lines equal to `db merge` of the single run's db once every "timing"
# member is removed.
#   tune_array_matches_single_run.sh TTLPLAN SOURCE_DIR WORK_DIR
# Fails (never skips) when Slurm or munge is missing or the cluster does not start.
set -euo pipefail
[[ $# -eq 3 ]] || { echo "usage: $0 TTLPLAN SOURCE_DIR WORK_DIR" >&2; exit 2; }
ttlplan=$1 source=$2 work=$3
fail() { echo "FAIL: $*" >&2; exit 1; }

template=$source/examples/matmul_2d_template.ttl
# 128^3: a 768-point space, enough for three shards that each hold records
bind=M=128,K=128,N=128,DTYPE=bf16,FIDELITY=HiFi2,FP32_DEST_ACC=0,out_subblock_h=1,out_subblock_w=1
rm -rf "$work"
mkdir -p "$work"

for tool in sbatch slurmctld slurmd munged python3; do
  command -v "$tool" > /dev/null ||
    fail "'$tool' is not installed: the slurm tests need the Debian packages slurm-wlm and munge" \
         "(scripts/setup.sh installs them)"
done

# The sharded run on the cluster (3 array tasks, then the merge job; --wait blocks until it ends).
# The cluster lives in a mktemp dir (unix socket paths must stay short), removed on exit.
"$source/tests/slurm/cluster.sh" -- \
  "$source/scripts/slurm/tune-array.sh" -n 3 -o "$work/array.jsonl" --ttlplan "$ttlplan" --wait \
  -- "$template" --bind "$bind" > "$work/array.out" 2>&1 ||
  { cat "$work/array.out" >&2; fail "the cluster or tune-array.sh failed (output above)"; }
cat "$work/array.out"
for i in 0 1 2; do
  [[ -s $work/array.shard-$i.jsonl ]] || fail "shard db $work/array.shard-$i.jsonl missing or empty"
done
grep -qF "merged 3 files into $work/array.jsonl" "$work/array.out" ||
  fail "the merge job's log (db merge) is not in tune-array.sh's output"

# The single-machine run, and its db through `db merge` (the same writer as the array's merge).
"$ttlplan" tune "$template" --bind "$bind" --db "$work/single.jsonl" --quiet > /dev/null
"$ttlplan" db merge "$work/single.jsonl" -o "$work/single-merged.jsonl" > /dev/null
"$ttlplan" db best --json - "$work/single.jsonl" > "$work/single-best.json"
"$ttlplan" db best --json - "$work/array.jsonl" > "$work/array-best.json"

python3 - "$work" << 'EOF'
import json, sys
work = sys.argv[1]

def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k != "timing"}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v

def lines(name):
    with open(f"{work}/{name}") as f:
        return [strip(json.loads(line)) for line in f if line.strip()]

single_best = json.load(open(f"{work}/single-best.json"))
array_best = json.load(open(f"{work}/array-best.json"))
if "best" not in single_best or not single_best["best"]:
    sys.exit(f"FAIL: the single run's db best has no best: {single_best}")
if single_best != array_best:
    sys.exit(f"FAIL: db best differs:\nsingle: {single_best}\narray:  {array_best}")

single, array = lines("single-merged.jsonl"), lines("array.jsonl")
if len(single) < 2:
    sys.exit(f"FAIL: the single run's merged db has {len(single)} lines")
if len(single) != len(array):
    sys.exit(f"FAIL: {len(single)} lines in the single run's merged db, {len(array)} in the array's")
for n, (a, b) in enumerate(zip(single, array), 1):
    if a != b:
        sys.exit(f"FAIL: line {n} differs (timing removed):\nsingle: {json.dumps(a)}\n"
                 f"array:  {json.dumps(b)}")
print(f"the array's merged db equals the single run's: {len(single)} lines, best "
      f"{json.dumps(single_best['best'])[:200]}")
EOF
