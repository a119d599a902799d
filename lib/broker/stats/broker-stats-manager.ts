/**
 * The broker's traffic counters, as Java's BrokerStatsManager keeps them: per topic (puts), per topic@group (gets)
 * and per broker, each a StatsItem with a running value and call count, sampled every 10 s (minute window: the last
 * 7 samples), every 10 min (hour: 7) and every hour (day: 25). VIEW_BROKER_STATS_DATA, `mqadmin statsAll` and the
 * Prometheus endpoint read them.
 *
 * The send and pull paths call `inc*` once per request (a map lookup and two additions); all sampling happens on one
 * timer, cleared by shutdown().
 *
 * @see org.apache.rocketmq.store.stats.BrokerStatsManager
 * @see org.apache.rocketmq.common.stats.StatsItem
 */
import type { BrokerStatsData, BrokerStatsItem } from '../../../protocol/body/broker-stats-data';

export const TOPIC_PUT_NUMS = 'TOPIC_PUT_NUMS';
export const TOPIC_PUT_SIZE = 'TOPIC_PUT_SIZE';
export const GROUP_GET_NUMS = 'GROUP_GET_NUMS';
export const GROUP_GET_SIZE = 'GROUP_GET_SIZE';
export const BROKER_PUT_NUMS = 'BROKER_PUT_NUMS';
export const BROKER_GET_NUMS = 'BROKER_GET_NUMS';

/** The items this broker keeps (Java has more: send-backs, reads from disk, pull latency). */
export const STATS_NAMES = [TOPIC_PUT_NUMS, TOPIC_PUT_SIZE, GROUP_GET_NUMS, GROUP_GET_SIZE, BROKER_PUT_NUMS, BROKER_GET_NUMS] as const;

const SAMPLE_INTERVAL_MS = 10_000;
/** Samples of the 10 s tick between hour-window samples (10 min) and day-window samples (1 h). */
const TICKS_PER_HOUR_SAMPLE = 60;
const TICKS_PER_DAY_SAMPLE = 360;

interface CallSnapshot {
  timestamp: number;
  times: number;
  value: number;
}

function computeStatsData(list: CallSnapshot[]): BrokerStatsItem {
  if (list.length === 0) return { sum: 0, tps: 0, avgpt: 0 };
  const first = list[0];
  const last = list[list.length - 1];
  const sum = last.value - first.value;
  const span = last.timestamp - first.timestamp;
  const timesDiff = last.times - first.times;
  return { sum, tps: span > 0 ? (sum * 1000) / span : 0, avgpt: timesDiff > 0 ? sum / timesDiff : 0 };
}

function sample(list: CallSnapshot[], now: number, backMs: number, keep: number, item: StatsItem): void {
  if (list.length === 0) list.push({ timestamp: now - backMs, times: 0, value: 0 });
  list.push({ timestamp: now, times: item.times, value: item.value });
  if (list.length > keep) list.shift();
}

/** One counter: a running value and the number of calls that added to it. */
export class StatsItem {
  value = 0;
  times = 0;
  readonly minute: CallSnapshot[] = [];
  readonly hour: CallSnapshot[] = [];
  readonly day: CallSnapshot[] = [];

  add(value: number, times: number): void {
    this.value += value;
    this.times += times;
  }

  statsData(): BrokerStatsData {
    return { statsMinute: computeStatsData(this.minute), statsHour: computeStatsData(this.hour), statsDay: computeStatsData(this.day) };
  }
}

export interface BrokerStatsManagerOptions {
  /** The cluster name: the key of the broker-wide items (Java uses it too). */
  clusterName: string;
  now?: () => number;
}

export class BrokerStatsManager {
  readonly #sets = new Map<string, Map<string, StatsItem>>();
  readonly #clusterName: string;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | null = null;
  #ticks = 0;
  /** Broker-wide counters kept apart for the hot path (no map lookup). */
  readonly #brokerPut: StatsItem;
  readonly #brokerGet: StatsItem;

  constructor(options: BrokerStatsManagerOptions) {
    this.#clusterName = options.clusterName;
    this.#now = options.now ?? Date.now;
    for (const name of STATS_NAMES) this.#sets.set(name, new Map());
    this.#brokerPut = this.#item(BROKER_PUT_NUMS, this.#clusterName);
    this.#brokerGet = this.#item(BROKER_GET_NUMS, this.#clusterName);
  }

  /** Starts the 10 s sampling (idempotent). */
  start(): void {
    if (this.#timer) return;
    this.sampleNow();
    this.#timer = setInterval(() => this.sampleNow(), SAMPLE_INTERVAL_MS);
    this.#timer.unref();
  }

  shutdown(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** One sampling tick (the timer's work; tests call it with an injected clock). */
  sampleNow(): void {
    const now = this.#now();
    const hour = this.#ticks % TICKS_PER_HOUR_SAMPLE === 0;
    const day = this.#ticks % TICKS_PER_DAY_SAMPLE === 0;
    this.#ticks++;
    for (const set of this.#sets.values()) {
      for (const item of set.values()) {
        sample(item.minute, now, SAMPLE_INTERVAL_MS, 7, item);
        if (hour) sample(item.hour, now, 10 * 60_000, 7, item);
        if (day) sample(item.day, now, 3_600_000, 25, item);
      }
    }
  }

  #item(name: string, key: string): StatsItem {
    const set = this.#sets.get(name)!;
    let item = set.get(key);
    if (!item) {
      item = new StatsItem();
      set.set(key, item);
    }
    return item;
  }

  incTopicPutNums(topic: string, num = 1, times = 1): void {
    this.#item(TOPIC_PUT_NUMS, topic).add(num, times);
  }

  incTopicPutSize(topic: string, size: number): void {
    this.#item(TOPIC_PUT_SIZE, topic).add(size, 1);
  }

  /** A pull that found `num` messages of `size` bytes: Java's incGroupGetNums + incGroupGetSize, one key built. */
  incGroupGet(group: string, topic: string, num: number, size: number): void {
    const key = `${topic}@${group}`;
    this.#item(GROUP_GET_NUMS, key).add(num, 1);
    this.#item(GROUP_GET_SIZE, key).add(size, 1);
  }

  incBrokerPutNums(num = 1): void {
    this.#brokerPut.add(num, 1);
  }

  incBrokerGetNums(num: number): void {
    this.#brokerGet.add(num, 1);
  }

  /** An item's minute / hour / day figures, or null when the broker has no such item (Java answers an error). */
  statsData(statsName: string, statsKey: string): BrokerStatsData | null {
    return this.#sets.get(statsName)?.get(statsKey)?.statsData() ?? null;
  }

  /** Every item of one stats name (for exporters). */
  items(statsName: string): ReadonlyMap<string, StatsItem> {
    return this.#sets.get(statsName) ?? new Map();
  }

  get brokerPut(): StatsItem {
    return this.#brokerPut;
  }

  get brokerGet(): StatsItem {
    return this.#brokerGet;
  }
}
