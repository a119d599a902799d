/**
 * The HA port of a broker in controller mode: `haListenPort`, else the remoting port + 1. That neighbour is only a
 * convention, and on Linux often a live connection's local port (odd ports go to outgoing connections, and a port
 * that bind(0) handed out is even): when it is taken, the broker serves HA on a free port and registers that one
 * with the name server, so a slave still finds its master and joins the SyncStateSet. A configured haListenPort
 * that is taken fails the start, as Java's does.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { ControllerManager } from '../../../lib/controller';
import { freePort } from '../../../lib/cluster';
import type { NamesrvController } from '../../../lib/namesrv/namesrv-controller';
import { BrokerController } from '../../../lib/broker/broker-controller';
import { startHAListener } from '../../../lib/broker/slave/broker-replication';
import { DefaultMQProducer } from '../../../lib/index';
import { SendStatus } from '../../../lib/client/send-result';
import { componentLogger } from '../../../lib/logger';
import { randomName } from '../../helpers/cluster';
import { waitFor } from '../../helpers/wait-for';
import { ackedSender, startFastControllerAndNamesrv } from '../../helpers/controller-fixture';

/** A listener on 127.0.0.1:`port` (the port taken). */
async function hold(port: number): Promise<net.Server> {
  const s = net.createServer();
  await new Promise<void>((resolve, reject) => {
    s.once('error', reject);
    s.listen(port, '127.0.0.1', () => resolve());
  });
  return s;
}

describe('controller mode: the HA port when the remoting port + 1 is taken', function () {
  this.timeout(120_000);
  let dir: string;
  let namesrv: NamesrvController | null = null;
  let cm: ControllerManager | null = null;
  let producer: DefaultMQProducer | null = null;
  const brokers: BrokerController[] = [];
  const held: net.Server[] = [];

  before(async () => {
    dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'controller-ha-port-'));
    ({ namesrv, cm } = await startFastControllerAndNamesrv(dir));
  });

  after(async () => {
    await producer?.shutdown();
    for (const b of brokers.splice(0)) await b.shutdown();
    for (const s of held.splice(0)) await new Promise((r) => s.close(r));
    await cm?.shutdown();
    await namesrv?.shutdown();
    if (dir) await fs.promises.rm(dir, { recursive: true, force: true });
  });

  const newBroker = (name: string, brokerName: string, listenPort: number, haListenPort = 0): BrokerController => {
    const b = new BrokerController({
      brokerConfig: {
        brokerClusterName: 'HP', brokerName, namesrvAddr: namesrv!.address, brokerIP1: '127.0.0.1', brokerIP2: '127.0.0.1',
        enableControllerMode: true, controllerAddr: cm!.address, syncBrokerMetadataPeriod: 500, checkSyncStateSetPeriod: 500,
        syncControllerMetadataPeriod: 1000, controllerHeartBeatTimeoutMills: 4000, brokerHeartbeatInterval: 300,
      },
      messageStoreConfig: {
        storePathRootDir: path.join(dir, name), haSendHeartbeatInterval: 500, haMaxTimeSlaveNotCatchup: 60_000, allAckInSyncStateSet: true,
        haListenPort, mappedFileSizeCommitLog: 4 * 1024 * 1024, mappedFileSizeConsumeQueue: 60000,
      },
      remotingServerConfig: { listenPort, bindAddress: '127.0.0.1' },
      replicasManager: { retryIntervalMillis: 300, initialDelayMillis: 200 },
    });
    brokers.push(b);
    return b;
  };

  it('the master serves HA on a free port, registers it, and the slave replicates through it', async () => {
    const brokerName = randomName('hpb');
    const info = () => cm!.controller.replicasInfoManager.syncStateSetInfoTable.get(brokerName);
    const port = await freePort();
    held.push(await hold(port + 1));

    const a = newBroker('a', brokerName, port);
    await a.start();
    await waitFor(() => info()?.masterBrokerId === 1, 30_000, 'a elected');
    const haPort = a.replicasManager!.haListenPort;
    expect(a.listenPort).to.equal(port);
    expect(haPort).to.be.above(0).and.not.equal(port + 1);
    // the name server hands the slave the port the master really serves
    await waitFor(() => namesrv!.routeInfoManager.brokerLiveTable.get(a.brokerAddr)?.haServerAddr === `127.0.0.1:${haPort}`, 30_000, 'the HA address registered');

    const b = newBroker('b', brokerName, 0);
    await b.start();
    await waitFor(() => info()?.syncStateSet.size === 2, 30_000, 'b in the SyncStateSet (replicating through the free port)');

    producer = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: namesrv!.address, instanceName: randomName('p'), sendMsgTimeout: 5000 });
    await producer.start();
    const { acked, send } = ackedSender(producer, randomName('HT'));
    let n = 0;
    await waitFor(async () => (await send(`m-${n++}`)) === SendStatus.SEND_OK && acked.length >= 5, 30_000, '5 sends acknowledged by both replicas', 50);
    await waitFor(() => b.messageStore.getMaxPhyOffset() === a.messageStore.getMaxPhyOffset(), 10_000, 'the slave caught up');
  });

  it('startHAListener: a configured haListenPort that is taken fails, as does any error but EADDRINUSE; listenPort + 1 taken falls back to port 0', async () => {
    const logger = componentLogger('test');
    const tried: number[] = [];
    const taken = (busy: number) => async (p: number) => {
      tried.push(p);
      if (p === busy) throw Object.assign(new Error(`listen EADDRINUSE ${p}`), { code: 'EADDRINUSE' });
    };
    await startHAListener(taken(5001), 0, 5000, 5000, logger);
    expect(tried.splice(0)).to.deep.equal([5001, 0]);
    let err: unknown = null;
    await startHAListener(taken(6000), 6000, 5000, 5000, logger).catch((e: unknown) => { err = e; });
    expect((err as NodeJS.ErrnoException | null)?.code).to.equal('EADDRINUSE');
    expect(tried.splice(0)).to.deep.equal([6000]);
    err = null;
    await startHAListener(async (p) => { tried.push(p); throw Object.assign(new Error('EACCES'), { code: 'EACCES' }); }, 0, 5000, 5000, logger).catch((e: unknown) => { err = e; });
    expect((err as NodeJS.ErrnoException | null)?.code).to.equal('EACCES');
    expect(tried.splice(0)).to.deep.equal([5001]);
    // a remoting port of 0 (any free port): HA takes any free port too, once
    await startHAListener(taken(-1), 0, 0, 40000, logger);
    expect(tried.splice(0)).to.deep.equal([0]);
  });
});
