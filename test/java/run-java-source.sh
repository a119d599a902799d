#!/usr/bin/env bash
# run-java-source.sh <javaref version dir> <Source.java> ARGS...: runs a single-file Java driver (Java 11+ source
# launcher) on the client jars of that RocketMQ build, with the JVM options of its own scripts (bin/rmq-env.sh).
# exec's java, so the caller's pid is the JVM's. DRIVER_HEAP overrides the heap options.
set -e
dir=$(cd "$1" && pwd)
src=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
shift 2
. "$dir/bin/rmq-env.sh"
heap=${DRIVER_HEAP:--Xms64m -Xmx384m}
if [ -n "${RMQ_JVM_COMMON+x}" ]; then
  # the 5.3.3 build: RMQ_JAVA and the RMQ_JVM_COMMON array
  exec "$RMQ_JAVA" $heap -XX:+UseSerialGC "${RMQ_JVM_COMMON[@]}" ${JAVA_OPT_EXT:-} -cp "$RMQ_CP" "$src" "$@"
fi
# the 4.9.8 build: JAVA, RMQ_JDK_OPTS and RMQ_COMMON_OPTS; its harness's logback file keeps the client quiet
cd "$RMQ_RUN"
logback=()
[ -f "$dir/harness/logback-harness.xml" ] && logback=(-Dlogback.configurationFile="$dir/harness/logback-harness.xml" -Drocketmq.client.logLevel=INFO)
exec $JAVA $heap -XX:+UseSerialGC $RMQ_JDK_OPTS $RMQ_COMMON_OPTS "${logback[@]}" ${JAVA_OPT_EXT:-} -cp "$RMQ_CP" "$src" "$@"
