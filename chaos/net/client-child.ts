/**
 * The control client of a network chaos run, forked inside the client host (the orchestrating process sits in the root
 * namespace, which has no route to the hosts): `node dist/chaos/net/client-child.js <namesrv>`. Answers requests
 * (`Worker.request`):
 * - `createTopic { topic, queues, order, brokerAddrs, skipSlaves }`: the topic on each broker address given (slaves and
 *   DLedger followers too: their topic tables are not copied at once); `skipSlaves`: a broker refusing it as a slave
 *   (Java 4.9.8) is passed over.
 * - `route { topic }`: `[brokerName, { brokerId: addr }][]` from the name server.
 * - `watchRoute { topic, intervalMs }`: from then on polls the route and keeps a timeline of each broker name's
 *   master address (brokerId 0, or null when the name server has none); `timeline` returns it.
 * - `drain { topic, file }`: every stored message (chaos/drain.ts drainRecords), to the masters' ends; with `file`,
 *   written there a line each (see readStored in chaos/net/checker.ts) and answered with their count.
 */
import * as fs from 'node:fs';
import { DefaultMQAdminExt } from '../../lib/admin/default-mq-admin-ext';
import { newTopicConfig } from '../../protocol/body/topic-config';
import { drainRecords } from '../drain';

const [namesrv] = process.argv.slice(2);

export interface MasterChange {
  t: number;
  brokerName: string;
  master: string | null;
}

async function main(): Promise<void> {
  const admin = new DefaultMQAdminExt({ namesrvAddr: namesrv, instanceName: `chaos-net-ctl-${process.pid}` });
  await admin.start();
  const timeline: MasterChange[] = [];
  const current = new Map<string, string | null>();
  let watch: NodeJS.Timeout | null = null;
  let polling = false;

  const route = async (topic: string): Promise<Array<[string, Record<string, string>]>> => {
    const r = await admin.examineTopicRouteInfo(topic);
    return r.brokerDatas.map((bd) => [bd.brokerName, Object.fromEntries([...bd.brokerAddrs].map(([id, a]) => [String(id), a]))]);
  };

  const ops: Record<string, (args: Record<string, unknown>) => Promise<unknown>> = {
    createTopic: async (a) => {
      const cfg = newTopicConfig(a.topic as string, { readQueueNums: a.queues as number, writeQueueNums: a.queues as number, order: Boolean(a.order) });
      let created = 0;
      for (const addr of a.brokerAddrs as string[]) {
        try {
          await admin.createAndUpdateTopicConfig(addr, cfg);
          created++;
        } catch (err) {
          // Java 4.9.8 refuses topic changes on a slave (a DLedger follower): it copies them from its master instead.
          if (!a.skipSlaves || !/from slave broker/.test((err as Error).message)) throw err;
        }
      }
      if (created === 0) throw new Error(`no broker took the topic ${a.topic as string}`);
      return true;
    },
    route: async (a) => route(a.topic as string),
    watchRoute: async (a) => {
      if (watch) return true;
      watch = setInterval(() => {
        if (polling) return;
        polling = true;
        route(a.topic as string).then((r) => {
          for (const [name, addrs] of r) {
            const m = addrs['0'] ?? null;
            if (current.get(name) !== m) {
              current.set(name, m);
              timeline.push({ t: Date.now(), brokerName: name, master: m });
            }
          }
        }, () => undefined).finally(() => { polling = false; });
      }, (a.intervalMs as number | undefined) ?? 200);
      return true;
    },
    timeline: async () => timeline,
    drain: async (a) => {
      const records = await drainRecords(namesrv, a.topic as string, (a.deadlineMs as number | undefined) ?? 120_000, { fromMaster: true, note: (l) => process.stderr.write(`${l}\n`) });
      if (typeof a.file !== 'string') return records;
      // A long run's millions of records go through a file (key, broker, queue, offset a line), not one IPC message.
      const fd = fs.openSync(a.file, 'w');
      try {
        for (let i = 0; i < records.length; i += 65536) {
          fs.writeSync(fd, records.slice(i, i + 65536).map((r) => `${r.key}\t${r.brokerName}\t${r.queueId}\t${r.queueOffset}\n`).join(''));
        }
      } finally {
        fs.closeSync(fd);
      }
      return records.length;
    },
  };

  process.on('message', (m: { type?: string; id?: number; op?: string; args?: Record<string, unknown> }) => {
    if (m?.type === 'stop') {
      if (watch) clearInterval(watch);
      void admin.shutdown().then(() => {
        process.send?.({ type: 'done' });
        process.disconnect?.();
      });
      return;
    }
    if (m?.type !== 'req') return;
    const op = ops[m.op ?? ''];
    if (!op) {
      process.send?.({ type: 'res', id: m.id, error: `unknown op ${m.op}` });
      return;
    }
    op(m.args ?? {}).then(
      (result) => process.send?.({ type: 'res', id: m.id, result }),
      (err: unknown) => process.send?.({ type: 'res', id: m.id, error: String((err as Error).message ?? err) }),
    );
  });
  process.send?.({ type: 'progress', ready: 1 });
}

main().catch((err: unknown) => {
  process.stderr.write(`client-child: ${(err as Error).stack}\n`);
  process.exit(1);
});
