/**
 * Queue locks for orderly consumption: a consumer client locks the queues it owns (LOCK_BATCH_MQ, renewed every 20 s
 * by the client); a lock not renewed for 60 s (Java's rocketmq.broker.rebalance.lockMaxLiveTime) may be taken by
 * another client of the group.
 *
 * @see org.apache.rocketmq.broker.client.rebalance.RebalanceLockManager
 */
import { messageQueueKey, type MessageQueue } from '../../../protocol/message/message-queue';
import { componentLogger, type Logger } from '../../logger';

/** Java's REBALANCE_LOCK_MAX_LIVE_TIME default. */
export const REBALANCE_LOCK_MAX_LIVE_TIME = 60000;

interface LockEntry {
  clientId: string;
  lastUpdateTimestamp: number;
}

export interface RebalanceLockManagerOptions {
  lockMaxLiveTime: number;
  now: () => number;
  logger?: Logger;
}

export const DEFAULT_REBALANCE_LOCK_MANAGER_OPTIONS: Readonly<Omit<RebalanceLockManagerOptions, 'logger'>> = Object.freeze({
  lockMaxLiveTime: REBALANCE_LOCK_MAX_LIVE_TIME,
  now: Date.now,
});

export class RebalanceLockManager {
  readonly options: RebalanceLockManagerOptions;
  readonly #log: Logger;
  /** group → queue key → lock. */
  readonly #table = new Map<string, Map<string, LockEntry>>();

  constructor(options: Partial<RebalanceLockManagerOptions> = {}) {
    this.options = { ...DEFAULT_REBALANCE_LOCK_MANAGER_OPTIONS, ...options };
    this.#log = options.logger ?? componentLogger('rebalance-lock');
  }

  #expired(e: LockEntry, now: number): boolean {
    return now - e.lastUpdateTimestamp > this.options.lockMaxLiveTime;
  }

  /** True when `clientId` holds a live lock on `mq` (and renews it), as Java's isLocked. */
  isLocked(group: string, mq: MessageQueue, clientId: string): boolean {
    const e = this.#table.get(group)?.get(messageQueueKey(mq));
    if (!e || e.clientId !== clientId) return false;
    const now = this.options.now();
    if (this.#expired(e, now)) return false;
    e.lastUpdateTimestamp = now;
    return true;
  }

  /** The client holding a live lock on `mq`, if any (without renewing it). */
  lockOwner(group: string, mq: MessageQueue): string | null {
    const e = this.#table.get(group)?.get(messageQueueKey(mq));
    return e && !this.#expired(e, this.options.now()) ? e.clientId : null;
  }

  tryLock(group: string, mq: MessageQueue, clientId: string): boolean {
    return this.tryLockBatch(group, [mq], clientId).length === 1;
  }

  /** Locks what it can of `mqs` for `clientId`; returns the queues it now holds. */
  tryLockBatch(group: string, mqs: readonly MessageQueue[], clientId: string): MessageQueue[] {
    const locked: MessageQueue[] = [];
    const notLocked: MessageQueue[] = [];
    for (const mq of mqs) {
      if (this.isLocked(group, mq, clientId)) locked.push(mq);
      else notLocked.push(mq);
    }
    if (notLocked.length === 0) return locked;
    let groupTable = this.#table.get(group);
    if (!groupTable) {
      groupTable = new Map();
      this.#table.set(group, groupTable);
    }
    const now = this.options.now();
    for (const mq of notLocked) {
      const key = messageQueueKey(mq);
      const e = groupTable.get(key);
      if (!e) {
        groupTable.set(key, { clientId, lastUpdateTimestamp: now });
        this.#log.info({ group, mq, clientId }, 'tryLockBatch, message queue not locked, I got it');
        locked.push(mq);
      } else if (e.clientId === clientId) {
        e.lastUpdateTimestamp = now;
        locked.push(mq);
      } else if (this.#expired(e, now)) {
        this.#log.warn({ group, mq, oldClientId: e.clientId, newClientId: clientId }, 'tryLockBatch, message queue lock expired, I got it');
        e.clientId = clientId;
        e.lastUpdateTimestamp = now;
        locked.push(mq);
      } else {
        this.#log.warn({ group, mq, oldClientId: e.clientId, newClientId: clientId }, 'tryLockBatch, message queue locked by other client');
      }
    }
    return locked;
  }

  /** Releases the locks `clientId` holds on `mqs`; others' locks stay. */
  unlockBatch(group: string, mqs: readonly MessageQueue[], clientId: string): void {
    const groupTable = this.#table.get(group);
    if (!groupTable) {
      this.#log.warn({ group, clientId }, 'unlockBatch, group not exist');
      return;
    }
    for (const mq of mqs) {
      const key = messageQueueKey(mq);
      const e = groupTable.get(key);
      if (!e) continue;
      if (e.clientId === clientId) groupTable.delete(key);
      else this.#log.warn({ group, mq, clientId, owner: e.clientId }, 'unlockBatch, but mq locked by other client');
    }
    if (groupTable.size === 0) this.#table.delete(group);
  }
}
