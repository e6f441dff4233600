"""fraudpipe: the nightly training-serving parity check, as an Apache Airflow 3.x DAG.

One run a day at 02:30 UTC. The day checked is the day before the run's logical date: the run at 02:30 on
the 29th checks the 28th (with this cron timetable the logical date is the moment the run is due, so in
the task context `ds` is the 29th and the day checked is `macros.ds_add(ds, -1)`). A manual run with
the param `day` (`YYYY-MM-DD`) checks that day instead.

The task runs `./fraud parity --date DAY --archive ARCHIVE --report REPORTS/DAY` in the project
directory with `FRAUD_SKIP_BUILD=1` and maps its exit code (docs/PARITY.md, "Running parity from a
scheduler") onto task states:

- 0, within thresholds: success; the task returns the report's path.
- 1, skew over a threshold: failed at once, no retry (`AirflowFailException`): the same data gives the
  same answer. Look at `report.html`.
- 2, bad input or usage (typically the day's archive partitions are not there yet): retried
  (`AirflowException`), `retries` times, `retry_delay` apart, then failed.
- anything else (the JVM killed, no `java`): no verdict, retried like 2.

Settings, read when the task runs: an Airflow Variable, else the environment variable, else the default.

| Airflow Variable           | environment variable        | default                           |
|----------------------------|-----------------------------|-----------------------------------|
| `fraudpipe_project_dir`    | `FRAUDPIPE_PROJECT_DIR`     | `/opt/fraudpipe`                  |
| `fraudpipe_archive`        | `FRAUDPIPE_ARCHIVE`         | none: the task fails until set    |
| `fraudpipe_reports_dir`    | `FRAUDPIPE_REPORTS_DIR`     | `/srv/reports/parity`             |
| `fraudpipe_parity_command` | `FRAUDPIPE_PARITY_COMMAND`  | `./fraud parity`                  |

The command is split like a shell command line (no shell runs it) and may carry further options, e.g.
`./fraud parity --served-from kafka --bootstrap-servers kafka:9092 --schema-registry-url https://registry`,
or on a Flink cluster `flink run /opt/fraudpipe/batch-parity-0.1.0-SNAPSHOT-job.jar --parallelism 8`
(same options, same exit codes). Relative paths are relative to the project directory.

Settings of the DAG itself, read when the file is parsed (environment of the scheduler and DAG processor):
`FRAUDPIPE_PARITY_RETRIES` (4), `FRAUDPIPE_PARITY_RETRY_DELAY_SECONDS` (1800),
`FRAUDPIPE_PARITY_TIMEOUT_SECONDS` (10800: a run still going then is stopped and retried),
`FRAUDPIPE_PARITY_START_DATE` (2026-11-01), `FRAUDPIPE_PARITY_CATCHUP` (true: nights the scheduler
missed are checked when it is back; rerunning a day replaces its report).

Its test: `deploy/airflow/dags-test.sh` runs `airflow dags test` for a day that passes, a day with skew
and a day whose archive is missing, and checks each task's state (deploy/airflow/README.md).
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
from datetime import date, datetime, timedelta, timezone

from airflow.sdk import Param, Variable, dag, task

try:  # Airflow 3.1 and later
    from airflow.sdk import CronTriggerTimetable
except ImportError:  # Airflow 3.0
    from airflow.timetables.trigger import CronTriggerTimetable

try:  # the Task SDK's own exceptions (airflow.exceptions re-exports them, deprecated)
    from airflow.sdk.exceptions import AirflowException, AirflowFailException
except ImportError:  # Airflow 3.0
    from airflow.exceptions import AirflowException, AirflowFailException

EXIT_PASS, EXIT_SKEW, EXIT_BAD_INPUT = 0, 1, 2


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name, "").strip().lower()
    return default if not value else value in ("1", "true", "yes", "on")


RETRIES = _env_int("FRAUDPIPE_PARITY_RETRIES", 4)
RETRY_DELAY = timedelta(seconds=_env_int("FRAUDPIPE_PARITY_RETRY_DELAY_SECONDS", 1800))
TIMEOUT = timedelta(seconds=_env_int("FRAUDPIPE_PARITY_TIMEOUT_SECONDS", 3 * 3600))
START_DATE = datetime.combine(
    date.fromisoformat(os.environ.get("FRAUDPIPE_PARITY_START_DATE", "").strip() or "2026-11-01"),
    datetime.min.time(),
    tzinfo=timezone.utc,
)
CATCHUP = _env_bool("FRAUDPIPE_PARITY_CATCHUP", True)


def _setting(variable: str, env: str, default: str | None) -> str | None:
    """An Airflow Variable, else the environment variable, else the default (read at run time)."""
    value = Variable.get(variable, default=None)
    if value is None or str(value).strip() == "":
        value = os.environ.get(env, "").strip() or default
    return value


def day_checked(context) -> str:
    """The UTC day a run checks: its `day` param if given, else the day before its logical date."""
    override = (context.get("params") or {}).get("day")
    if override:
        try:
            return date.fromisoformat(str(override)).isoformat()
        except ValueError:
            raise AirflowFailException(f"param day must be YYYY-MM-DD, got {override!r}") from None
    when = context.get("logical_date") or context["dag_run"].run_after
    return (when.astimezone(timezone.utc).date() - timedelta(days=1)).isoformat()


def _stop(process: subprocess.Popen) -> None:
    """Stop the parity command and everything it started (its own process group)."""
    for sig, wait in ((signal.SIGTERM, 30), (signal.SIGKILL, 10)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


@task(task_id="parity", execution_timeout=TIMEOUT)
def parity(**context) -> str:
    day = day_checked(context)
    project = _setting("fraudpipe_project_dir", "FRAUDPIPE_PROJECT_DIR", "/opt/fraudpipe")
    archive = _setting("fraudpipe_archive", "FRAUDPIPE_ARCHIVE", None)
    reports = _setting("fraudpipe_reports_dir", "FRAUDPIPE_REPORTS_DIR", "/srv/reports/parity")
    command = _setting("fraudpipe_parity_command", "FRAUDPIPE_PARITY_COMMAND", "./fraud parity")
    if not archive:
        raise AirflowFailException(
            "no archive configured: set the Airflow Variable fraudpipe_archive or FRAUDPIPE_ARCHIVE"
        )
    report = f"{reports.rstrip('/')}/{day}"
    argv = shlex.split(command) + ["--date", day, "--archive", archive, "--report", report]
    print(f"fraudpipe parity for {day}: {shlex.join(argv)} (in {project})", flush=True)

    # Its own process group, so that a timeout or a task killed from the UI stops the JVM too.
    process = subprocess.Popen(
        argv,
        cwd=project,
        env={**os.environ, "FRAUD_SKIP_BUILD": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        start_new_session=True,
    )
    summary = last = ""
    try:
        for line in process.stdout:
            print(line, end="", flush=True)  # the task log
            if line.strip():
                last = line.strip()
            if line.startswith("parity "):
                summary = line.strip()
        rc = process.wait()
    except BaseException:  # execution_timeout, the task stopped from the UI, ...
        _stop(process)
        raise
    finally:
        process.stdout.close()

    html = f"{report}/report.html"
    if rc == EXIT_PASS:
        return html
    if rc == EXIT_SKEW:  # a verdict: the same data gives the same answer, so no retry
        raise AirflowFailException(f"training-serving skew on {day} (parity exit 1): {summary}; report: {html}")
    if rc == EXIT_BAD_INPUT:  # typically the day's partitions are not there yet: retried, then failed
        raise AirflowException(f"parity input for {day} missing or unreadable (exit 2): {last}")
    raise AirflowException(f"parity for {day} gave no verdict (exit {rc}): {last}")


@dag(
    dag_id="fraudpipe_parity",
    schedule=CronTriggerTimetable("30 2 * * *", timezone="UTC"),
    start_date=START_DATE,
    catchup=CATCHUP,
    max_active_runs=1,
    default_args={"retries": RETRIES, "retry_delay": RETRY_DELAY},
    params={
        "day": Param(
            None,
            type=["null", "string"],
            description="UTC day to check (YYYY-MM-DD); empty: the day before the logical date",
        )
    },
    tags=["fraudpipe", "parity"],
    doc_md=__doc__,
)
def fraudpipe_parity():
    parity()


fraudpipe_parity()
