#!/usr/bin/env bash
# run-controller-533.sh <javaref dir> <controller.conf>: Java 5.3.3's controller (ControllerStartup, which has no
# start script in the reference build), with rmq-env.sh's JVM settings. Prints "The Controller Server boot success"
# on stdout when serving; logs under $RMQ_RUN/logs/rocketmqlogs/. exec's java, so the caller's pid is the JVM's.
set -e
ref=$(cd "$1" && pwd)
conf=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
. "$ref/5.3.3/bin/rmq-env.sh"
cd "$RMQ_RUN"
exec "$RMQ_JAVA" -server ${CONTROLLER_HEAP:--Xms128m -Xmx256m} "${RMQ_JVM_COMMON[@]}" ${JAVA_OPT_EXT:-} \
  -Drmq.logback.configurationFile="$RMQ_BASE/conf/rmq.controller.logback.xml" \
  -cp "$RMQ_CP" org.apache.rocketmq.controller.ControllerStartup -c "$conf"
