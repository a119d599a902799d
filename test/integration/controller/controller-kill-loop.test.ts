/**
 * kill -9 of the master, 20 times, under a sync producer: two brokers of ours in controller mode as child processes
 * (allAckInSyncStateSet=true, short timings), our controller and name server in this process. Each round waits for
 * both replicas in the SyncStateSet and new acknowledged sends, SIGKILLs the master, waits for the controller to
 * elect the other and for a SEND_OK from it, and restarts the killed one on its store (it comes back as a slave,
 * truncates what it held beyond the consistent point, catches up and rejoins the set). At the end both replicas hold
 * the same consume queues and every acknowledged message is in them: 0 acknowledged messages lost.
 *
 * Each broker's log goes to <store dir>/a.log and b.log (level KILL_LOOP_LOG_LEVEL, warn unless told), the rounds to
 * test.log; KEEP=1 keeps the directory for a look after a failure.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { ControllerManager } from '../../../lib/controller';
import { NamesrvController } from '../../../lib/namesrv/namesrv-controller';
import { DefaultMQProducer } from '../../../lib/index';
import { SendStatus } from '../../../lib/client/send-result';
import { DefaultMessageStore } from '../../../lib/store/message-store';
import { decodeMessage } from '../../../protocol/message/message-decoder';
import { createMessage } from '../../../protocol/message/message';
import { randomName } from '../../helpers/cluster';
import { waitFor } from '../../helpers/wait-for';
import { startFastControllerAndNamesrv } from '../../helpers/controller-fixture';
import { type BrokerChild, spawnBrokerChild, stopBrokerChild } from '../../helpers/broker-child-process';

const KILLS = 20;


async function queueContents(dir: string, topic: string): Promise<Map<number, string[]>> {
  const store = new DefaultMessageStore({ storePathRootDir: dir, mappedFileSizeCommitLog: 4 * 1024 * 1024, mappedFileSizeConsumeQueue: 60000 }, { logger: pino({ level: 'silent' }) });
  await store.start();
  try {
    const out = new Map<number, string[]>();
    for (const queueId of [...(store.consumeQueueTable.get(topic)?.keys() ?? [])].sort((a, b) => a - b)) {
      const bodies: string[] = [];
      for (let offset = store.getMinOffsetInQueue(topic, queueId); ;) {
        const r = await store.getMessage('check', topic, queueId, offset, 32);
        if (r.status !== 'FOUND') break;
        for (let i = 0; i < r.messages.length; i++) {
          const rec = r.messages[i];
          const at = await store.findConsumeQueue(topic, queueId)!.getEntry(r.messageQueueOffsets[i]);
          expect(rec.length, `${dir}: ${topic}-${queueId} queue offset ${r.messageQueueOffsets[i]}, entry ${JSON.stringify(at)}, max ${store.getMaxPhyOffset()}`).to.be.above(0);
          bodies.push(decodeMessage(rec).body!.toString());
        }
        offset = r.nextBeginOffset;
      }
      out.set(queueId, bodies);
    }
    return out;
  } finally {
    await store.shutdown();
  }
}

describe('controller: kill -9 of the master under a sync producer, 20 times (child processes)', function () {
  this.timeout(600_000);
  let dir: string;
  let namesrv: NamesrvController | null = null;
  let cm: ControllerManager | null = null;
  let producer: DefaultMQProducer | null = null;
  const children = new Map<string, BrokerChild>();

  before(async () => {
    dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'controller-kill-'));
    ({ namesrv, cm } = await startFastControllerAndNamesrv(dir));
  });

  after(async () => {
    await producer?.shutdown();
    for (const c of children.values()) await kill(c, 'SIGKILL');
    children.clear();
    await cm?.shutdown();
    await namesrv?.shutdown();
    // KEEP=1 keeps the stores for a look after a failure
    if (dir && !process.env.KEEP) await fs.promises.rm(dir, { recursive: true, force: true });
  });

  const kill = (c: BrokerChild, signal: NodeJS.Signals): Promise<void> => stopBrokerChild(c.child, signal);

  const startChild = async (name: string, brokerName: string): Promise<BrokerChild> => {
    const opts = {
      brokerConfig: {
        brokerClusterName: 'CK', brokerName, namesrvAddr: namesrv!.address, brokerIP1: '127.0.0.1', brokerIP2: '127.0.0.1',
        enableControllerMode: true, controllerAddr: cm!.address, syncBrokerMetadataPeriod: 500, checkSyncStateSetPeriod: 500,
        syncControllerMetadataPeriod: 1000, controllerHeartBeatTimeoutMills: 3000, brokerHeartbeatInterval: 300, registerNameServerPeriod: 10_000,
      },
      messageStoreConfig: {
        storePathRootDir: path.join(dir, name), haSendHeartbeatInterval: 500, haMaxTimeSlaveNotCatchup: 10_000, syncFlushTimeout: 3000,
        allAckInSyncStateSet: true, mappedFileSizeCommitLog: 4 * 1024 * 1024, mappedFileSizeConsumeQueue: 60000,
      },
      replicasManager: { retryIntervalMillis: 300, initialDelayMillis: 200 },
    };
    const c = await spawnBrokerChild(opts, { logLevel: process.env.KILL_LOOP_LOG_LEVEL ?? 'warn' });
    const logPath = path.join(dir, `${name}.log`);
    fs.appendFileSync(logPath, c.output());
    c.child.stdout!.on('data', (d) => fs.appendFileSync(logPath, d));
    c.child.stderr?.on('data', (d) => fs.appendFileSync(logPath, d));
    children.set(name, c);
    return c;
  };

  it('20 kills of the master: every acknowledged message on both replicas, their consume queues equal', async () => {
    const brokerName = randomName('ckb');
    const topic = randomName('KT');
    const info = () => cm!.controller.replicasInfoManager.syncStateSetInfoTable.get(brokerName);
    const idOf = async (name: string): Promise<number> => Number((await fs.promises.readFile(path.join(dir, name, 'brokerIdentity'), 'utf8')).split('#')[2]);

    await startChild('a', brokerName);
    await waitFor(() => info()?.masterBrokerId === 1, 30_000, 'a elected');
    await startChild('b', brokerName);
    const ids = new Map<number, string>([[await idOf('a'), 'a']]);
    await waitFor(() => fs.existsSync(path.join(dir, 'b', 'brokerIdentity')), 30_000, 'b registered');
    ids.set(await idOf('b'), 'b');
    expect([...ids.keys()].sort()).to.deep.equal([1, 2]);

    producer = new DefaultMQProducer({
      producerGroup: randomName('PG'), namesrvAddr: namesrv!.address, instanceName: randomName('p'), sendMsgTimeout: 3000, pollNameServerInterval: 100, retryTimesWhenSendFailed: 2,
    });
    await producer.start();
    const acked: string[] = [];
    let sent = 0;
    let failed = 0;
    let stop = false;
    const sender = (async () => {
      while (!stop) {
        const body = `m-${sent++}`;
        try {
          const r = await producer!.send(createMessage(topic, body));
          if (r.sendStatus === SendStatus.SEND_OK) acked.push(body);
          else failed++;
        } catch {
          failed++;
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    })();

    const failovers: number[] = [];
    try {
      for (let k = 0; k < KILLS; k++) {
        const mark = acked.length;
        await waitFor(() => info()?.syncStateSet.size === 2 && info()?.masterBrokerId !== null && acked.length >= mark + 10, 60_000, `round ${k}: both replicas in the SyncStateSet and 10 more sends`);
        const masterId = info()!.masterBrokerId!;
        const masterName = ids.get(masterId)!;
        const otherId = [...ids.keys()].find((id) => id !== masterId)!;
        fs.appendFileSync(path.join(dir, 'test.log'), `${new Date().toISOString()} round ${k} kill ${masterName} (id ${masterId}) acked ${acked.length} last ${acked[acked.length - 1]}\n`);
        await kill(children.get(masterName)!, 'SIGKILL');
        const t0 = Date.now();
        const afterKill = acked.length;
        await waitFor(() => info()?.masterBrokerId === otherId, 30_000, `round ${k}: ${ids.get(otherId)} elected`);
        await waitFor(() => acked.length > afterKill, 60_000, `round ${k}: a SEND_OK from the new master`);
        failovers.push(Date.now() - t0);
        fs.appendFileSync(path.join(dir, 'test.log'), `${new Date().toISOString()} round ${k} ${ids.get(otherId)} elected, SEND_OK after ${failovers[failovers.length - 1]} ms; restart ${masterName}\n`);
        await startChild(masterName, brokerName);
      }
      await waitFor(() => info()?.syncStateSet.size === 2 && acked.length >= 10, 60_000, 'both replicas in the SyncStateSet at the end');
    } finally {
      stop = true;
      await sender;
    }
    const masterName = ids.get(info()!.masterBrokerId!)!;
    const slaveName = masterName === 'a' ? 'b' : 'a';
    // the slave holds what the master holds, then both stop cleanly
    await new Promise((r) => setTimeout(r, 2000));
    for (const name of [masterName, slaveName]) await kill(children.get(name)!, 'SIGTERM');
    children.clear();
    const onMaster = await queueContents(path.join(dir, masterName), topic);
    const onSlave = await queueContents(path.join(dir, slaveName), topic);
    const all = new Set([...onMaster.values()].flat());
    const lost = acked.filter((b) => !all.has(b));
    console.log(`      ${KILLS} kills: ${acked.length} acknowledged, ${failed} failed or unknown, ${lost.length} acknowledged lost, `
      + `${[...onMaster.values()].flat().length - all.size} duplicates; kill -> first SEND_OK p50 ${failovers.sort((x, y) => x - y)[failovers.length >> 1]} ms, max ${failovers[failovers.length - 1]} ms`);
    if (lost.length) console.log(`      store ${dir} (KEEP=1 keeps it), topic ${topic}, lost: ${lost.slice(0, 100).join(' ')}`);
    expect(lost).to.deep.equal([]);
    expect(onSlave).to.deep.equal(onMaster);
  });
});
