/**
 * A replica killed with an unreplicated tail, restarted on its store: its start-up dispatch stops at the confirm
 * offset it kept in its checkpoint (Java's StoreCheckpoint confirmPhyOffset, read back at recovery), so the tail
 * reaches no consume queue before the HA handshake cuts it off.
 *
 * Two brokers of ours as child processes under our controller (allAckInSyncStateSet=true). The slave is stopped
 * (SIGSTOP: its HA connection stays open, so it stays in the SyncStateSet): the master appends the next sends
 * without acknowledging them. The master is killed (kill -9); the controller elects the stopped slave (its
 * connection to the controller is open), which is then killed too, before it reads what the master had sent it.
 * The old master is restarted on its store: no master is alive and it is not in the SyncStateSet, so it gets no
 * role and nothing to handshake with; pulled directly, it serves every acknowledged message and none of the tail
 * (recovery after a crash dispatched up to the confirm offset of its checkpoint only). The other comes back, is
 * elected again, and the old master follows it: it truncates the tail at the handshake and catches up; a push
 * consumer of the set consumes every acknowledged message and none of the tail.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ControllerManager } from '../../../lib/controller';
import { NamesrvController } from '../../../lib/namesrv/namesrv-controller';
import { ConsumeConcurrentlyStatus, DefaultMQAdminExt, DefaultMQProducer, DefaultMQPushConsumer } from '../../../lib/index';
import { SendStatus } from '../../../lib/client/send-result';
import { RemotingClient } from '../../../lib/transport/remoting-client';
import { ResponseCode } from '../../../protocol/code/response-code';
import { decodeMessages } from '../../../protocol/message/message-decoder';
import { freePort } from '../../../lib/cluster';
import { randomName } from '../../helpers/cluster';
import { waitFor } from '../../helpers/wait-for';
import { ackedSender, startFastControllerAndNamesrv } from '../../helpers/controller-fixture';
import { type BrokerChild, spawnBrokerChild, stopBrokerChild } from '../../helpers/broker-child-process';
import { pullRequest } from '../broker/broker-helpers';
import { newTopicConfig } from '../../../protocol/body/topic-config';

describe('controller: a restarted replica dispatches no further than the confirm offset it kept (child processes)', function () {
  this.timeout(300_000);
  let dir: string;
  let namesrv: NamesrvController | null = null;
  let cm: ControllerManager | null = null;
  let producer: DefaultMQProducer | null = null;
  let consumer: DefaultMQPushConsumer | null = null;
  let admin: DefaultMQAdminExt | null = null;
  const rc = new RemotingClient();
  const children: BrokerChild[] = [];
  /** Children still starting (a broker's start waits until it has a role). */
  const starting: Promise<unknown>[] = [];

  before(async () => {
    dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'controller-restart-confirm-'));
    ({ namesrv, cm } = await startFastControllerAndNamesrv(dir));
    admin = new DefaultMQAdminExt({ namesrvAddr: namesrv.address, instanceName: randomName('adm') });
    await admin.start();
  });

  after(async () => {
    await consumer?.shutdown();
    await producer?.shutdown();
    await admin?.shutdown();
    await rc.shutdown();
    await Promise.allSettled(starting);
    for (const c of children) {
      if (c.child.signalCode === null && c.child.exitCode === null) c.child.kill('SIGCONT');
      await stopBrokerChild(c.child, 'SIGKILL');
    }
    await cm?.shutdown();
    await namesrv?.shutdown();
    if (dir) await fs.promises.rm(dir, { recursive: true, force: true });
  });

  const startChild = async (name: string, brokerName: string, controllerHeartBeatTimeoutMills: number, listenPort = 0): Promise<BrokerChild> => {
    const spawning = spawnBrokerChild({
      brokerConfig: {
        brokerClusterName: 'CR', brokerName, namesrvAddr: namesrv!.address, brokerIP1: '127.0.0.1', brokerIP2: '127.0.0.1',
        enableControllerMode: true, controllerAddr: cm!.address, syncBrokerMetadataPeriod: 500, checkSyncStateSetPeriod: 500,
        syncControllerMetadataPeriod: 1000, controllerHeartBeatTimeoutMills, brokerHeartbeatInterval: 300, registerNameServerPeriod: 10_000,
      },
      messageStoreConfig: {
        storePathRootDir: path.join(dir, name), haSendHeartbeatInterval: 500, haMaxTimeSlaveNotCatchup: 120_000, syncFlushTimeout: 1500,
        allAckInSyncStateSet: true, mappedFileSizeCommitLog: 4 * 1024 * 1024, mappedFileSizeConsumeQueue: 60000, flushIntervalConsumeQueue: 200,
      },
      replicasManager: { retryIntervalMillis: 300, initialDelayMillis: 200 },
      remotingServerConfig: { listenPort },
    }, { logLevel: 'error', startTimeoutMillis: 120_000 });
    starting.push(spawning.catch(() => undefined));
    const c = await spawning;
    children.push(c);
    return c;
  };

  const idOf = async (name: string): Promise<number> => Number((await fs.promises.readFile(path.join(dir, name, 'brokerIdentity'), 'utf8')).split('#')[2]);
  /** The confirm offset the broker's checkpoint holds (Java's confirmPhyOffset, byte 32). */
  const checkpointConfirm = async (name: string): Promise<number> => Number((await fs.promises.readFile(path.join(dir, name, 'checkpoint'))).readBigInt64BE(32));
  const maxPhyOffset = async (addr: string): Promise<number> => Number((await admin!.fetchBrokerRuntimeStats(addr)).table.get('commitLogMaxOffset'));

  /** Every body `addr` serves for `topic` when pulled directly (queue by queue from offset 0). */
  const pullAll = async (addr: string, topic: string): Promise<string[]> => {
    const bodies: string[] = [];
    const group = randomName('PULL');
    for (let queueId = 0; queueId < 8; queueId++) {
      for (let offset = 0; ;) {
        const res = await rc.invoke(addr, pullRequest(group, topic, queueId, offset), 5000);
        if (res.code !== ResponseCode.SUCCESS || !res.body) break;
        const msgs = decodeMessages(res.body);
        if (msgs.length === 0) break;
        for (const m of msgs) bodies.push(m.body!.toString());
        offset = Number(res.extFields?.nextBeginOffset);
      }
    }
    return bodies;
  };

  it('the unreplicated tail of a killed master reaches no consumer: not dispatched at restart, truncated at the handshake', async () => {
    const brokerName = randomName('crb');
    const topic = randomName('RT');
    const info = () => cm!.controller.replicasInfoManager.syncStateSetInfoTable.get(brokerName);

    const a = await startChild('a', brokerName, 3000);
    await waitFor(() => info()?.masterBrokerId === 1, 30_000, 'a elected');
    // the topic exists before the slave's first metadata sync (3 s after it follows): b2, restarted on b's store,
    // must know it, or a send after the failover finds no route (an auto-created topic reaches a slave only with
    // its next sync, every 10 s, which a test on a loaded machine cannot count on)
    await admin!.createAndUpdateTopicConfig(a.addr, newTopicConfig(topic, { readQueueNums: 8, writeQueueNums: 8 }));
    // b: its controller heartbeat lasts, so the controller keeps it alive (and elects it) while it is stopped
    const b = await startChild('b', brokerName, 120_000);
    await waitFor(() => info()?.syncStateSet.size === 2, 30_000, 'b in the SyncStateSet');
    expect(await idOf('b')).to.equal(2);
    await waitFor(async () => (await fs.promises.readFile(path.join(dir, 'b', 'config', 'topics.json'), 'utf8').catch(() => '')).includes(topic), 30_000, 'the topic on the slave');

    producer = new DefaultMQProducer({
      producerGroup: randomName('PG'), namesrvAddr: namesrv!.address, instanceName: randomName('p'), sendMsgTimeout: 5000, pollNameServerInterval: 200, retryTimesWhenSendFailed: 0,
    });
    await producer.start();
    const { acked, send } = ackedSender(producer, topic);
    let n = 0;
    await waitFor(async () => (await send(`a-${n++}`)) === SendStatus.SEND_OK && acked.length >= 20, 60_000, '20 sends acknowledged by both replicas', 50);
    // what both replicas hold is confirmed, and the master's checkpoint says so
    const confirmed = await maxPhyOffset(a.addr);
    await waitFor(async () => (await checkpointConfirm('a')) === confirmed, 30_000, 'the confirm offset in the master\'s checkpoint');

    // the slave stops: the next sends are appended on the master, not acknowledged, not confirmed
    b.child.kill('SIGSTOP');
    const cut = await Promise.all([0, 1, 2, 3, 4].map((i) => send(`cut-${i}`)));
    expect(cut).to.deep.equal(Array(5).fill(SendStatus.FLUSH_SLAVE_TIMEOUT));
    const tailEnd = await maxPhyOffset(a.addr);
    expect(tailEnd).to.be.above(confirmed);
    expect(await checkpointConfirm('a')).to.equal(confirmed);

    // kill -9 of the master: the controller elects the stopped slave, which dies before it reads the tail
    await stopBrokerChild(a.child, 'SIGKILL');
    await waitFor(() => info()?.masterBrokerId === 2, 30_000, 'b elected');
    await stopBrokerChild(b.child, 'SIGKILL');
    await waitFor(() => info()?.masterBrokerId === null, 30_000, 'no master');

    // the old master restarts on its store (it crashed: recovery after an abnormal exit) with no master to follow
    // (its start waits for a role: it is pulled from on its port meanwhile): its tail is in its commit log but in
    // none of its consume queues
    const a2Port = await freePort();
    const a2Addr = `127.0.0.1:${a2Port}`;
    const a2Started = startChild('a', brokerName, 3000, a2Port);
    // (a child that exits before READY fails the test at once, with what it printed)
    const a2Exited = a2Started.then(() => new Promise<never>(() => undefined));
    await Promise.race([waitFor(async () => (await maxPhyOffset(a2Addr).catch(() => -1)) === tailEnd, 60_000, 'the old master serving on its port'), a2Exited]);
    const served = await pullAll(a2Addr, topic);
    expect(served.filter((body) => body.startsWith('cut-'))).to.deep.equal([]);
    expect([...served].sort()).to.deep.equal([...acked].sort());

    expect(info()?.masterBrokerId).to.equal(null);

    // the other comes back and is elected: the old master truncates its tail at the handshake and replicates
    const b2 = await startChild('b', brokerName, 3000);
    const a2 = await a2Started;
    await waitFor(() => info()?.masterBrokerId === 2, 30_000, 'b elected again');
    await waitFor(async () => (await send(`b-${n++}`)) === SendStatus.SEND_OK, 60_000, 'a send acknowledged by the new master', 100);
    await waitFor(async () => (await maxPhyOffset(a2.addr)) === (await maxPhyOffset(b2.addr)), 60_000, 'the old master truncated and caught up');
    const log = (await fs.promises.readFile(path.join(dir, 'a', 'commitlog', '00000000000000000000'))).subarray(0, await maxPhyOffset(a2.addr)).toString('latin1');
    expect(log).to.not.include('cut-');
    const more = acked.length;
    await waitFor(async () => (await send(`b-${n++}`)) === SendStatus.SEND_OK && acked.length >= more + 5, 60_000, '5 more sends acknowledged', 50);

    const seen = new Set<string>();
    consumer = new DefaultMQPushConsumer({ consumerGroup: randomName('CG'), namesrvAddr: namesrv!.address, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: randomName('c') });
    consumer.subscribe(topic, '*');
    consumer.registerMessageListener((msgs) => {
      for (const m of msgs) seen.add(m.body.toString());
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    });
    await consumer.start();
    await waitFor(() => acked.every((body) => seen.has(body)), 60_000, 'every acknowledged message consumed');
    expect([...seen].filter((body) => body.startsWith('cut-'))).to.deep.equal([]);
    // and the old master, pulled directly again, serves no cut message either
    expect((await pullAll(a2.addr, topic)).filter((body) => body.startsWith('cut-'))).to.deep.equal([]);
  });
});
