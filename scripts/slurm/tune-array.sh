#!/usr/bin/env bash
# Runs a `ttlplan tune` as a Slurm job array: task i of N tunes shard i/N into its own db, then a
# job that depends on the whole array merges the shard dbs into OUT and prints the best point.
#
#   scripts/slurm/tune-array.sh -n SHARDS -o OUT.jsonl [options] -- FILE [tune flags...]
#
# Options:
#   -n, --shards N       number of shards (array tasks), 1..1000
#   -o, --output OUT     the merged db (must not exist); shard i writes OUT-without-.jsonl.shard-i.jsonl
#   --ttlplan PATH       the ttlplan binary (default: `ttlplan` on PATH); must be reachable at the same
#                        path on the compute nodes (a shared file system), as must FILE and OUT
#   -p, --partition P    submit both jobs to partition P
#   -c, --cpus-per-task C  CPUs per array task (sbatch -c); pass `--threads C` among the tune flags
#   --sbatch-arg ARG     one more sbatch argument for both jobs (repeatable), e.g. --sbatch-arg=--time=10
#   --wait               block until the merge job ends (sbatch --wait), then print its log; the exit
#                        status is the merge job's (non-zero when a shard failed)
#   -h, --help           this help
#
# Everything after `--` is FILE and the flags of `ttlplan tune` (not --shard, --db or --quiet:
# the script sets them). Logs: OUT-without-.jsonl.slurm-<array id>_<i>.log and .merge-<id>.log.
# The shards merged hold exactly the single run's records (docs/tuning.md, "Past one machine");
# only the exhaustive and random strategies can be sharded. Prints the array and merge job ids.
set -euo pipefail

usage() { sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "tune-array.sh: $*" >&2; exit 2; }

shards="" out="" ttlplan=ttlplan wait=0
sbatch_args=()
while (($#)); do
  case $1 in
    -n|--shards) [[ $# -ge 2 ]] || die "$1 needs a value"; shards=$2; shift 2 ;;
    --shards=*) shards=${1#*=}; shift ;;
    -o|--output) [[ $# -ge 2 ]] || die "$1 needs a value"; out=$2; shift 2 ;;
    --output=*) out=${1#*=}; shift ;;
    --ttlplan) [[ $# -ge 2 ]] || die "$1 needs a value"; ttlplan=$2; shift 2 ;;
    --ttlplan=*) ttlplan=${1#*=}; shift ;;
    -p|--partition) [[ $# -ge 2 ]] || die "$1 needs a value"; sbatch_args+=(--partition="$2"); shift 2 ;;
    --partition=*) sbatch_args+=(--partition="${1#*=}"); shift ;;
    -c|--cpus-per-task) [[ $# -ge 2 ]] || die "$1 needs a value"; sbatch_args+=(--cpus-per-task="$2"); shift 2 ;;
    --cpus-per-task=*) sbatch_args+=(--cpus-per-task="${1#*=}"); shift ;;
    --sbatch-arg) [[ $# -ge 2 ]] || die "$1 needs a value"; sbatch_args+=("$2"); shift 2 ;;
    --sbatch-arg=*) sbatch_args+=("${1#*=}"); shift ;;
    --wait) wait=1; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    *) die "unknown option '$1' (FILE and the tune flags go after --; see --help)" ;;
  esac
done

# --- checks ---------------------------------------------------------------------------------------
[[ -n $shards ]] || die "-n SHARDS is required (see --help)"
[[ $shards =~ ^[0-9]+$ ]] && ((10#$shards >= 1 && 10#$shards <= 1000)) ||
  die "-n '$shards' is not a number of shards in 1..1000"
shards=$((10#$shards))
[[ -n $out ]] || die "-o OUT.jsonl is required (see --help)"
(($#)) || die "no FILE to tune: put FILE and the tune flags after -- (see --help)"
file=$1
shift
tune_flags=("$@")
[[ -f $file ]] || die "'$file' does not exist (the template to tune)"
for flag in "${tune_flags[@]}"; do
  case $flag in
    --shard|--shard=*|--db|--db=*) die "'$flag' is set by the script, leave it out of the tune flags" ;;
    --strategy=anneal|--strategy=evolve|anneal|evolve)
      die "only the exhaustive and random strategies can be sharded ('$flag')" ;;
  esac
done
command -v sbatch > /dev/null || die "sbatch not found: this needs a Slurm cluster (Debian: slurm-client)"
if [[ $ttlplan == */* ]]; then
  [[ -x $ttlplan ]] || die "--ttlplan '$ttlplan' is not an executable file"
else
  resolved=$(command -v "$ttlplan") || die "'$ttlplan' not found on PATH (use --ttlplan PATH)"
  ttlplan=$resolved
fi
abs() { local d; d=$(cd "$(dirname "$1")" && pwd) || return 1; echo "$d/$(basename "$1")"; }
ttlplan=$(abs "$ttlplan")
file=$(abs "$file")
out=$(abs "$out") || die "the directory of -o '$out' does not exist"
[[ ! -e $out ]] || die "'$out' exists: remove it or choose another -o"
base=${out%.jsonl}
shard_db() { echo "$base.shard-$1.jsonl"; }
for ((i = 0; i < shards; i++)); do
  [[ ! -e $(shard_db $i) ]] || die "'$(shard_db $i)' exists (a shard db of an earlier run): remove it"
done

# --- the jobs -------------------------------------------------------------------------------------
q() { local s; s=$(printf '%q ' "$@"); echo "${s% }"; }  # shell-quoted words
name=ttlplan-tune-$(basename "$file" .ttl)
array_script="#!/bin/bash
set -euo pipefail
i=\$SLURM_ARRAY_TASK_ID
exec $(q "$ttlplan" tune "$file" "${tune_flags[@]}") --shard \"\$i/$shards\" --db $(q "$base").shard-\"\$i\".jsonl --quiet
"
array_id=$(sbatch --parsable --array="0-$((shards - 1))" --job-name="$name" --chdir="$(pwd)" \
  --output="$base.slurm-%A_%a.log" "${sbatch_args[@]}" <<< "$array_script") ||
  die "sbatch of the array job failed"
array_id=${array_id%%;*}
echo "submitted array job $array_id ($shards shards of $(basename "$file"))"

shard_dbs=()
for ((i = 0; i < shards; i++)); do shard_dbs+=("$(shard_db $i)"); done
merge_script="#!/bin/bash
set -euo pipefail
$(q "$ttlplan" db merge "${shard_dbs[@]}") -o $(q "$out")
$(q "$ttlplan" db best "$out")
"
merge_args=(--parsable --dependency="afterok:$array_id" --kill-on-invalid-dep=yes
            --job-name="$name-merge" --chdir="$(pwd)" --output="$base.merge-%j.log"
            "${sbatch_args[@]}")
if ((wait)); then
  # sbatch --wait prints the id when the job is submitted and exits with the job's status.
  merge_out=$(mktemp)
  rc=0
  sbatch "${merge_args[@]}" --wait <<< "$merge_script" > "$merge_out" || rc=$?
  merge_id=$(head -n 1 "$merge_out")
  merge_id=${merge_id%%;*}
  rm -f "$merge_out"
  [[ -n $merge_id ]] || die "sbatch of the merge job failed"
  echo "merge job $merge_id (after array job $array_id) ended with exit status $rc"
  log="$base.merge-$merge_id.log"
  [[ ! -f $log ]] || cat "$log"
  # A merge job cancelled because a shard failed (--kill-on-invalid-dep) never ran: sbatch --wait
  # may still exit 0 (Slurm 22.05), so the merged db is what tells.
  if ((rc)) || [[ ! -f $out ]]; then
    state=$(scontrol show job "$merge_id" 2> /dev/null | grep -o 'JobState=[^ ]* Reason=[^ ]*' || true)
    echo "tune-array.sh: the merge job ${state:+($state) }did not write '$out':" \
         "a shard failed or the merge failed; logs: $base.slurm-${array_id}_*.log," \
         "$base.merge-$merge_id.log" >&2
    ((rc)) || rc=1
    exit "$rc"
  fi
else
  merge_id=$(sbatch "${merge_args[@]}" <<< "$merge_script") || die "sbatch of the merge job failed"
  merge_id=${merge_id%%;*}
  echo "submitted merge job $merge_id (after array job $array_id) into $out"
fi
