/**
 * The timer messages waiting in the wheel, per real topic (Java's TimerMetrics): +1 when one is enqueued, -1 when it
 * is delivered, each change moving the data version on. Kept in `config/timermetrics` (Java's file and JSON),
 * answered to GET_TIMER_METRICS (61), and copied by a slave from its master when the data versions differ (Java's
 * SlaveSynchronize.syncTimerMetrics).
 *
 * @see org.apache.rocketmq.store.timer.TimerMetrics (5.3.3)
 */
import path from 'node:path';
import { dataVersionEquals, newDataVersion, nextVersion, type DataVersion } from '../../../protocol/body/data-version';
import { type TimerMetric, type TimerMetricsSerializeWrapper, decodeTimerMetrics, encodeTimerMetrics } from '../../../protocol/body/timer-metrics';
import { loadConfigFile, string2File } from '../config-file';

export class TimerMetrics {
  readonly timingCount = new Map<string, TimerMetric>();
  dataVersion: DataVersion = { ...newDataVersion(), stateVersion: 0 };
  readonly file: string;
  #dirty = false;

  /** `storePathRootDir`: the file is `<storePathRootDir>/config/timermetrics` (Java's BrokerPathConfigHelper). */
  constructor(storePathRootDir: string, private readonly now: () => number = Date.now) {
    this.file = path.join(storePathRootDir, 'config', 'timermetrics');
  }

  /** Reads the file (or its .bak); a missing file is an empty table. */
  async load(): Promise<void> {
    const w = await loadConfigFile(this.file, (text) => decodeTimerMetrics(Buffer.from(text, 'utf8')));
    if (!w) return;
    for (const [topic, m] of w.timingCount) this.timingCount.set(topic, m);
    this.dataVersion = { ...w.dataVersion, stateVersion: w.dataVersion.stateVersion ?? 0 };
  }

  /** Java's addAndGet: the topic's count moves by `value` (its time stamp and the data version with it). */
  addAndGet(realTopic: string, value: number): number {
    let m = this.timingCount.get(realTopic);
    if (!m) {
      m = { count: 0, timeStamp: this.now() };
      this.timingCount.set(realTopic, m);
    }
    this.dataVersion = nextVersion(this.dataVersion, this.now());
    m.timeStamp = this.now();
    m.count += value;
    this.#dirty = true;
    return m.count;
  }

  getTimingCount(topic: string): number {
    return this.timingCount.get(topic)?.count ?? 0;
  }

  /** GET_TIMER_METRICS's body (Java's TimerMetrics.encode()). */
  encode(): Buffer {
    return encodeTimerMetrics({ timingCount: this.timingCount, dataVersion: this.dataVersion });
  }

  /** A slave takes its master's table when the data versions differ (Java syncTimerMetrics); true when it did. */
  syncFromMaster(w: TimerMetricsSerializeWrapper): boolean {
    if (dataVersionEquals(this.dataVersion, w.dataVersion)) return false;
    this.dataVersion = { ...w.dataVersion, stateVersion: w.dataVersion.stateVersion ?? 0 };
    this.timingCount.clear();
    for (const [topic, m] of w.timingCount) this.timingCount.set(topic, { ...m });
    this.#dirty = true;
    return true;
  }

  /** Writes the file when the table changed since the last write. */
  async persist(): Promise<void> {
    if (!this.#dirty) return;
    this.#dirty = false;
    try {
      await string2File(this.encode().toString('utf8'), this.file);
    } catch (err) {
      this.#dirty = true;
      throw err;
    }
  }
}
