/**
 * The broker's POP checkpoints: which popped messages are still invisible and unacknowledged, until when.
 *
 * Java keeps them as messages in `rmq_sys_REVIVE_LOG_<cluster>` (a "ck" message per pop, an "ack" message per
 * acknowledgement, merged by PopBufferMergeService and read back by PopReviveService). We keep the same facts in
 * an on-disk equivalent of our own: an append-only text log, `<storePathRootDir>/pop/checkpoint.log`, one line
 * per event, replayed on start and compacted (rewritten with the live checkpoints only) at start and when dead
 * lines dominate:
 *
 *   C <group> <topic> <queueId> <startOffset> <popTime> <invisibleTime> <reviveQid> <offset,offset,...>
 *   A <group> <topic> <queueId> <startOffset> <popTime> <offset>        one message acknowledged
 *   D <group> <topic> <queueId> <startOffset> <popTime>                 checkpoint done (revived or all acked)
 *
 * Group and topic names hold no spaces (topic and group validation), so the lines split on spaces. A checkpoint is
 * identified as in Java's ack matching: topic, group, queueId, startOffset, popTime (all in the message's extraInfo).
 * Lines are appended in the order of the events and written together once per tick; a line reaches the file
 * before the consumer offset the pop moved is persisted (every flushConsumerOffsetInterval), so a crash loses at
 * most acknowledgements (the message comes again: at least once), never a checkpoint.
 *
 * @see org.apache.rocketmq.store.pop.PopCheckPoint
 * @see org.apache.rocketmq.broker.processor.PopBufferMergeService
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../logger';
import { writeFully } from '../../util/write-fully';

export interface PopCheckPoint {
  readonly group: string;
  /** The topic popped from (the pop retry topic for redeliveries). */
  readonly topic: string;
  readonly queueId: number;
  readonly startOffset: number;
  readonly popTime: number;
  readonly invisibleTime: number;
  readonly reviveQid: number;
  /** Queue offsets of the popped messages. */
  readonly offsets: readonly number[];
  /** Offsets not acknowledged yet. */
  readonly pending: Set<number>;
  /** popTime + invisibleTime. */
  readonly reviveTime: number;
}

export function checkPointKey(group: string, topic: string, queueId: number, startOffset: number, popTime: number): string {
  return `${topic}@${group}@${queueId}@${startOffset}@${popTime}`;
}

/** A min-heap of checkpoints by revive time (entries of removed checkpoints are skipped when they surface). */
class ReviveHeap {
  readonly #a: Array<{ t: number; key: string }> = [];

  get size(): number {
    return this.#a.length;
  }

  push(t: number, key: string): void {
    const a = this.#a;
    a.push({ t, key });
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p].t <= a[i].t) break;
      [a[p], a[i]] = [a[i], a[p]];
      i = p;
    }
  }

  peek(): { t: number; key: string } | undefined {
    return this.#a[0];
  }

  pop(): { t: number; key: string } | undefined {
    const a = this.#a;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && a[l].t < a[m].t) m = l;
        if (r < a.length && a[r].t < a[m].t) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i], a[m]];
        i = m;
      }
    }
    return top;
  }
}

export interface PopCheckPointStoreOptions {
  /** The folder of checkpoint.log. */
  dir: string;
  logger: Logger;
}

export class PopCheckPointStore {
  readonly #table = new Map<string, PopCheckPoint>();
  readonly #heap = new ReviveHeap();
  readonly #file: string;
  readonly #log: Logger;
  #pending: string[] = [];
  #flushScheduled = false;
  #chain: Promise<void> = Promise.resolve();
  #fh: fsp.FileHandle | null = null;
  #linesSinceCompaction = 0;
  /** In-flight (unacknowledged) messages per `topic@group@queueId`. */
  readonly #inflight = new Map<string, number>();

  constructor(private readonly options: PopCheckPointStoreOptions) {
    this.#file = path.join(options.dir, 'checkpoint.log');
    this.#log = options.logger;
  }

  get size(): number {
    return this.#table.size;
  }

  /** Replays checkpoint.log (a torn last line is ignored), then rewrites it compacted. */
  async load(): Promise<void> {
    await fsp.mkdir(this.options.dir, { recursive: true });
    let text = '';
    try {
      text = await fsp.readFile(this.#file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    let bad = 0;
    for (const line of text.split('\n')) {
      if (!line) continue;
      if (!this.#apply(line)) bad++;
    }
    if (bad) this.#log.warn({ file: this.#file, bad }, 'checkpoint.log: lines skipped');
    await this.#compactNow();
    this.#log.info({ checkpoints: this.#table.size }, 'pop checkpoints loaded');
  }

  #apply(line: string): boolean {
    const f = line.split(' ');
    const n = (i: number) => Number(f[i]);
    if (f[0] === 'C' && f.length === 9) {
      const offsets = f[8].split(',').map(Number);
      if (offsets.some((o) => !Number.isFinite(o))) return false;
      this.#put(f[1], f[2], n(3), n(4), n(5), n(6), n(7), offsets);
      return true;
    }
    if (f[0] === 'A' && f.length === 7) {
      this.#ack(checkPointKey(f[1], f[2], n(3), n(4), n(5)), n(6));
      return true;
    }
    if (f[0] === 'D' && f.length === 6) {
      this.#remove(checkPointKey(f[1], f[2], n(3), n(4), n(5)));
      return true;
    }
    return false;
  }

  #inflightKey(ck: { topic: string; group: string; queueId: number }): string {
    return `${ck.topic}@${ck.group}@${ck.queueId}`;
  }

  #addInflight(ck: PopCheckPoint, delta: number): void {
    const k = this.#inflightKey(ck);
    const v = (this.#inflight.get(k) ?? 0) + delta;
    if (v > 0) this.#inflight.set(k, v);
    else this.#inflight.delete(k);
  }

  #put(group: string, topic: string, queueId: number, startOffset: number, popTime: number, invisibleTime: number, reviveQid: number,
    offsets: readonly number[]): PopCheckPoint {
    const key = checkPointKey(group, topic, queueId, startOffset, popTime);
    const old = this.#table.get(key);
    if (old) {
      // Same queue, start and pop time: one checkpoint (a checkpoint.log written before add() kept keys apart).
      for (const o of offsets) if (!old.offsets.includes(o)) { (old.offsets as number[]).push(o); old.pending.add(o); this.#addInflight(old, 1); }
      return old;
    }
    const ck: PopCheckPoint = {
      group, topic, queueId, startOffset, popTime, invisibleTime, reviveQid, offsets: [...offsets], pending: new Set(offsets),
      reviveTime: popTime + invisibleTime,
    };
    this.#table.set(key, ck);
    this.#heap.push(ck.reviveTime, key);
    this.#addInflight(ck, ck.pending.size);
    return ck;
  }

  #ack(key: string, offset: number): boolean {
    const ck = this.#table.get(key);
    if (!ck || !ck.pending.delete(offset)) return false;
    this.#addInflight(ck, -1);
    if (ck.pending.size === 0) this.#table.delete(key);
    return true;
  }

  #remove(key: string): void {
    const ck = this.#table.get(key);
    if (!ck) return;
    this.#addInflight(ck, -ck.pending.size);
    this.#table.delete(key);
  }

  /**
   * Records a checkpoint (a pop's, or a change of invisible time's). It never joins another: a checkpoint is keyed by
   * queue, start offset and pop time, and a key taken (a change of invisible time in its pop's millisecond) gets the
   * next free millisecond, so the ack of the old one cannot end the new one. The caller answers `ck.popTime`. (A
   * pop's key is always free: its start offset was not popped before.)
   */
  add(group: string, topic: string, queueId: number, startOffset: number, popTime: number, invisibleTime: number, reviveQid: number,
    offsets: readonly number[]): PopCheckPoint {
    let t = popTime;
    while (this.#table.has(checkPointKey(group, topic, queueId, startOffset, t))) t++;
    const ck = this.#put(group, topic, queueId, startOffset, t, invisibleTime, reviveQid, offsets);
    this.#append(`C ${group} ${topic} ${queueId} ${startOffset} ${t} ${invisibleTime} ${reviveQid} ${offsets.join(',')}`);
    return ck;
  }

  /** Acknowledges one message of a checkpoint; false when the checkpoint or the message is not (any more) in flight. */
  ack(group: string, topic: string, queueId: number, startOffset: number, popTime: number, offset: number): boolean {
    const key = checkPointKey(group, topic, queueId, startOffset, popTime);
    const ck = this.#table.get(key);
    const done = this.#ack(key, offset);
    if (done && ck) {
      this.#append(`A ${group} ${topic} ${queueId} ${startOffset} ${popTime} ${offset}`);
      if (ck.pending.size === 0) this.#append(`D ${group} ${topic} ${queueId} ${startOffset} ${popTime}`);
    }
    return done;
  }

  /** Ends a checkpoint (its unacknowledged messages were revived). */
  done(ck: PopCheckPoint): void {
    const key = checkPointKey(ck.group, ck.topic, ck.queueId, ck.startOffset, ck.popTime);
    if (!this.#table.has(key)) return;
    this.#remove(key);
    this.#append(`D ${ck.group} ${ck.topic} ${ck.queueId} ${ck.startOffset} ${ck.popTime}`);
  }

  get(group: string, topic: string, queueId: number, startOffset: number, popTime: number): PopCheckPoint | undefined {
    return this.#table.get(checkPointKey(group, topic, queueId, startOffset, popTime));
  }

  /** Unacknowledged messages popped from a queue by a group. */
  inflight(topic: string, group: string, queueId: number): number {
    return this.#inflight.get(`${topic}@${group}@${queueId}`) ?? 0;
  }

  /** The earliest revive time of a live checkpoint, or undefined. */
  nextReviveTime(): number | undefined {
    for (;;) {
      const top = this.#heap.peek();
      if (!top) return undefined;
      const ck = this.#table.get(top.key);
      if (ck && ck.reviveTime === top.t) return top.t;
      this.#heap.pop();
    }
  }

  /** Removes from the revive order and returns the next checkpoint due at `now` (it stays live until done()). */
  pollDue(now: number): PopCheckPoint | undefined {
    for (;;) {
      const top = this.#heap.peek();
      if (!top || top.t > now) return undefined;
      this.#heap.pop();
      const ck = this.#table.get(top.key);
      if (ck && ck.reviveTime === top.t) return ck;
    }
  }

  /** Puts a checkpoint whose revive failed back in the revive order, due at `t`. */
  retryLater(ck: PopCheckPoint, t: number): void {
    this.#heap.push(t, checkPointKey(ck.group, ck.topic, ck.queueId, ck.startOffset, ck.popTime));
    (ck as { reviveTime: number }).reviveTime = t;
  }

  // ---------------------------------------------------------------- the file

  #append(line: string): void {
    this.#pending.push(line);
    this.#linesSinceCompaction++;
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(() => {
      this.#flushScheduled = false;
      void this.flush();
    });
  }

  /** Writes the lines appended so far (resolves once they are in the file). */
  flush(): Promise<void> {
    const lines = this.#pending;
    if (lines.length === 0) return this.#chain;
    this.#pending = [];
    this.#chain = this.#chain.then(async () => {
      if (!this.#fh) this.#fh = await fsp.open(this.#file, 'a');
      const text = Buffer.from(lines.join('\n') + '\n');
      await writeFully(this.#fh, text, 0, text.length, null);
      if (this.#linesSinceCompaction > 10_000 && this.#linesSinceCompaction > 4 * this.#table.size) await this.#compactNow();
    }).catch((err: unknown) => this.#log.error({ err, file: this.#file }, 'checkpoint.log write failed'));
    return this.#chain;
  }

  /** Rewrites the file with the live checkpoints only (a C line each, acknowledged offsets left out). */
  async #compactNow(): Promise<void> {
    const tmp = `${this.#file}.tmp`;
    const out: string[] = [];
    for (const ck of this.#table.values()) {
      const offsets = ck.offsets.filter((o) => ck.pending.has(o));
      out.push(`C ${ck.group} ${ck.topic} ${ck.queueId} ${ck.startOffset} ${ck.popTime} ${ck.invisibleTime} ${ck.reviveQid} ${offsets.join(',')}`);
    }
    await fsp.writeFile(tmp, out.length ? out.join('\n') + '\n' : '');
    if (this.#fh) {
      await this.#fh.close();
      this.#fh = null;
    }
    await fsp.rename(tmp, this.#file);
    this.#linesSinceCompaction = 0;
  }

  /** Flushes and closes the file. */
  async close(): Promise<void> {
    await this.flush();
    await this.#chain;
    if (this.#fh) {
      await this.#fh.close();
      this.#fh = null;
    }
  }

  /** For tests: the file's path. */
  get file(): string {
    return this.#file;
  }
}
