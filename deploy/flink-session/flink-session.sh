#!/usr/bin/env bash
# A local Apache Flink standalone session cluster (one JobManager, FLINK_TASKMANAGERS TaskManagers, each
# a process of its own) started from Maven Central jars, to run the job jar the way a real cluster runs
# it (docs/DEPLOY.md). ./fraud rehearsal drives it; no test uses it. See README.md next to this script.
#
#   deploy/flink-session/flink-session.sh start                # JobManager + TaskManagers in the background
#   deploy/flink-session/flink-session.sh flink ARGS           # the real Flink CLI (CliFrontend) against it
#   deploy/flink-session/flink-session.sh status
#   deploy/flink-session/flink-session.sh kill taskmanager-N   # SIGKILL one process (a crash)
#   deploy/flink-session/flink-session.sh start-taskmanager N  # start it again (as a supervisor would)
#   deploy/flink-session/flink-session.sh stop
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
DIR="${FLINK_SESSION_DIR:-$ROOT/.fraud/flink-session}"
CONF="$DIR/conf"
LOGS="$DIR/log"
CP_FILE="$DIR/flink.classpath"
JVM_OPTS_FILE="$ROOT/.mvn/flink-jvm.options"   # Flink's --add-opens/--add-exports for Java 17

# Flink's REST default (8081) is also the schema registry's default: use another port.
REST_PORT="${FLINK_REST_PORT:-8082}"
RPC_PORT="${FLINK_RPC_PORT:-6123}"
SLOTS="${FLINK_SLOTS:-2}"
JM_MEMORY="${FLINK_JM_MEMORY:-1024m}"
TM_MEMORY="${FLINK_TM_MEMORY:-1536m}"
TASKMANAGERS="${FLINK_TASKMANAGERS:-1}"
# Appended to config.yaml: what the cluster needs beyond this script's settings (e.g. the S3 file
# systems' endpoint and keys that ./fraud s3 start writes). Read at every start; never printed.
CONF_EXTRA="${FLINK_CONF_EXTRA:-}"
# FLINK_PLUGINS_DIR (Flink's own variable, passed through): the plugins/ directory of every process,
# e.g. local/object-store/target/plugins for the S3 file systems.

JM_MAIN=org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint
TM_MAIN=org.apache.flink.runtime.taskexecutor.TaskManagerRunner

usage() {
  sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  cat <<USAGE

Environment: FLINK_REST_PORT (default 8082), FLINK_RPC_PORT (6123), FLINK_TASKMANAGERS (1),
FLINK_SLOTS (2 per TaskManager), FLINK_JM_MEMORY (1024m), FLINK_TM_MEMORY (1536m per TaskManager),
FLINK_CONF_EXTRA (a YAML file appended to config.yaml), FLINK_PLUGINS_DIR (plugins/ of every process),
FLINK_SESSION_DIR (.fraud/flink-session), MVN (mvn).
Current: REST http://localhost:$REST_PORT, files in $DIR
USAGE
}

die() { echo "flink-session: $*" >&2; exit 1; }

# The classpath of Flink's lib/ (flink-dist, RocksDB, connector-files/base, log4j), from pom.xml.
classpath() {
  if [[ ! -s "$CP_FILE" || "$HERE/pom.xml" -nt "$CP_FILE" ]]; then
    mkdir -p "$DIR"
    echo "flink-session: resolving Flink's classpath from $HERE/pom.xml..." >&2
    if ! ${MVN:-mvn} -B -q -f "$HERE/pom.xml" dependency:build-classpath \
        -Dmdep.outputFile="$CP_FILE" >"$DIR/classpath.log" 2>&1; then
      tail -n 30 "$DIR/classpath.log" >&2
      rm -f "$CP_FILE"
      die "could not resolve Flink's jars (Maven's output: $DIR/classpath.log)"
    fi
  fi
  cat "$CP_FILE"
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# pid of daemon NAME if it is alive and still runs MAIN (a reused pid is never signalled).
daemon_pid() {
  local name="$1" main="$2" pid
  [[ -f "$DIR/$name.pid" ]] || return 1
  pid="$(cat "$DIR/$name.pid")"
  ps -p "$pid" -o args= 2>/dev/null | grep -q -- "$main" || return 1
  echo "$pid"
}

write_conf() {
  mkdir -p "$CONF" "$LOGS" "$DIR/tmp"
  cat >"$CONF/config.yaml" <<YAML
# Written by deploy/flink-session/flink-session.sh at every start. Loopback only.
jobmanager.rpc.address: localhost
jobmanager.rpc.port: $RPC_PORT
jobmanager.bind-host: localhost
jobmanager.memory.process.size: $JM_MEMORY
taskmanager.host: localhost
taskmanager.bind-host: localhost
taskmanager.numberOfTaskSlots: $SLOTS
taskmanager.memory.process.size: $TM_MEMORY
rest.address: localhost
rest.bind-address: localhost
rest.port: $REST_PORT
io.tmp.dirs: $DIR/tmp
YAML
  if [[ -n "$CONF_EXTRA" ]]; then
    [[ -r "$CONF_EXTRA" ]] || die "FLINK_CONF_EXTRA=$CONF_EXTRA is not a readable file"
    { echo "# From FLINK_CONF_EXTRA ($CONF_EXTRA):"; cat "$CONF_EXTRA"; } >>"$CONF/config.yaml"
  fi
  chmod 600 "$CONF/config.yaml"
  cat >"$CONF/log4j.properties" <<'LOG4J'
# JobManager and TaskManager: one file each (-Dlog.file).
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = MainAppender
logger.kafka.name = org.apache.kafka
logger.kafka.level = WARN
appender.main.name = MainAppender
appender.main.type = File
appender.main.append = true
appender.main.fileName = ${sys:log.file}
appender.main.layout.type = PatternLayout
appender.main.layout.pattern = %d{yyyy-MM-dd HH:mm:ss,SSS} %-5p %-60c %x - %m%n
LOG4J
  cat >"$CONF/log4j-cli.properties" <<'LOG4J'
# The CLI: warnings to the console; the job's own start-up lines too.
rootLogger.level = WARN
rootLogger.appenderRef.console.ref = ConsoleAppender
logger.fraudpipe.name = org.fraudpipe
logger.fraudpipe.level = INFO
# Without flink-yarn on the classpath the CLI logs a stack trace while probing for it: harmless.
logger.cli.name = org.apache.flink.client.cli.CliFrontend
logger.cli.level = ERROR
# The plugins/ directory of a distribution does not exist here.
logger.plugins.name = org.apache.flink.core.plugin.PluginConfig
logger.plugins.level = ERROR
appender.console.name = ConsoleAppender
appender.console.type = Console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss,SSS} %-5p %c{1} - %m%n
LOG4J
}

# BashJavaUtils CMD: Flink's own computation of a process's JVM memory flags (line 1) and the
# dynamic configuration (line 2) from config.yaml, as bin/jobmanager.sh and bin/taskmanager.sh do.
resource_params() {
  local out
  out="$(java -Xmx128m -cp "$CP" org.apache.flink.runtime.util.bash.BashJavaUtils "$1" \
    --configDir "$CONF" 2>&1)" || die "BashJavaUtils $1 failed: $out"
  grep '^BASH_JAVA_UTILS_EXEC_RESULT:' <<<"$out" | sed 's/^BASH_JAVA_UTILS_EXEC_RESULT://' \
    || die "BashJavaUtils $1 printed no result: $out"
}

start_daemon() {
  local name="$1" main="$2" params="$3" jvm dynamic
  jvm="$(sed -n 1p <<<"$params")"
  dynamic="$(sed -n 2p <<<"$params")"
  # A TaskManager's id names its process, and is new at each start: one started again after a
  # crash registers as a new TaskManager, never as the dead one.
  [[ "$main" == "$TM_MAIN" ]] && dynamic="$dynamic -D taskmanager.resource-id=$name-$(date +%s)"
  # shellcheck disable=SC2086  # jvm and dynamic are lists of flags
  nohup java @"$JVM_OPTS_FILE" $jvm \
    -Dlog.file="$LOGS/$name.log" -Dlog4j.configurationFile="file:$CONF/log4j.properties" \
    -cp "$CP" "$main" --configDir "$CONF" $dynamic \
    >"$LOGS/$name.out" 2>&1 </dev/null &
  echo $! >"$DIR/$name.pid"
  echo "flink-session: $name started (pid $!), log $LOGS/$name.log"
}

# The names of the processes: jobmanager, taskmanager-1 .. taskmanager-N.
names() {
  echo jobmanager
  local i
  for ((i = 1; i <= TASKMANAGERS; i++)); do echo "taskmanager-$i"; done
}

main_of() { if [[ "$1" == jobmanager ]]; then echo "$JM_MAIN"; else echo "$TM_MAIN"; fi; }

start() {
  [[ "$TASKMANAGERS" =~ ^[1-9][0-9]*$ ]] || die "FLINK_TASKMANAGERS must be a positive number, was $TASKMANAGERS"
  local name
  for name in $(names); do
    ! daemon_pid "$name" "$(main_of "$name")" >/dev/null || die "already running from $DIR (stop it first: $0 stop)"
  done
  for p in "$REST_PORT" "$RPC_PORT"; do
    ! port_in_use "$p" || die "port $p on localhost is in use: set FLINK_REST_PORT / FLINK_RPC_PORT"
  done
  CP="$(classpath)"
  write_conf
  start_daemon jobmanager "$JM_MAIN" "$(resource_params GET_JM_RESOURCE_PARAMS)"
  local tm_params i
  tm_params="$(resource_params GET_TM_RESOURCE_PARAMS)"
  echo "$tm_params" >"$DIR/taskmanager.params"
  for ((i = 1; i <= TASKMANAGERS; i++)); do
    start_daemon "taskmanager-$i" "$TM_MAIN" "$tm_params"
  done
  local total=$((SLOTS * TASKMANAGERS))
  local deadline=$((SECONDS + ${FLINK_START_TIMEOUT:-120})) overview=""
  while ((SECONDS < deadline)); do
    for name in $(names); do
      daemon_pid "$name" "$(main_of "$name")" >/dev/null || { tail -n 30 "$LOGS/$name.out" "$LOGS/$name.log" >&2; die "$name exited"; }
    done
    overview="$(curl -sf "http://localhost:$REST_PORT/overview" || true)"
    if [[ "$overview" == *"\"slots-total\":$total,"* ]]; then
      echo "flink-session: ready: REST http://localhost:$REST_PORT, $overview"
      echo "flink-session: submit with: $0 flink run -d <job jar> <job options>"
      return 0
    fi
    sleep 1
  done
  die "not ready within ${FLINK_START_TIMEOUT:-120} s (last overview: ${overview:-none}); logs in $LOGS"
}

# Starts taskmanager-N again with the parameters of the cluster's start (a supervisor's restart).
start_taskmanager() {
  local n="${1:-}"
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || die "start-taskmanager needs the TaskManager's number (1..N)"
  [[ -s "$DIR/taskmanager.params" ]] || die "the session was not started from $DIR"
  ! daemon_pid "taskmanager-$n" "$TM_MAIN" >/dev/null || die "taskmanager-$n is running"
  CP="$(classpath)"
  start_daemon "taskmanager-$n" "$TM_MAIN" "$(cat "$DIR/taskmanager.params")"
}

# SIGKILL one process: a crash, no shutdown hook runs.
kill_process() {
  local name="${1:-}" pid
  [[ "$name" == jobmanager || "$name" =~ ^taskmanager-[1-9][0-9]*$ ]] || die "kill needs jobmanager or taskmanager-N"
  pid="$(daemon_pid "$name" "$(main_of "$name")")" || die "$name is not running"
  kill -KILL "$pid"
  while ps -p "$pid" >/dev/null 2>&1; do sleep 0.1; done
  echo "flink-session: $name killed (pid $pid)"
}

# Every process this session directory recorded, also TaskManagers beyond FLINK_TASKMANAGERS.
recorded() {
  local f
  for f in "$DIR"/taskmanager*.pid "$DIR"/jobmanager.pid; do
    [[ -f "$f" ]] && basename "$f" .pid
  done
  return 0
}

stop() {
  local name main pid any=0
  for name in $(recorded); do
    main="$(main_of "$name")"
    if pid="$(daemon_pid "$name" "$main")"; then
      any=1
      kill -TERM "$pid"
      for _ in $(seq 1 30); do ps -p "$pid" >/dev/null 2>&1 || break; sleep 1; done
      if ps -p "$pid" >/dev/null 2>&1; then kill -KILL "$pid"; fi
      echo "flink-session: $name stopped (pid $pid)"
    fi
    rm -f "$DIR/$name.pid"
  done
  ((any)) || echo "flink-session: nothing running from $DIR"
}

status() {
  local rc=0 pid name main
  for name in $(names); do
    main="$(main_of "$name")"
    if pid="$(daemon_pid "$name" "$main")"; then echo "$name: running (pid $pid)"; else echo "$name: not running"; rc=1; fi
  done
  echo "overview: $(curl -sf "http://localhost:$REST_PORT/overview" || echo 'no answer')"
  return $rc
}

flink_cli() {
  [[ -f "$CONF/config.yaml" ]] || die "no configuration in $CONF: start the session first"
  CP="$(classpath)"
  FLINK_CONF_DIR="$CONF" exec java @"$JVM_OPTS_FILE" -Xmx512m \
    -Dlog4j.configurationFile="file:$CONF/log4j-cli.properties" \
    -cp "$CP" org.apache.flink.client.cli.CliFrontend "$@"
}

cmd="${1:-}"
[[ $# -gt 0 ]] && shift
case "$cmd" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  kill) kill_process "$@" ;;
  start-taskmanager) start_taskmanager "$@" ;;
  flink) flink_cli "$@" ;;
  classpath) classpath ;;
  ""|-h|--help|help) usage ;;
  *) usage >&2; exit 2 ;;
esac
