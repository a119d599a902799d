/**
 * The checker of the network chaos scenarios (chaos/net), one for all: from what the producers recorded as acknowledged
 * (chaos/producer-child.ts: key, broker name, queue, offset, ack time), what the consumers recorded as delivered
 * (chaos/consumer-child.ts), what a drain of the topic reads after healing (chaos/drain.ts drainRecords) and the name
 * server's master timeline (chaos/net/client-child.ts), it counts:
 * - lost: acknowledged but not stored; for sync modes (SYNC_MASTER, DLedger, a single broker) any is a failure, for
 *   ASYNC_MASTER it is reported with its window (messages, first to last acknowledgement time);
 * - notConsumed: acknowledged and stored but never delivered to the consumer group (a failure);
 * - phantoms: stored or delivered but never sent (keys not `p<id>-<seq>` with seq below what producer id sent);
 * - duplicates, stored and delivered (reported; at-least-once allows them);
 * - offsetConflicts: two acknowledged messages at one broker/queue/offset — two masters writing at once, split brain;
 * - misplaced: an acknowledged message stored, but not at the offset its acknowledgement named;
 * - orderViolations (orderly topics): a producer's acknowledged messages of one queue stored or first delivered out
 *   of send order;
 * - availability: the longest stretch without an acknowledgement around each fault, the sum of stretches over 1 s,
 *   the time from each fault to a new master in the name server, and from there to the next acknowledgement; how long
 *   the name server had no master for the broker name after each heal; acknowledged sends per second and the send
 *   latency of acknowledged sends (p50, p99) during each fault, beside the same figures before the first fault.
 */
import * as fs from 'node:fs';
import type { StoredRecord } from '../drain';
import type { MasterChange } from './client-child';

export interface AckRecord {
  key: string;
  brokerName: string;
  queueId: number;
  queueOffset: number;
  ackMs: number;
  sentMs: number;
}

export interface Delivery {
  key: string;
  brokerName: string;
  queueId: number;
  queueOffset: number;
  ms: number;
}

export interface FaultWindow {
  label: string;
  start: number;
  /** When it was healed. */
  end: number;
}

export interface FaultFigures {
  label: string;
  durationMs: number;
  /** Longest stretch without an acknowledged send that overlaps the fault (or the 10 s after its heal). */
  noAckMs: number;
  /** From the fault to the name server naming another master for the broker name (null: none did). */
  newMasterMs: number | null;
  /** From that new master to the next acknowledged send. */
  clientsFollowMs: number | null;
  /** After the heal, until the next fault or the end: how long the name server had no master for the broker name. */
  masterMissingAfterHealMs: number;
  /** Acknowledged sends per second during the fault. */
  acksPerSec: number;
  /** Send latency (acknowledgement time minus send time) of the sends acknowledged during the fault, ms. */
  latencyP50Ms: number | null;
  latencyP99Ms: number | null;
}

/** The same rate and latency over the stretch before the first fault (up to 20 s of it): what each fault compares with. */
export interface Baseline {
  durationMs: number;
  acksPerSec: number;
  latencyP50Ms: number | null;
  latencyP99Ms: number | null;
}

export interface CheckReport {
  acknowledged: number;
  stored: number;
  consumed: number;
  lost: number;
  lostKeys: string[];
  /** Lost acknowledged messages: from the first one's acknowledgement to the last one's, ms. */
  lossWindowMs: number;
  notConsumed: number;
  phantoms: string[];
  duplicatesStored: number;
  duplicatesConsumed: number;
  offsetConflicts: string[];
  misplaced: string[];
  orderViolations: string[];
  maxNoAckMs: number;
  /** Sum over the run of the stretches without an acknowledged send longer than 1 s, minus that 1 s each. */
  noAckSecondsOver1s: number;
  faults: FaultFigures[];
  /** Before the first fault (null without faults or acknowledgements before it). */
  before: Baseline | null;
  /** What failed (empty: the scenario's promise holds). */
  failures: string[];
}

export interface CheckInput {
  acks: AckRecord[];
  deliveries: Delivery[][];
  stored: StoredRecord[];
  /** Messages each producer id attempted (its last seq + 1). */
  sent: Map<string, number>;
  /** 'sync': nothing acknowledged may be lost; 'async': loss is reported. */
  promise: 'sync' | 'async';
  orderly: boolean;
  faults: FaultWindow[];
  timeline: MasterChange[];
  brokerName: string;
  /** When the producers stopped. */
  endMs: number;
}

const TAIL_CHUNK = 16 * 1024 * 1024;

/**
 * The complete lines appended to a file since the last call, at most TAIL_CHUNK bytes of them a call (call again
 * until none come). A long run's files hold millions of lines: polling them this way reads each byte once, and no
 * whole file becomes one string (V8's strings end at 512 MiB).
 */
export class FileTail {
  #pos = 0;
  #partial = '';
  /** One read buffer for all calls (a poll every few hundred ms would otherwise allocate 16 MiB each time). */
  #buf: Buffer | null = null;

  constructor(readonly file: string) {}

  newLines(): string[] {
    if (!fs.existsSync(this.file)) return [];
    const fd = fs.openSync(this.file, 'r');
    try {
      const buf = (this.#buf ??= Buffer.allocUnsafe(TAIL_CHUNK));
      const n = fs.readSync(fd, buf, 0, buf.length, this.#pos);
      this.#pos += n;
      const lines = (this.#partial + buf.toString('utf8', 0, n)).split('\n');
      this.#partial = lines.pop() ?? '';
      return lines;
    } finally {
      fs.closeSync(fd);
    }
  }
}

/** The same string for each broker name (millions of records name a few brokers). */
function interner(): (s: string) => string {
  const seen = new Map<string, string>();
  return (s) => {
    const got = seen.get(s);
    if (got !== undefined) return got;
    seen.set(s, s);
    return s;
  };
}

/**
 * The records of tab-separated files, a line each (read a chunk at a time, not each file split at once): `make` gets
 * the fields of each line with at least `fields` of them, its broker name interned (millions of records name a few).
 */
function readRecords<T>(files: string[], fields: number, make: (p: string[], brokerName: string) => T): T[] {
  const out: T[] = [];
  const name = interner();
  for (const file of files) {
    const tail = new FileTail(file);
    for (let lines = tail.newLines(); lines.length > 0; lines = tail.newLines()) {
      for (const line of lines) {
        const p = line.split('\t');
        if (p.length >= fields) out.push(make(p, name(p[1])));
      }
    }
  }
  return out;
}

export function readAcks(files: string[]): AckRecord[] {
  return readRecords(files, 6, (p, brokerName) => ({ key: p[0], brokerName, queueId: Number(p[2]), queueOffset: Number(p[3]), ackMs: Number(p[4]), sentMs: Number(p[5]) }));
}

/** What a drain wrote with `file` (chaos/net/client-child.ts): key, broker name, queue, queue offset a line. */
export function readStored(file: string): StoredRecord[] {
  return readRecords([file], 4, (p, brokerName) => ({ key: p[0], brokerName, queueId: Number(p[2]), queueOffset: Number(p[3]) }));
}

export function readDeliveries(file: string): Delivery[] {
  return readRecords([file], 5, (p, brokerName) => ({ key: p[0], brokerName, queueId: Number(p[2]), queueOffset: Number(p[3]), ms: Number(p[4]) }));
}

const KEY = /^p(\d+)-(\d+)$/;

function parseKey(key: string): { producer: string; seq: number } | null {
  const m = key.match(KEY);
  return m ? { producer: m[1], seq: Number(m[2]) } : null;
}

/** Within each group (queue + producer), the seqs must rise in the order given. */
function orderBreaks(items: Array<{ key: string; queue: string }>, what: string): string[] {
  const last = new Map<string, number>();
  const out: string[] = [];
  for (const it of items) {
    const k = parseKey(it.key);
    if (!k) continue;
    const g = `${it.queue}/p${k.producer}`;
    const prev = last.get(g);
    if (prev !== undefined && k.seq < prev) out.push(`${what} ${g}: p${k.producer}-${k.seq} after p${k.producer}-${prev}`);
    last.set(g, Math.max(prev ?? -1, k.seq));
  }
  return out;
}

function percentile(sorted: number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

/** Acknowledged sends in [from, to): their rate and latency percentiles. */
function rateIn(acks: AckRecord[], from: number, to: number): Baseline {
  const lat = acks.filter((a) => a.ackMs >= from && a.ackMs < to).map((a) => a.ackMs - a.sentMs).sort((x, y) => x - y);
  const durationMs = Math.max(0, to - from);
  return {
    durationMs,
    acksPerSec: durationMs > 0 ? Math.round((lat.length * 10_000) / durationMs) / 10 : 0,
    latencyP50Ms: percentile(lat, 0.5),
    latencyP99Ms: percentile(lat, 0.99),
  };
}

export function check(input: CheckInput): CheckReport {
  const failures: string[] = [];
  const ackByKey = new Map<string, AckRecord>();
  for (const a of input.acks) ackByKey.set(a.key, a);

  const storedCount = new Map<string, number>();
  const storedAt = new Map<string, string>();
  for (const r of input.stored) {
    storedCount.set(r.key, (storedCount.get(r.key) ?? 0) + 1);
    storedAt.set(`${r.brokerName}@${r.queueId}@${r.queueOffset}`, r.key);
  }
  const consumedCount = new Map<string, number>();
  for (const list of input.deliveries) for (const d of list) consumedCount.set(d.key, (consumedCount.get(d.key) ?? 0) + 1);

  // Lost, and their window.
  const lostAcks = [...ackByKey.values()].filter((a) => !storedCount.has(a.key));
  const lossWindowMs = lostAcks.length > 0 ? Math.max(...lostAcks.map((a) => a.ackMs)) - Math.min(...lostAcks.map((a) => a.ackMs)) : 0;
  if (lostAcks.length > 0 && input.promise === 'sync') failures.push(`${lostAcks.length} acknowledged messages lost`);
  const notConsumed = [...ackByKey.keys()].filter((k) => storedCount.has(k) && !consumedCount.has(k)).length;
  if (notConsumed > 0) failures.push(`${notConsumed} acknowledged and stored messages never delivered to the group`);

  // Phantoms: keys that no producer sent.
  const isSent = (key: string): boolean => {
    const k = parseKey(key);
    return k !== null && k.seq < (input.sent.get(k.producer) ?? 0);
  };
  const phantoms = [...new Set([...storedCount.keys(), ...consumedCount.keys()])].filter((k) => !isSent(k));
  if (phantoms.length > 0) failures.push(`${phantoms.length} messages stored or consumed that were never sent`);

  // Split brain: one position acknowledged for two messages; an acknowledgement naming a position holding another one.
  const ackAt = new Map<string, string>();
  const offsetConflicts: string[] = [];
  const misplaced: string[] = [];
  for (const a of ackByKey.values()) {
    const pos = `${a.brokerName}@${a.queueId}@${a.queueOffset}`;
    const other = ackAt.get(pos);
    if (other !== undefined && other !== a.key) offsetConflicts.push(`${pos}: ${other} and ${a.key}`);
    ackAt.set(pos, a.key);
    const there = storedAt.get(pos);
    if (storedCount.has(a.key) && there !== a.key) misplaced.push(`${a.key} acknowledged at ${pos}, which holds ${there ?? 'nothing'}`);
  }
  if (offsetConflicts.length > 0) failures.push(`${offsetConflicts.length} queue offsets acknowledged for two messages (two masters at once)`);
  if (misplaced.length > 0 && input.promise === 'sync') failures.push(`${misplaced.length} acknowledged messages not at the offset acknowledged`);

  // Order of orderly topics: stored order (queue offset) and first-delivery order, per queue and producer.
  const orderViolations: string[] = [];
  if (input.orderly) {
    const storedSorted = input.stored.filter((r) => ackByKey.has(r.key))
      .sort((x, y) => (x.brokerName < y.brokerName ? -1 : x.brokerName > y.brokerName ? 1 : x.queueId - y.queueId || x.queueOffset - y.queueOffset));
    orderViolations.push(...orderBreaks(storedSorted.map((r) => ({ key: r.key, queue: `${r.brokerName}@${r.queueId}` })), 'stored'));
    for (const list of input.deliveries) {
      const first = new Set<string>();
      const items: Array<{ key: string; queue: string }> = [];
      for (const d of list) {
        if (first.has(d.key) || !ackByKey.has(d.key)) continue;
        first.add(d.key);
        items.push({ key: d.key, queue: `${d.brokerName}@${d.queueId}` });
      }
      orderViolations.push(...orderBreaks(items, 'delivered'));
    }
    if (orderViolations.length > 0) failures.push(`${orderViolations.length} order violations`);
  }

  // Availability.
  const ackTimes = input.acks.map((a) => a.ackMs).sort((x, y) => x - y);
  const gaps: Array<[number, number]> = [];
  for (let i = 1; i < ackTimes.length; i++) gaps.push([ackTimes[i - 1], ackTimes[i]]);
  // From the last acknowledgement to the producers' stop (endMs): a stretch without one too.
  if (ackTimes.length > 0 && input.endMs > ackTimes[ackTimes.length - 1]) gaps.push([ackTimes[ackTimes.length - 1], input.endMs]);
  let noAckSecondsOver1s = 0;
  let maxNoAckMs = 0;
  for (const [a, b] of gaps) {
    if (b - a > 1000) noAckSecondsOver1s += (b - a - 1000) / 1000;
    maxNoAckMs = Math.max(maxNoAckMs, b - a);
  }
  const timeline = input.timeline.filter((c) => c.brokerName === input.brokerName).sort((x, y) => x.t - y.t);
  const masterAt = (t: number): string | null => {
    let m: string | null = null;
    for (const c of timeline) if (c.t <= t) m = c.master;
    return m;
  };
  const faults: FaultFigures[] = input.faults.map((f, i) => {
    const until = f.end + 10_000;
    let noAckMs = 0;
    for (const [a, b] of gaps) if (b >= f.start && a <= until) noAckMs = Math.max(noAckMs, b - a);
    const before = masterAt(f.start);
    const next = input.faults[i + 1]?.start ?? input.endMs;
    // Only a change before the next fault is this fault's doing.
    const change = timeline.find((c) => c.t > f.start && c.t < next && c.master !== null && c.master !== before);
    const newMasterMs = change ? change.t - f.start : null;
    const nextAck = change ? ackTimes.find((t) => t >= change.t) : undefined;
    const clientsFollowMs = change && nextAck !== undefined ? nextAck - change.t : null;
    let missing = 0;
    let since: number | null = masterAt(f.end) === null ? f.end : null;
    for (const c of timeline) {
      if (c.t <= f.end || c.t >= next) continue;
      if (c.master === null && since === null) since = c.t;
      if (c.master !== null && since !== null) {
        missing += c.t - since;
        since = null;
      }
    }
    if (since !== null) missing += next - since;
    const during = rateIn(input.acks, f.start, f.end);
    return {
      label: f.label, durationMs: f.end - f.start, noAckMs, newMasterMs, clientsFollowMs, masterMissingAfterHealMs: missing,
      acksPerSec: during.acksPerSec, latencyP50Ms: during.latencyP50Ms, latencyP99Ms: during.latencyP99Ms,
    };
  });
  const firstFault = input.faults.length > 0 ? Math.min(...input.faults.map((f) => f.start)) : null;
  const before = firstFault !== null && ackTimes.length > 0 && ackTimes[0] < firstFault
    ? rateIn(input.acks, Math.max(ackTimes[0], firstFault - 20_000), firstFault) : null;

  return {
    acknowledged: ackByKey.size,
    stored: storedCount.size,
    consumed: consumedCount.size,
    lost: lostAcks.length,
    lostKeys: lostAcks.slice(0, 20).map((a) => a.key),
    lossWindowMs,
    notConsumed,
    phantoms: phantoms.slice(0, 20),
    duplicatesStored: [...storedCount.values()].reduce((s, n) => s + n - 1, 0),
    duplicatesConsumed: [...consumedCount.values()].reduce((s, n) => s + n - 1, 0),
    offsetConflicts: offsetConflicts.slice(0, 20),
    misplaced: misplaced.slice(0, 20),
    orderViolations: orderViolations.slice(0, 20),
    maxNoAckMs,
    noAckSecondsOver1s: Math.round(noAckSecondsOver1s * 10) / 10,
    faults,
    before,
    failures,
  };
}

export function formatReport(name: string, r: CheckReport): string {
  const lines = [
    `${name}: ${r.failures.length === 0 ? 'ok' : `FAILED (${r.failures.join('; ')})`}`,
    `  acknowledged ${r.acknowledged}, stored ${r.stored}, consumed ${r.consumed}; lost ${r.lost}`
      + `${r.lost > 0 ? ` (window ${r.lossWindowMs} ms: ${r.lostKeys.join(' ')})` : ''}, not consumed ${r.notConsumed},`
      + ` never sent ${r.phantoms.length}, duplicates stored ${r.duplicatesStored} / consumed ${r.duplicatesConsumed},`
      + ` offset conflicts ${r.offsetConflicts.length}, misplaced ${r.misplaced.length}, order violations ${r.orderViolations.length}`,
    `  availability: longest stretch without an acknowledged send ${r.maxNoAckMs} ms, ${r.noAckSecondsOver1s} s in stretches over 1 s`,
  ];
  const lat = (p50: number | null, p99: number | null): string => `send latency p50 ${p50 ?? '-'} / p99 ${p99 ?? '-'} ms`;
  if (r.before) lines.push(`  before the faults (${r.before.durationMs} ms): ${r.before.acksPerSec} acks/s, ${lat(r.before.latencyP50Ms, r.before.latencyP99Ms)}`);
  for (const f of r.faults) {
    lines.push(`  fault ${f.label} (${f.durationMs} ms): ${f.acksPerSec} acks/s${r.before && r.before.acksPerSec > 0 ? ` (${Math.round((100 * f.acksPerSec) / r.before.acksPerSec)} % of before)` : ''},`
      + ` ${lat(f.latencyP50Ms, f.latencyP99Ms)}, no ack ${f.noAckMs} ms, new master ${f.newMasterMs ?? '-'} ms,`
      + ` clients followed ${f.clientsFollowMs ?? '-'} ms later, no master after heal ${f.masterMissingAfterHealMs} ms`);
  }
  for (const x of [...r.offsetConflicts, ...r.misplaced, ...r.orderViolations, ...r.phantoms].slice(0, 10)) lines.push(`  ! ${x}`);
  return lines.join('\n');
}
