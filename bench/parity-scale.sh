#!/usr/bin/env bash
# Parity at scale: what `./fraud parity` costs on an archive, per transaction and per core, and how it
# grows with the input. Simulates one day of messy traffic, replays it through the job's topology into
# an archive (`./fraud replay --archive`), then checks the day with `./fraud parity` (both sections:
# windows and scores at arrival), measuring each step with GNU time (wall, CPU, peak RSS) and, for
# parity (exit 0 or 1: a verdict either way), a JFR profile whose execution samples are split by stage (bench/parity-stages.py).
#
#   bench/parity-scale.sh USERS TX_PER_USER_DAY WORK_DIR [PARALLELISM]
#
# FRAUD_JAVA_OPTS (e.g. -Xmx2g) reaches every step's JVM; REPLAY_OPTS are extra options of the replay
# (e.g. "--state-backend rocksdb", which a bounded heap needs from about 5M transactions).
# STEPS=data runs only the simulation and the replay (they need not run on a quiet machine);
# STEPS=parity only the check, over the archive a former run left in WORK_DIR. Every run that checked
# writes WORK_DIR/result.json: the figures of each step and the parity's stage shares.
#
# e.g. bench/parity-scale.sh 25000 40 target/parity-scale/1m   (about 1M transactions)
# Prints one summary line per step; everything else goes to WORK_DIR (logs, archive, report, JFR).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
users="${1:?users}" per_day="${2:?transactions per user and day}" dir="${3:?work directory}"
parallelism="${4:-2}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
steps="${STEPS:-data,parity}"

# step NAME MAX_EXIT COMMAND...: runs COMMAND, fails the script above exit code MAX_EXIT.
step() {
  local name="$1" max_exit="$2" code=0; shift 2
  /usr/bin/time -f "%e %U %S %M" -o "$dir/$name.time" "$@" >"$dir/$name.log" 2>&1 || code=$?
  if ((code > max_exit)); then
    echo "$name failed (exit $code); see $dir/$name.log" >&2; tail -20 "$dir/$name.log" >&2; exit 1
  fi
  local wall user sys rss
  # GNU time's last line (a first one says "Command exited with non-zero status" if so)
  read -r wall user sys rss < <(tail -1 "$dir/$name.time")
  printf '%-9s wall %8.1f s  cpu %8.1f s  peak rss %6d MB\n' \
    "$name" "$wall" "$(echo "$user + $sys" | bc)" "$((rss / 1024))"
}

if [[ ",$steps," == *,data,* ]]; then
  rm -rf "$dir/archive" "$dir/replay"
  step simulate 0 "$ROOT/fraud" simulate --users "$users" --duration 24h \
    --start 2026-11-28T00:00:00Z --tx-per-user-day "$per_day" --seed 20 --malformed-rate 0.005 \
    --future-rate 0.003 --hours-late-share 0.02 --duplicate-rate 0.01 --out "$dir/tx.jsonl"
  step replay 0 "$ROOT/fraud" replay --input "$dir/tx.jsonl" --output "$dir/replay" \
    --archive "$dir/archive" --window 10m --allowed-lateness 30m ${REPLAY_OPTS:-}
  echo "transactions: $(wc -l <"$dir/tx.jsonl") lines"
fi
if [[ ",$steps," == *,parity,* ]]; then
  rm -rf "$dir/report"
  FRAUD_JAVA_OPTS="${FRAUD_JAVA_OPTS:-} -XX:StartFlightRecording=filename=$dir/parity.jfr,settings=profile" \
    step parity 1 "$ROOT/fraud" parity --archive "$dir/archive" --date 2026-11-28 \
    --report "$dir/report" --parallelism "$parallelism"
  grep -m1 '^parity ' "$dir/parity.log" || true
  python3 "$ROOT/bench/parity-stages.py" "$dir/parity.jfr"
fi
if [[ -f "$dir/parity.time" ]]; then
  python3 - "$dir" "$(wc -l <"$dir/tx.jsonl")" "$parallelism" \
    "$(python3 "$ROOT/bench/parity-stages.py" "$dir/parity.jfr" --json)" >"$dir/result.json" <<'PY'
import json, sys
d, lines, parallelism, stages = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), json.loads(sys.argv[4])
def figures(step):
    try:
        wall, user, sys_, rss = open(f"{d}/{step}.time").read().split("\n")[-2].split()
    except (OSError, ValueError):
        return None
    cpu = float(user) + float(sys_)
    return {"wallSeconds": float(wall), "cpuSeconds": round(cpu, 1), "peakRssMb": int(rss) // 1024}
summary = next((l.strip() for l in open(f"{d}/parity.log") if l.startswith("parity ")), "")
parity = figures("parity")
print(json.dumps({
    "inputLines": lines, "parallelism": parallelism,
    "simulate": figures("simulate"), "replay": figures("replay"), "parity": parity,
    "parityInputLinesPerCpuSecond": round(lines / parity["cpuSeconds"]),
    "parityStages": stages, "paritySummary": summary}, indent=2))
PY
  echo "figures: $dir/result.json"
fi
