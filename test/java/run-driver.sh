#!/usr/bin/env bash
# run-driver.sh <JavaRocketMQ-4.9.8-dir> <Source.java> args...: runs a single-file Java driver (Java's source
# launcher) on the 4.9.8 client jars, with the options of the install's scripts. exec's java: $! is the JVM.
set -e
RMQJAVA=$(cd "$1" && pwd)
SRC=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
shift 2
. "$RMQJAVA/bin/rmq-env.sh"
cd "$RMQ_RUN"
exec $JAVA ${DRIVER_HEAP:--Xms64m -Xmx384m} -XX:+UseSerialGC $RMQ_JDK_OPTS $RMQ_COMMON_OPTS \
  -Dlogback.configurationFile="$RMQJAVA/harness/logback-harness.xml" -Drocketmq.client.logLevel=INFO \
  ${JAVA_OPT_EXT:-} -cp "$RMQ_CP" "$SRC" "$@"
