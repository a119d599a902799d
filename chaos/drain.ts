/**
 * The final count of a chaos run: read every queue of the topic from its min offset to its max offset (a lite pull
 * consumer with assigned queues, so no rebalance and no committed offset is involved) and compare with the keys the
 * producers recorded as acknowledged.
 */
import * as fs from 'node:fs';
import { MessageConst } from '../protocol/message/message-const';
import { ConsumeFromWhere } from '../protocol/body/heartbeat-data';
import { DefaultMQAdminExt } from '../lib/admin/default-mq-admin-ext';
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

/** Every message stored in the topic, each queue from its min offset to its max offset. */
export async function drainRecords(namesrv: string, topic: string, deadlineMs = 120_000): Promise<StoredRecord[]> {
  const admin = new DefaultMQAdminExt({ namesrvAddr: namesrv, instanceName: `chaos-drain-admin-${process.pid}` });
  await admin.start();
  let stats;
  try {
    stats = await admin.examineTopicStats(topic);
  } finally {
    await admin.shutdown();
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
  await consumer.start();
  try {
    for (const [mq, off] of stats.offsetTable) {
      if (off.maxOffset > off.minOffset) target.set(`${mq.brokerName}@${mq.queueId}`, off.maxOffset);
      if (off.minOffset > 0) await consumer.seek(mq, off.minOffset);
    }
    const reached = new Map<string, number>();
    const deadline = Date.now() + deadlineMs;
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
  } finally {
    await consumer.shutdown();
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
