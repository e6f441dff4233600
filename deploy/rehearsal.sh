#!/usr/bin/env bash
# The production rehearsal (docs/DEPLOY.md, "Production rehearsal"): builds the project and the cluster
# jars, then runs ./fraud rehearsal: a local S3 server, the secured broker and HTTPS registry, a Flink
# session cluster of a JobManager and two TaskManager processes, both jobs under hostile traffic, a
# TaskManager killed, both jobs rescaled through S3 savepoints, then checked from outside and by parity
# over the S3 archive. Exit 0 passed, 1 a check failed, 2 bad usage, 3 it could not run. Leaves nothing
# running.
#
#   deploy/rehearsal.sh [--duration 4m] [--users 200] [--dir DIR] ...   (./fraud rehearsal --help)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# The jars a cluster runs (dist/target/*-job.jar), from this checkout's sources.
if [[ "${FRAUD_SKIP_BUILD:-}" != 1 ]]; then
  echo "rehearsal: building the cluster jars (mvn package -pl dist -am, tests skipped; log target/rehearsal-build.log)..."
  mkdir -p target
  if ! ${MVN:-mvn} -B -DskipTests -Dspotless.check.skip=true package -pl dist -am >target/rehearsal-build.log 2>&1; then
    tail -n 30 target/rehearsal-build.log >&2
    echo "rehearsal: the build failed (log: target/rehearsal-build.log)" >&2
    exit 3
  fi
fi
exec ./fraud rehearsal "$@"
