#!/usr/bin/env bash
# A local Apache Flink standalone session cluster (one JobManager, one TaskManager) started from Maven
# Central jars, to check the job jar the way a real cluster runs it (docs/DEPLOY.md). A manual tool:
# no test and no build step uses it. See README.md next to this script.
#
#   deploy/flink-session/flink-session.sh start        # JobManager + TaskManager in the background
#   deploy/flink-session/flink-session.sh flink ARGS   # the real Flink CLI (CliFrontend) against it
#   deploy/flink-session/flink-session.sh status
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

JM_MAIN=org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint
TM_MAIN=org.apache.flink.runtime.taskexecutor.TaskManagerRunner

usage() {
  sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  cat <<USAGE

Environment: FLINK_REST_PORT (default 8082), FLINK_RPC_PORT (6123), FLINK_SLOTS (2),
FLINK_JM_MEMORY (1024m), FLINK_TM_MEMORY (1536m), FLINK_SESSION_DIR (.fraud/flink-session), MVN (mvn).
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
  # shellcheck disable=SC2086  # jvm and dynamic are lists of flags
  nohup java @"$JVM_OPTS_FILE" $jvm \
    -Dlog.file="$LOGS/$name.log" -Dlog4j.configurationFile="file:$CONF/log4j.properties" \
    -cp "$CP" "$main" --configDir "$CONF" $dynamic \
    >"$LOGS/$name.out" 2>&1 </dev/null &
  echo $! >"$DIR/$name.pid"
  echo "flink-session: $name started (pid $!), log $LOGS/$name.log"
}

start() {
  if daemon_pid jobmanager "$JM_MAIN" >/dev/null || daemon_pid taskmanager "$TM_MAIN" >/dev/null; then
    die "already running from $DIR (stop it first: $0 stop)"
  fi
  for p in "$REST_PORT" "$RPC_PORT"; do
    ! port_in_use "$p" || die "port $p on localhost is in use: set FLINK_REST_PORT / FLINK_RPC_PORT"
  done
  CP="$(classpath)"
  write_conf
  start_daemon jobmanager "$JM_MAIN" "$(resource_params GET_JM_RESOURCE_PARAMS)"
  start_daemon taskmanager "$TM_MAIN" "$(resource_params GET_TM_RESOURCE_PARAMS)"
  local deadline=$((SECONDS + ${FLINK_START_TIMEOUT:-120})) overview=""
  while ((SECONDS < deadline)); do
    daemon_pid jobmanager "$JM_MAIN" >/dev/null || { tail -n 30 "$LOGS/jobmanager.out" "$LOGS/jobmanager.log" >&2; die "the JobManager exited"; }
    daemon_pid taskmanager "$TM_MAIN" >/dev/null || { tail -n 30 "$LOGS/taskmanager.out" "$LOGS/taskmanager.log" >&2; die "the TaskManager exited"; }
    overview="$(curl -sf "http://localhost:$REST_PORT/overview" || true)"
    if [[ "$overview" == *"\"slots-total\":$SLOTS"* ]]; then
      echo "flink-session: ready: REST http://localhost:$REST_PORT, $overview"
      echo "flink-session: submit with: $0 flink run -d <job jar> <job options>"
      return 0
    fi
    sleep 1
  done
  die "not ready within ${FLINK_START_TIMEOUT:-120} s (last overview: ${overview:-none}); logs in $LOGS"
}

stop() {
  local name main pid any=0
  for name in taskmanager jobmanager; do
    main="$TM_MAIN"; [[ "$name" == jobmanager ]] && main="$JM_MAIN"
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
  local rc=0 pid
  for name in jobmanager taskmanager; do
    main="$TM_MAIN"; [[ "$name" == jobmanager ]] && main="$JM_MAIN"
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
  flink) flink_cli "$@" ;;
  classpath) classpath ;;
  ""|-h|--help|help) usage ;;
  *) usage >&2; exit 2 ;;
esac
