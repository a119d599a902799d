/**
 * Keys our broker prints in GET_BROKER_CONFIG that Java 4.9.8's does not: settings of ours, and Java 5.x keys that
 * 4.9.8 lacks. The compatibility checks (the captured-request replay and the mqadmin row of the matrix) accept these
 * and nothing else beyond Java's own keys.
 */
export const OUR_ONLY_BROKER_CONFIG_KEYS: readonly string[] = [
  'channelExpiredTimeout', 'flushConsumerOffsetHistory', 'writeSegmentSize',
  // Java 5.x BrokerConfig keys (5.3.3 prints them, 4.9.8 has no metrics exporter), and our metricsPort shorthand
  'metricsExporterType', 'metricsPromExporterHost', 'metricsPromExporterPort', 'metricsPort',
  // the gRPC endpoint's port (Java's proxy key, lib/grpc)
  'grpcServerPort',
  // Java 5.x MessageStoreConfig timer keys (lib/store/timer)
  'timerWheelEnable', 'timerPrecisionMs', 'timerMaxDelaySec', 'mappedFileSizeTimerLog',
  // Java 5.x controller-mode keys (BrokerConfig and MessageStoreConfig of 5.3.3; lib/broker/controller)
  'enableControllerMode', 'controllerAddr', 'fetchControllerAddrByDnsLookup', 'syncBrokerMetadataPeriod',
  'checkSyncStateSetPeriod', 'syncControllerMetadataPeriod', 'controllerHeartBeatTimeoutMills', 'brokerHeartbeatInterval',
  'sendHeartbeatTimeoutMillis', 'brokerElectionPriority', 'inSyncReplicas', 'minInSyncReplicas', 'allAckInSyncStateSet',
  'enableAutoInSyncReplicas', 'haMaxTimeSlaveNotCatchup', 'syncFromLastFile', 'asyncLearner', 'storePathEpochFile',
  'storePathBrokerIdentity', 'readUnCommitted',
  // Java 5.x orderly POP (BrokerConfig of 5.3.3; lib/broker/pop)
  'enableNotifyAfterPopOrderLockRelease',
  // DLedger keys: Java prints them only once set (their default is null; its batch-push field prints as
  // isEnableBatchPush); ours prints them empty or false
  'dLegerGroup', 'dLegerPeers', 'dLegerSelfId', 'preferredLeaderId', 'enableBatchPush',
];
