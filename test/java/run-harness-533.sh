#!/usr/bin/env bash
# run-harness-533.sh <javaref dir> produce|consume|bench-produce|bench-consume [flags]: the Java client driver of
# ../shared/javaref/4.9.8/harness (its classes, compiled against the 4.9.8 client API) run on the Java 5.3.3 client
# jars, whose DefaultMQProducer / DefaultMQPushConsumer keep that API: the Java 5.3.3 client column of the compat
# matrix. Same flags and result lines as harness.sh. `txn` does not run: 5.3.3 dropped the TransactionMQProducer
# constructor the driver calls. exec's java, so the caller's pid is the JVM's. HARNESS_HEAP sets the heap.
set -e
ref=$(cd "$1" && pwd)
shift
. "$ref/5.3.3/bin/rmq-env.sh"
cd "$RMQ_RUN"
# the 5.3.3 client logs through its own logback: to files under $RMQ_RUN, not the console
exec "$RMQ_JAVA" ${HARNESS_HEAP:--Xms128m -Xmx512m} -XX:+UseG1GC "${RMQ_JVM_COMMON[@]}" \
  -Drocketmq.client.logRoot="$RMQ_RUN/logs" -Drocketmq.client.logLevel=WARN ${JAVA_OPT_EXT:-} \
  -cp "$ref/4.9.8/harness/classes:$RMQ_CP" rmqharness.Harness "$@"
