/**
 * The broker's registrations with its name servers, one lane per name server:
 *
 * - at most one REGISTER_BROKER in flight per name server; what is asked while one is in flight waits, merged with
 *   whatever else waits (a full registration absorbs waiting incremental ones, incremental ones add their topics up),
 *   and its body is built when it is sent, from the tables as they are then;
 * - incremental registrations carry only the topics that changed with the current data version (Java 4.9.8
 *   `registerIncrementBrokerData` after an admin create, 5.x also after a topic created on the fly), so a create costs
 *   the same with 50 topics or 50,000;
 * - a periodic registration that is not forced asks each name server for the data version it holds
 *   (QUERY_DATA_VERSION, Java `needRegister`) and sends the whole table only to those that differ, or whose last
 *   registration failed.
 *
 * Each caller gets the results of the registration that covered its request (null where a name server failed).
 *
 * A name server applies a registration's topics only when its data version differs from the one it holds. So a
 * change must be asked for in the same turn as the data version moves: then the registration that first carries a
 * version also carries every topic changed up to it (its body is built at send time, from the current version).
 *
 * @see org.apache.rocketmq.broker.BrokerController#registerIncrementBrokerData
 * @see org.apache.rocketmq.broker.BrokerController#needRegister
 */
import type { Logger } from '../../logger';
import type { BrokerOuterAPI, RegisterBrokerArgs, RegisterBrokerResult } from './broker-outer-api';
import type { DataVersion } from '../../../protocol/body/data-version';

/** What a registration covers: the whole topic table, or the named topics. */
export type RegisterScope = { full: true } | { full: false; topics: Iterable<string> };

interface Job {
  full: boolean;
  topics: Set<string>;
  waiters: Array<(result: RegisterBrokerResult | null) => void>;
}

interface Lane {
  inflight: boolean;
  pending: Job | null;
  /** The last registration to this name server failed: the next periodic one sends the whole table. */
  stale: boolean;
  /** Failures in a row, for the retry's backoff. */
  failures: number;
  retry: NodeJS.Timeout | null;
}

export interface BrokerRegistrationStats {
  /** Registrations sent, whole table. */
  full: number;
  /** Registrations sent with only changed topics. */
  incremental: number;
  /** Topic configs carried by the incremental ones. */
  incrementalTopics: number;
  /** Periodic checks that found a name server up to date and sent nothing. */
  skipped: number;
}

export interface BrokerRegistrationOptions {
  api: BrokerOuterAPI;
  logger: Logger;
  /**
   * After a failed registration the whole table goes to that name server again after 1 s, doubling up to this
   * (REGISTER_RETRY_MAX_DELAY_MILLIS for the broker), rather than at the next period (Java). A name server that sees a
   * timed-out connection's close late (after a healed partition) drops the broker registered on that connection, and
   * no longer one that registered again since, on a new one; and a master elected while the name server was out of
   * reach is named by it within this delay (plus the connect timeout of an attempt under way) of the heal.
   */
  maxRetryDelayMillis: number;
  /** Whether a retry may go out now (a controller-mode broker without a role registers nothing). */
  shouldRetry?: () => boolean;
  /** The request for `topics` (null: every topic), built at send time. */
  build(topics: ReadonlySet<string> | null): RegisterBrokerArgs;
}

/**
 * The broker's longest pause between retries of a failed registration. Each attempt to an unreachable name server
 * already waits for its connect timeout (3 s), so a short pause costs little, and it bounds how long after a healed
 * partition the name server may go without the master the broker became meanwhile (at the registration period of
 * 10-60 s before, which left the route without a master for up to that long: found by `npm run chaos -- net
 * dledger-random`).
 */
export const REGISTER_RETRY_MAX_DELAY_MILLIS = 2000;

export class BrokerRegistration {
  readonly stats: BrokerRegistrationStats = { full: 0, incremental: 0, incrementalTopics: 0, skipped: 0 };
  readonly #lanes = new Map<string, Lane>();
  readonly #options: BrokerRegistrationOptions;
  #stopped = false;

  constructor(options: BrokerRegistrationOptions) {
    this.#options = options;
  }

  /** Registers `scope` with every name server; resolves with the successful results once each has answered. */
  async register(scope: RegisterScope): Promise<RegisterBrokerResult[]> {
    const addrs = this.#options.api.nameServerAddressList;
    const results = await Promise.all(addrs.map((addr) => this.#enqueue(addr, scope)));
    return results.filter((r): r is RegisterBrokerResult => r !== null);
  }

  /**
   * The periodic registration: `force` sends the whole table everywhere (Java forceRegister); otherwise only to the
   * name servers whose data version differs from the broker's, or whose last registration failed.
   */
  async registerPeriodically(force: boolean, header: QueryHeader): Promise<RegisterBrokerResult[]> {
    if (force) return this.register({ full: true });
    const addrs = this.#options.api.nameServerAddressList;
    const results = await Promise.all(addrs.map(async (addr) => {
      const lane = this.#lane(addr);
      if (!lane.stale) {
        const changed = await this.#options.api.queryDataVersionChanged(addr, header).catch((err: unknown) => {
          this.#options.logger.warn({ err, namesrvAddr: addr }, 'query data version failed');
          return true;
        });
        if (!changed) {
          this.stats.skipped++;
          return null;
        }
      }
      return this.#enqueue(addr, { full: true });
    }));
    return results.filter((r): r is RegisterBrokerResult => r !== null);
  }

  /** Registrations still waiting or in flight, over all name servers (for tests and shutdown). */
  get busy(): boolean {
    for (const lane of this.#lanes.values()) if (lane.inflight || lane.pending) return true;
    return false;
  }

  /** Stops sending: waiting registrations resolve with no result; the one in flight ends on its own. */
  shutdown(): void {
    this.#stopped = true;
    for (const lane of this.#lanes.values()) {
      if (lane.retry) clearTimeout(lane.retry);
      lane.retry = null;
      const job = lane.pending;
      lane.pending = null;
      for (const w of job?.waiters ?? []) w(null);
    }
  }

  #lane(addr: string): Lane {
    let lane = this.#lanes.get(addr);
    if (!lane) {
      lane = { inflight: false, pending: null, stale: false, failures: 0, retry: null };
      this.#lanes.set(addr, lane);
    }
    return lane;
  }

  #enqueue(addr: string, scope: RegisterScope): Promise<RegisterBrokerResult | null> {
    if (this.#stopped) return Promise.resolve(null);
    const lane = this.#lane(addr);
    const job = lane.pending ?? (lane.pending = { full: false, topics: new Set(), waiters: [] });
    if (scope.full) {
      job.full = true;
      job.topics.clear();
    } else if (!job.full) {
      for (const t of scope.topics) job.topics.add(t);
    }
    const done = new Promise<RegisterBrokerResult | null>((resolve) => job.waiters.push(resolve));
    if (!lane.inflight) void this.#pump(addr, lane);
    return done;
  }

  #retryLater(addr: string, lane: Lane): void {
    if (lane.retry || this.#stopped) return;
    const delay = Math.min(this.#options.maxRetryDelayMillis, 1000 * 2 ** Math.min(lane.failures - 1, 16));
    lane.retry = setTimeout(() => {
      lane.retry = null;
      // Only if nothing registered with it meanwhile.
      if (lane.stale && (this.#options.shouldRetry?.() ?? true)) void this.#enqueue(addr, { full: true });
    }, delay);
    lane.retry.unref();
  }

  async #pump(addr: string, lane: Lane): Promise<void> {
    lane.inflight = true;
    try {
      while (lane.pending && !this.#stopped) {
        const job = lane.pending;
        lane.pending = null;
        let result: RegisterBrokerResult | null = null;
        try {
          const args = this.#options.build(job.full ? null : job.topics);
          if (job.full) this.stats.full++;
          else {
            this.stats.incremental++;
            this.stats.incrementalTopics += args.topicConfigWrapper.topicConfigTable.size;
          }
          result = await this.#options.api.registerBroker(addr, args);
          if (job.full) lane.stale = false;
          lane.failures = 0;
        } catch (err) {
          lane.stale = true;
          lane.failures++;
          this.#options.logger.warn({ err, namesrvAddr: addr, full: job.full, failures: lane.failures }, 'register broker failed');
          this.#retryLater(addr, lane);
        }
        for (const w of job.waiters) w(result);
      }
    } finally {
      lane.inflight = false;
    }
  }
}

/** The QUERY_DATA_VERSION request's fields. */
export interface QueryHeader {
  clusterName: string;
  brokerAddr: string;
  brokerName: string;
  brokerId: number;
  dataVersion: DataVersion;
}
