/**
 * Services another part of the broker provides and the controller calls when present.
 */
import type { MessageExtBrokerInner } from '../store/commit-log';

/** Delay levels (ScheduleMessageService, lib/broker/schedule). */
export interface ScheduleMessageServiceHook {
  load?(): Promise<boolean>;
  start(): Promise<void> | void;
  shutdown(): Promise<void> | void;
  persist?(): Promise<void>;
  /**
   * Called by the send processor for a message whose DELAY property is set (level > 0, not a transaction
   * prepare/rollback): rewrites it for SCHEDULE_TOPIC_XXXX (REAL_TOPIC, REAL_QID, queue = level - 1, level capped
   * at the max), as Java's CommitLog.putMessage does.
   */
  rewriteDelayMessage(msg: MessageExtBrokerInner): void;
}

/** Anything with a lifecycle the controller starts after the store and stops before it. */
export interface BrokerService {
  start(): Promise<void> | void;
  shutdown(): Promise<void> | void;
}
