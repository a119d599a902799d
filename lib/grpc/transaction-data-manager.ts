/**
 * What the endpoint remembers of a half message so that an EndTransaction, which names only the producer group
 * (the topic) and the transaction id, can be sent to the broker as an END_TRANSACTION with the half message's
 * commit-log and queue offsets. Entries come from a transactional send's answer and from each transaction check
 * relayed to a gRPC producer; one is taken (the newest not expired) per EndTransaction; entries expire after
 * transactionDataExpireMillis (30 s) and at most transactionDataMaxNum (15) are kept per transaction id.
 *
 * @see org.apache.rocketmq.proxy.service.transaction.TransactionDataManager
 * @see org.apache.rocketmq.proxy.service.transaction.TransactionData
 */
import type { GrpcProxyConfig } from './grpc-proxy-config';

export interface TransactionData {
  readonly brokerName: string;
  readonly topic: string;
  readonly tranStateTableOffset: number;
  readonly commitLogOffset: number;
  readonly transactionId: string;
  readonly checkTimestamp: number;
  readonly expireMs: number;
}

function expireTime(d: TransactionData): number {
  return d.checkTimestamp + d.expireMs;
}

/** TransactionData.compareTo: expire time, broker name, commit-log offset, queue offset, transaction id. */
function compare(a: TransactionData, b: TransactionData): number {
  const byExpire = expireTime(a) - expireTime(b);
  if (byExpire !== 0) return byExpire;
  if (a.brokerName !== b.brokerName) return a.brokerName < b.brokerName ? -1 : 1;
  if (a.commitLogOffset !== b.commitLogOffset) return a.commitLogOffset - b.commitLogOffset;
  if (a.tranStateTableOffset !== b.tranStateTableOffset) return a.tranStateTableOffset - b.tranStateTableOffset;
  return a.transactionId < b.transactionId ? -1 : a.transactionId > b.transactionId ? 1 : 0;
}

export class TransactionDataManager {
  /** producerGroup@transactionId → entries in TransactionData order (a sorted set in Java). */
  readonly #table = new Map<string, TransactionData[]>();
  #cleaner: NodeJS.Timeout | null = null;

  constructor(private readonly config: Pick<GrpcProxyConfig, 'transactionDataMaxNum' | 'transactionDataExpireScanPeriodMillis'>) {}

  static buildKey(producerGroup: string, transactionId: string): string {
    return `${producerGroup}@${transactionId}`;
  }

  /** Number of entries kept (all keys). */
  get size(): number {
    let n = 0;
    for (const set of this.#table.values()) n += set.length;
    return n;
  }

  addTransactionData(producerGroup: string, transactionId: string, data: TransactionData): void {
    const key = TransactionDataManager.buildKey(producerGroup, transactionId);
    const set = this.#table.get(key) ?? [];
    if (!set.some((d) => compare(d, data) === 0)) {
      set.push(data);
      set.sort(compare);
    }
    if (set.length > this.config.transactionDataMaxNum) set.shift();
    this.#table.set(key, set);
  }

  /** The newest entry not expired, removed (expired ones met on the way are dropped); undefined when none. */
  pollNoExpireTransactionData(producerGroup: string, transactionId: string, now = Date.now()): TransactionData | undefined {
    const key = TransactionDataManager.buildKey(producerGroup, transactionId);
    const set = this.#table.get(key);
    if (!set) return undefined;
    let data = set.pop();
    while (data !== undefined && expireTime(data) < now) data = set.pop();
    if (set.length === 0) this.#table.delete(key);
    return data;
  }

  removeTransactionData(producerGroup: string, transactionId: string, data: TransactionData): void {
    const key = TransactionDataManager.buildKey(producerGroup, transactionId);
    const set = this.#table.get(key);
    if (!set) return;
    const i = set.findIndex((d) => compare(d, data) === 0);
    if (i >= 0) set.splice(i, 1);
    if (set.length === 0) this.#table.delete(key);
  }

  /** Drops the expired entries (the cleaner's pass). */
  cleanExpireTransactionData(now = Date.now()): void {
    for (const [key, set] of this.#table) {
      while (set.length > 0 && expireTime(set[0]) < now) set.shift();
      if (set.length === 0) this.#table.delete(key);
    }
  }

  start(): void {
    if (this.#cleaner) return;
    this.#cleaner = setInterval(() => this.cleanExpireTransactionData(), this.config.transactionDataExpireScanPeriodMillis);
    this.#cleaner.unref();
  }

  shutdown(): void {
    if (this.#cleaner) clearInterval(this.#cleaner);
    this.#cleaner = null;
    this.#table.clear();
  }
}
