#!/usr/bin/env bash
# The nightly parity DAG (deploy/airflow/fraudpipe_parity.py) under a real Apache Airflow 3.3.2:
#
#   deploy/airflow/dags-test.sh                  prepare three days, then `airflow dags test` each
#   deploy/airflow/dags-test.sh --prepare-only   prepare the three days and check them with ./fraud parity
#
# 1. Prepares three days in one archive with the project's own commands (./fraud simulate, ./fraud
#    replay --archive), and checks each with plain ./fraud parity, asserting its exit code:
#      2026-11-28  ordinary traffic                                            exit 0 (within thresholds)
#      2026-11-29  6 % of the traffic from offline clients arriving 10 min to
#                  6 h late, beyond the job's 2-minute allowed lateness        exit 1 (skew over a threshold)
#      2026-11-30  no traffic: the day's archive partitions do not exist      exit 2 (missing input)
# 2. (not with --prepare-only) Makes a virtual environment (.fraud/airflow-venv, reused), installs
#    deploy/airflow/requirements.txt into it (apache-airflow 3.3.2), sets AIRFLOW_HOME to a fresh directory
#    (target/airflow-dags-test/airflow-home) with the DAG folder deploy/airflow, runs `airflow db migrate`
#    and `airflow dags test fraudpipe_parity DATE` for the day after each of the three days (the run at
#    02:30 on the 29th checks the 28th), with 1 retry 5 s apart, then asserts each run's task state with
#    the Airflow CLI (`dags list-runs`, `tasks states-for-dag-run`, -o json) and its try number in the
#    metadata database:
#      2026-11-29 (checks the 28th)  task success, 1 try;  `dags test` exits 0
#      2026-11-30 (checks the 29th)  task failed, 1 try: no retry (AirflowFailException)
#      2026-12-01 (checks the 30th)  task failed after 2 tries: up_for_retry after the first
#                                    (AirflowException), retries exhausted; `dags test` exits 1 for both
# Exit 0 when every assertion held, 1 on a mismatch, 2 when Airflow cannot be installed (PyPI, or the
# index pip is configured with, unreachable: one line says so) or on bad usage.
#
# Environment: PIP_INDEX_URL (a mirror of PyPI), AIRFLOW_CONSTRAINTS (a constraints file or URL for pip,
# e.g. Airflow's own constraints-3.3.2 file), AIRFLOW_VENV (default .fraud/airflow-venv), WORK (default
# target/airflow-dags-test), PYTHON (default python3, 3.10 or newer).
# Everything runs in the foreground (`airflow dags test` runs the task inside its own process: no scheduler, no
# executor): nothing is left running.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WORK="${WORK:-$ROOT/target/airflow-dags-test}"
VENV="${AIRFLOW_VENV:-$ROOT/.fraud/airflow-venv}"
PYTHON="${PYTHON:-python3}"
AIRFLOW_VERSION=3.3.2
DAG_ID=fraudpipe_parity
PASS_DAY=2026-11-28 SKEW_DAY=2026-11-29 MISSING_DAY=2026-11-30

prepare_only=0
case "${1:-}" in
  "") ;;
  --prepare-only) prepare_only=1 ;;
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "dags-test.sh: unknown option $1 (--prepare-only, --help)" >&2; exit 2 ;;
esac

began=$SECONDS
say() { printf '[%4ds] %s\n' "$((SECONDS - began))" "$*"; }
fail() { echo "dags-test.sh: FAILED: $*" >&2; exit 1; }
next_day() { "$PYTHON" -c 'import datetime,sys; print(datetime.date.fromisoformat(sys.argv[1]) + datetime.timedelta(days=1))' "$1"; }

mkdir -p "$WORK"
ARCHIVE="$WORK/archive"

# --- Can Airflow be installed here? (before minutes of preparation) --------------------------------------
venv_has_airflow() {
  [[ -x "$VENV/bin/python" ]] &&
    [[ "$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("apache-airflow"))' 2>/dev/null)" == "$AIRFLOW_VERSION" ]]
}

# The index pip installs from (PIP_INDEX_URL, pip's configuration, else PyPI) must answer for apache-airflow;
# otherwise one line, exit 2.
check_index() {
  local index reason
  index="${PIP_INDEX_URL:-$("$PYTHON" -m pip config get global.index-url 2>/dev/null || true)}"
  index="${index:-https://pypi.org/simple}"
  if ! reason="$("$PYTHON" - "$index" <<'PY' 2>&1
import sys, urllib.error, urllib.request
url = sys.argv[1].rstrip("/") + "/apache-airflow/"
try:
    with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": "text/html"}), timeout=15) as r:
        r.read(1)
except urllib.error.HTTPError as e:
    sys.exit(f"{url}: HTTP {e.code}")
except Exception as e:  # DNS, connection refused, timeout, TLS, a file:// index without the package
    sys.exit(f"{url}: {getattr(e, 'reason', None) or e}")
PY
)"; then
    if [[ "$index" == https://pypi.org/* ]]; then
      echo "cannot install Apache Airflow: PyPI unreachable from this machine ($reason). Run this where pip can reach PyPI, or set PIP_INDEX_URL to a mirror" >&2
    else
      echo "cannot install Apache Airflow: the package index $index cannot serve apache-airflow ($reason). Run this where pip can reach PyPI, or set PIP_INDEX_URL to a mirror" >&2
    fi
    exit 2
  fi
}

if ((!prepare_only)) && ! venv_has_airflow; then
  check_index
fi

# --- 1. Three days in one archive, each checked by ./fraud parity ---------------------------------------
FRAUD="$ROOT/fraud"
prepare() {
  local data="$WORK/data"
  rm -rf "$data" "$ARCHIVE" "$WORK/reports"
  mkdir -p "$data"
  say "preparing $PASS_DAY (ordinary traffic) and $SKEW_DAY (6 % hours late) in $ARCHIVE"
  # Two hours of 300 users a day (3,319 and 2,748 lines), seeded: the same bytes on every run.
  "$FRAUD" simulate --users 300 --duration 2h --start "${PASS_DAY}T10:00:00Z" --tx-per-user-day 80 \
    --seed 2811 --out "$data/pass-day.jsonl" >"$data/simulate-pass.log" 2>&1 ||
    fail "simulate: see $data/simulate-pass.log"
  "$FRAUD" simulate --users 300 --duration 2h --start "${SKEW_DAY}T10:00:00Z" --tx-per-user-day 80 \
    --seed 2911 --hours-late-share 0.06 --out "$data/skew-day.jsonl" >"$data/simulate-skew.log" 2>&1 ||
    fail "simulate: see $data/simulate-skew.log"
  # One input in arrival order, as one job would have received both days: every arrival of the first
  # day (at most 6 h after 12:00 on the 28th) precedes the second day's first.
  "$PYTHON" - "$data/pass-day.jsonl" "$data/skew-day.jsonl" <<'PY' || fail "the two days' arrivals overlap"
import json, sys
last = json.loads(open(sys.argv[1]).read().splitlines()[-1])["arrivalTime"]
first = json.loads(open(sys.argv[2]).readline())["arrivalTime"]
sys.exit(0 if last < first else f"{last} >= {first}")
PY
  cat "$data/pass-day.jsonl" "$data/skew-day.jsonl" >"$data/tx.jsonl"
  # The job's topology over the file, writing the job's archive (policy: 10-minute windows, 2 minutes of
  # allowed lateness, recorded in the archive).
  "$FRAUD" replay --input "$data/tx.jsonl" --output "$data/replay" --archive "$ARCHIVE" \
    --window 10m --allowed-lateness 2m >"$data/replay.log" 2>&1 || fail "replay: see $data/replay.log"
  [[ ! -e "$ARCHIVE/transactions/date=$MISSING_DAY" ]] || fail "the archive has partitions of $MISSING_DAY"
  say "archive written: $(find "$ARCHIVE" -name '*.avro' | wc -l) files"

  local day expected code summary
  for day in "$PASS_DAY:0" "$SKEW_DAY:1" "$MISSING_DAY:2"; do
    expected="${day#*:}" day="${day%%:*}" code=0
    "$FRAUD" parity --archive "$ARCHIVE" --date "$day" --report "$WORK/reports/$day" \
      >"$data/parity-$day.log" 2>&1 || code=$?
    summary="$(grep -m1 '^parity ' "$data/parity-$day.log" || tail -1 "$data/parity-$day.log")"
    say "./fraud parity --date $day: exit $code (expected $expected): $summary"
    ((code == expected)) || fail "./fraud parity --date $day exited $code, expected $expected; see $data/parity-$day.log"
  done
}
prepare
if ((prepare_only)); then
  say "prepare-only: the three days give exit 0, 1 and 2 with ./fraud parity"
  exit 0
fi

# --- 2. Airflow ----------------------------------------------------------------------------------------------
if ! venv_has_airflow; then
  "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' ||
    { echo "dags-test.sh: Airflow $AIRFLOW_VERSION needs Python 3.10 or newer ($PYTHON is $("$PYTHON" -V))" >&2; exit 2; }
  say "installing apache-airflow $AIRFLOW_VERSION into $VENV (deploy/airflow/requirements.txt)"
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  constraints=()
  [[ -n "${AIRFLOW_CONSTRAINTS:-}" ]] && constraints=(-c "$AIRFLOW_CONSTRAINTS")
  "$VENV/bin/python" -m pip install --quiet -r "$ROOT/deploy/airflow/requirements.txt" "${constraints[@]}" ||
    { echo "dags-test.sh: pip could not install deploy/airflow/requirements.txt (above)" >&2; exit 2; }
  venv_has_airflow || { echo "dags-test.sh: the venv has no apache-airflow $AIRFLOW_VERSION after pip install" >&2; exit 2; }
fi
"$VENV/bin/python" -m pip freeze >"$WORK/pip-freeze.txt"
say "airflow $AIRFLOW_VERSION in $VENV; resolved set: $WORK/pip-freeze.txt"

export AIRFLOW_HOME="$WORK/airflow-home"
rm -rf "$AIRFLOW_HOME"
mkdir -p "$AIRFLOW_HOME"
export AIRFLOW__CORE__DAGS_FOLDER="$ROOT/deploy/airflow"
export AIRFLOW__CORE__LOAD_EXAMPLES=False
export PYTHONDONTWRITEBYTECODE=1 # no __pycache__ in deploy/airflow
# The DAG's settings (docs in the DAG): this project, the prepared archive, one retry 5 s later.
export FRAUDPIPE_PROJECT_DIR="$ROOT" FRAUDPIPE_ARCHIVE="$ARCHIVE" FRAUDPIPE_REPORTS_DIR="$WORK/airflow-reports"
export FRAUDPIPE_PARITY_COMMAND="./fraud parity" FRAUDPIPE_PARITY_RETRIES=1 FRAUDPIPE_PARITY_RETRY_DELAY_SECONDS=5
AIRFLOW="$VENV/bin/airflow"

"$AIRFLOW" db migrate >"$WORK/db-migrate.log" 2>&1 || fail "airflow db migrate: see $WORK/db-migrate.log"
say "airflow db migrate: done ($AIRFLOW_HOME)"

# check LOGICAL_DATE EXPECTED_STATE EXPECTED_TRIES: the run's task state from the CLI, its try number from
# the metadata database (sqlite, the default here).
check() {
  local logical="$1" want_state="$2" want_tries="$3" runs
  runs="$("$AIRFLOW" dags list-runs "$DAG_ID" -o json 2>/dev/null)" || fail "airflow dags list-runs"
  "$PYTHON" - "$runs" "$logical" "$want_state" "$want_tries" "$AIRFLOW_HOME/airflow.db" >"$WORK/check-$logical.json" 2>&1 <<'PY' ||
import json, sqlite3, subprocess, sys, os
runs_out, logical, want_state, want_tries, db = sys.argv[1:]
runs = json.loads(runs_out[runs_out.index("["):runs_out.rindex("]") + 1])
run = next((r for r in runs if r["logical_date"].startswith(logical)), None)
if run is None:
    sys.exit(f"no run with logical date {logical} in dags list-runs: {runs}")
out = subprocess.run([os.environ["AIRFLOW_BIN"], "tasks", "states-for-dag-run", "fraudpipe_parity", run["run_id"],
                      "-o", "json"], capture_output=True, text=True, check=True).stdout
tasks = json.loads(out[out.index("["):out.rindex("]") + 1])
state = next(t["state"] for t in tasks if t["task_id"] == "parity")
with sqlite3.connect(db) as c:
    tries = c.execute("select max(try_number) from task_instance where dag_id = ? and run_id = ? and task_id = ?",
                      ("fraudpipe_parity", run["run_id"], "parity")).fetchone()[0]
print(json.dumps({"logical_date": logical, "run_id": run["run_id"], "dag_run_state": run["state"],
                  "task_state": state, "try_number": tries}))
if (state, tries) != (want_state, int(want_tries)):
    sys.exit(f"{logical}: task {state} after {tries} tries, expected {want_state} after {want_tries}")
PY
    fail "$(tail -1 "$WORK/check-$logical.json" 2>/dev/null) (see $WORK/check-$logical.json)"
  say "  $(cat "$WORK/check-$logical.json")"
}
export AIRFLOW_BIN="$AIRFLOW"

for expectation in "$PASS_DAY:0:success:1" "$SKEW_DAY:1:failed:1" "$MISSING_DAY:2:failed:2"; do
  IFS=: read -r day exit_code state tries <<<"$expectation"
  logical="$(next_day "$day")"
  code=0
  "$AIRFLOW" dags test "$DAG_ID" "$logical" >"$WORK/dags-test-$logical.log" 2>&1 || code=$?
  say "airflow dags test $DAG_ID $logical (checks $day, parity exit $exit_code): exit $code; log $WORK/dags-test-$logical.log"
  if [[ "$state" == success ]]; then
    ((code == 0)) || fail "airflow dags test $logical exited $code, expected 0"
  else
    ((code != 0)) || fail "airflow dags test $logical exited 0 for a failed run"
  fi
  check "$logical" "$state" "$tries"
  if ((tries > 1)); then
    grep -qi 'up_for_retry' "$WORK/dags-test-$logical.log" &&
      say "  the log shows up_for_retry after the first try" ||
      say "  (the log does not name up_for_retry; try_number $tries shows the retry)"
  fi
done
say "PASS: task states match parity's exit codes (0 success, 1 failed without retry, 2 retried then failed)"
