import { expect } from 'chai';
import path from 'node:path';
import { DefaultMessageStore } from '../../../../lib/store/message-store';
import { EpochFileCache } from '../../../../lib/store/autoswitch/epoch-file-cache';
import { AutoSwitchHAService } from '../../../../lib/ha/autoswitch/autoswitch-ha-service';
import { AutoSwitchHAClient } from '../../../../lib/ha/autoswitch/autoswitch-ha-client';
import { HAConnectionState } from '../../../../protocol/ha/autoswitch-ha-codec';
import { PutMessageStatus } from '../../../../lib/store/store-status';
import { SMALL, makeMessage, tempDir } from '../../store/store-test-util';
import { commitLogBytes, rmDir, silent } from '../ha-test-util';
import { waitFor } from '../../../helpers/wait-for';

interface Node {
  dir: string;
  store: DefaultMessageStore;
  epochs: EpochFileCache;
}

async function node(): Promise<Node> {
  const dir = await tempDir('rmq-autoswitch-');
  const store = new DefaultMessageStore({ ...SMALL, storePathRootDir: dir, haSendHeartbeatInterval: 200 }, { logger: silent });
  await store.start();
  const epochs = new EpochFileCache(path.join(dir, 'epochFileCheckpoint'));
  await epochs.initCacheFromFile();
  return { dir, store, epochs };
}

async function put(n: Node, count: number, tag: string): Promise<void> {
  for (let i = 0; i < count; i++) {
    const r = await n.store.putMessage(makeMessage('AsT', i % 2, Buffer.from(`${tag}-${i}-${'x'.repeat(200)}`)));
    expect(r.putMessageStatus).to.equal(PutMessageStatus.PUT_OK);
  }
}

describe('ha/autoswitch: AutoSwitchHAService and AutoSwitchHAClient over a socket', function () {
  this.timeout(30_000);
  const nodes: Node[] = [];
  const services: AutoSwitchHAService[] = [];
  const clients: AutoSwitchHAClient[] = [];

  afterEach(async () => {
    for (const c of clients.splice(0)) await c.shutdown();
    for (const s of services.splice(0)) await s.shutdown();
    for (const n of nodes.splice(0)) {
      await n.store.shutdown();
      await rmDir(n.dir);
    }
  });

  const serve = async (master: Node, syncStateSet: Set<number>, caughtUp: number[]): Promise<AutoSwitchHAService> => {
    const s = new AutoSwitchHAService({
      store: master.store, epochCache: master.epochs, logger: silent, bindAddress: '127.0.0.1',
      syncStateSet: () => syncStateSet, localBrokerId: () => 1, onSlaveCaughtUp: (id) => caughtUp.push(id),
      confirmOffset: () => master.store.getMaxPhyOffset(),
    });
    await s.start(0);
    services.push(s);
    return s;
  };

  const follow = (slave: Node, service: AutoSwitchHAService, brokerId = 2): AutoSwitchHAClient => {
    const c = new AutoSwitchHAClient({ store: slave.store, epochCache: slave.epochs, brokerId, syncFromLastFile: false, asyncLearner: false, logger: silent });
    c.start();
    c.updateHaMasterAddress(`127.0.0.1:${service.listenPort}`);
    clients.push(c);
    return c;
  };

  it('an empty slave copies the master\'s log across two epochs byte for byte, records both epochs, and is reported caught up', async () => {
    const master = await node();
    const slave = await node();
    nodes.push(master, slave);
    await master.epochs.appendEntry({ epoch: 1, startOffset: 0 });
    await put(master, 10, 'e1');
    await master.epochs.appendEntry({ epoch: 3, startOffset: master.store.getMaxPhyOffset() });
    const epoch3Start = master.store.getMaxPhyOffset();
    await put(master, 10, 'e3');
    const caughtUp: number[] = [];
    const sss = new Set([1]);
    const service = await serve(master, sss, caughtUp);
    const client = follow(slave, service);
    await waitFor(() => slave.store.getMaxPhyOffset() === master.store.getMaxPhyOffset(), 10_000, 'the slave to catch up');
    expect(await commitLogBytes(slave.store, 0)).to.deep.equal(await commitLogBytes(master.store, 0));
    expect(slave.epochs.getAllEntries().map((e) => [e.epoch, e.startOffset])).to.deep.equal([[1, 0], [3, epoch3Start]]);
    await waitFor(() => caughtUp.includes(2), 10_000, 'the slave reported caught up');
    const conn = [...service.connections][0];
    expect(conn.slaveId).to.equal(2);
    expect(conn.state).to.equal(HAConnectionState.TRANSFER);
    expect(client.state).to.equal(HAConnectionState.TRANSFER);
    // in the set now: sends wait for it, and it acknowledges what follows
    sss.add(2);
    await put(master, 3, 'later');
    expect(await service.waitAcks(master.store.getMaxPhyOffset(), 2, 10_000)).to.equal(true);
    expect(service.computeConfirmOffset(-1)).to.equal(master.store.getMaxPhyOffset());
    expect(client.confirmOffset).to.be.at.most(slave.store.getMaxPhyOffset());
    expect(client.refusedHandshakes).to.equal(0);
  });

  it('a slave with no epoch in common with the master is refused and keeps its log', async () => {
    const master = await node();
    const slave = await node();
    nodes.push(master, slave);
    await master.epochs.appendEntry({ epoch: 1, startOffset: 0 });
    await put(master, 5, 'm');
    // the slave was master of epoch 2 on its own: no epoch in common
    await slave.epochs.appendEntry({ epoch: 2, startOffset: 0 });
    await put(slave, 3, 's');
    const before = slave.store.getMaxPhyOffset();
    const service = await serve(master, new Set([1]), []);
    const client = follow(slave, service);
    await waitFor(() => client.refusedHandshakes >= 1, 10_000, 'the handshake refused');
    expect(slave.store.getMaxPhyOffset()).to.equal(before);
    expect(slave.epochs.lastEpoch()).to.equal(2);
  });

  it('an old master whose log went beyond the consistent point truncates to it (commit log, consume queues, epochs), then replicates byte for byte', async () => {
    const oldMaster = await node();
    const newMaster = await node();
    nodes.push(oldMaster, newMaster);
    // epoch 1: both hold the first 10 messages; the old master wrote 7 more the other never got
    await oldMaster.epochs.appendEntry({ epoch: 1, startOffset: 0 });
    await put(oldMaster, 10, 'e1');
    const point = oldMaster.store.getMaxPhyOffset();
    const shared = (await oldMaster.store.getCommitLogData(0))!.data;
    await put(oldMaster, 7, 'lost');
    await newMaster.epochs.appendEntry({ epoch: 1, startOffset: 0 });
    newMaster.store.config.brokerRole = 'SLAVE';
    expect(await newMaster.store.appendToCommitLog(0, shared)).to.equal(true);
    newMaster.store.config.brokerRole = 'ASYNC_MASTER';
    // epoch 2: the new master's term from the consistent point on
    await newMaster.epochs.appendEntry({ epoch: 2, startOffset: point });
    await put(newMaster, 5, 'e2');
    expect(oldMaster.store.getMaxPhyOffset()).to.be.above(point);
    oldMaster.store.config.brokerRole = 'SLAVE';
    const service = await serve(newMaster, new Set([1]), []);
    const client = follow(oldMaster, service);
    await waitFor(() => client.truncations === 1 && oldMaster.store.getMaxPhyOffset() === newMaster.store.getMaxPhyOffset(), 10_000, 'truncated and caught up');
    expect(client.lastTruncateOffset).to.equal(point);
    expect(client.refusedHandshakes).to.equal(0);
    expect(await commitLogBytes(oldMaster.store, 0)).to.deep.equal(await commitLogBytes(newMaster.store, 0));
    expect(oldMaster.epochs.getAllEntries().map((e) => [e.epoch, e.startOffset])).to.deep.equal([[1, 0], [2, point]]);
    await oldMaster.store.waitReput();
    for (const q of [0, 1]) expect(oldMaster.store.getMaxOffsetInQueue('AsT', q)).to.equal(newMaster.store.getMaxOffsetInQueue('AsT', q));
  });

  it('a replica of the SyncStateSet that has not caught up for haMaxTimeSlaveNotCatchup leaves it, and so does one never connected (as Java 5.3.3)', async () => {
    const master = await node();
    nodes.push(master);
    master.store.config.haMaxTimeSlaveNotCatchup = 50;
    const service = await serve(master, new Set([1, 2, 3, 4]), []);
    service.connectionCaughtUpTimeTable.set(2, Date.now() - 1000);
    service.connectionCaughtUpTimeTable.set(3, Date.now());
    expect([...service.maybeShrinkSyncStateSet()].sort()).to.deep.equal([1, 3]);
  });
});
