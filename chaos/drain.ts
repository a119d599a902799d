/**
 * The final count of a chaos run: read every queue of the topic from its min offset to its max offset (a lite pull
 * consumer with assigned queues, so no rebalance and no committed offset is involved) and compare with the keys the
 * producers recorded as acknowledged.
 */
import * as fs from 'node:fs';
import { MessageConst } from '../protocol/message/message-const';
import { ConsumeFromWhere } from '../protocol/body/heartbeat-data';
import { DefaultMQAdminExt } from '../lib/admin/default-mq-admin-ext';
import { MASTER_ID } from '../protocol/body/topic-route-data';
import type { TopicStatsTable } from '../protocol/body/topic-stats-table';
import { DefaultLitePullConsumer } from '../lib/consumer/lite-pull-consumer';

/** One stored message as the drain read it. */
export interface StoredRecord {
  key: string;
  brokerName: string;
  queueId: number;
  queueOffset: number;
}

/** How many times each key is stored in the topic. */
export async function drainTopic(namesrv: string, topic: string, deadlineMs = 120_000): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const r of await drainRecords(namesrv, topic, deadlineMs)) counts.set(r.key, (counts.get(r.key) ?? 0) + 1);
  return counts;
}

/** The masters (brokerId 0) of the topic's broker names, as `name=addr` sorted, or null when one has none. */
async function masters(admin: DefaultMQAdminExt, topic: string): Promise<string | null> {
  const route = await admin.examineTopicRouteInfo(topic);
  const out: string[] = [];
  for (const bd of route.brokerDatas) {
    const addr = bd.brokerAddrs.get(MASTER_ID);
    if (addr === undefined) return null;
    out.push(`${bd.brokerName}=${addr}`);
  }
  return out.sort().join(',');
}

/**
 * The topic's queue offsets; `fromMaster`: from the masters only, the same before and after the call (when a broker
 * name has no master, examineTopicStats asks a slave, which may lag behind: a DLedger follower still catching up
 * after a healed partition would end the drain short of what the master holds).
 */
async function topicStats(admin: DefaultMQAdminExt, topic: string, fromMaster: boolean, deadline: number): Promise<TopicStatsTable> {
  if (!fromMaster) return admin.examineTopicStats(topic);
  for (;;) {
    const before = await masters(admin, topic);
    if (before !== null) {
      const stats = await admin.examineTopicStats(topic);
      if ((await masters(admin, topic)) === before) return stats;
    }
    if (Date.now() > deadline) throw new Error(`drain: no stable master for every broker of ${topic}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * Every message stored in the topic, each queue from its min offset to its max offset. `fromMaster`: the offsets are
 * the masters' (waiting for one per broker name), and after the drain the masters' max offsets are asked again: a
 * queue read short of them fails the drain (the caller drains again).
 */
export async function drainRecords(namesrv: string, topic: string, deadlineMs = 120_000, opts: { fromMaster?: boolean; note?: (line: string) => void } = {}): Promise<StoredRecord[]> {
  const fromMaster = opts.fromMaster ?? false;
  const admin = new DefaultMQAdminExt({ namesrvAddr: namesrv, instanceName: `chaos-drain-admin-${process.pid}` });
  await admin.start();
  let stats;
  try {
    stats = await topicStats(admin, topic, fromMaster, Date.now() + deadlineMs);
  } catch (err) {
    await admin.shutdown();
    throw err;
  }
  const target = new Map<string, number>();
  const out: StoredRecord[] = [];
  const seenAt = new Set<string>();
  const consumer = new DefaultLitePullConsumer({
    consumerGroup: `chaos_drain_${process.pid}_${Date.now()}`, namesrvAddr: namesrv, instanceName: `chaos-drain-${process.pid}`,
    autoCommit: false,
    // With the master down (the HA scenarios), seek cannot ask it for the queue's range (Java's client neither): a new
    // group then starts at the first offset, pulling from the slave.
    consumeFromWhere: ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET,
  });
  const mqs = stats.offsetTable.map(([mq]) => mq);
  consumer.assign(mqs);
  try {
    await consumer.start();
    for (const [mq, off] of stats.offsetTable) {
      if (off.maxOffset > off.minOffset) target.set(`${mq.brokerName}@${mq.queueId}`, off.maxOffset);
      if (off.minOffset > 0) await consumer.seek(mq, off.minOffset);
    }
    const reached = new Map<string, number>();
    const deadline = Date.now() + deadlineMs;
    for (;;) {
      while ([...target].some(([k, max]) => (reached.get(k) ?? 0) < max)) {
        if (Date.now() > deadline) throw new Error(`drain incomplete: ${JSON.stringify([...target].map(([k, max]) => [k, reached.get(k) ?? 0, max]))}`);
        for (const m of await consumer.poll(1000)) {
          const key = m.properties[MessageConst.PROPERTY_KEYS] ?? m.msgId;
          const brokerName = m.brokerName ?? mqs.find((q) => q.queueId === m.queueId)!.brokerName;
          const qk = `${brokerName}@${m.queueId}`;
          // A queue offset read twice (a pull repeated after a timeout) is one stored message.
          if (!seenAt.has(`${qk}@${m.queueOffset}`)) {
            seenAt.add(`${qk}@${m.queueOffset}`);
            out.push({ key, brokerName, queueId: m.queueId, queueOffset: m.queueOffset });
          }
          reached.set(qk, Math.max(reached.get(qk) ?? 0, m.queueOffset + 1));
        }
      }
      if (!fromMaster) break;
      // The masters again: a queue read short of what a master holds now (its offsets were a lagging slave's, or a
      // new master took the role meanwhile) is read on to the master's end.
      const after = await topicStats(admin, topic, true, deadline);
      let more = false;
      for (const [mq, off] of after.offsetTable) {
        const k = `${mq.brokerName}@${mq.queueId}`;
        if (off.maxOffset > off.minOffset && off.maxOffset > (reached.get(k) ?? 0)) {
          opts.note?.(`drain: ${k} read to ${reached.get(k) ?? 0}, its master holds ${off.maxOffset}: reading on`);
          target.set(k, off.maxOffset);
          more = true;
        }
      }
      if (!more) break;
    }
  } finally {
    await consumer.shutdown();
    await admin.shutdown();
  }
  return out;
}

/** The lines of the given files (a key first on each line, then tab-separated fields), counted by key. */
export function readKeys(files: string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const f of files) {
    if (!fs.existsSync(f)) continue;
    for (const line of fs.readFileSync(f, 'utf8').split('\n')) {
      if (!line) continue;
      const key = line.split('\t', 1)[0];
      out.set(key, (out.get(key) ?? 0) + 1);
    }
  }
  return out;
}

export interface Tally {
  acknowledged: number;
  lost: number;
  duplicated: number;
  lostKeys: string[];
}

/** Acknowledged keys missing from `seen` are lost; keys seen more than once count as duplicated. */
export function tally(acked: Map<string, number>, seen: Map<string, number>): Tally {
  const lostKeys: string[] = [];
  for (const k of acked.keys()) if (!seen.has(k)) lostKeys.push(k);
  let duplicated = 0;
  for (const n of seen.values()) if (n > 1) duplicated += n - 1;
  return { acknowledged: acked.size, lost: lostKeys.length, duplicated, lostKeys: lostKeys.slice(0, 20) };
}
