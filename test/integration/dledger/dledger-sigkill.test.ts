/**
 * A DLedger peer in a child process: leadership moves to it as preferredLeaderId, it is SIGKILLed, the two
 * in-process peers elect a new leader within a few seconds, and the restarted peer rejoins as a follower and
 * catches up (its store recovered after the kill).
 */
import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { NamesrvController } from '../../../lib/namesrv/namesrv-controller';
import { BrokerController } from '../../../lib/broker/broker-controller';
import { DefaultMQProducer } from '../../../lib/index';
import { randomName, sendUntilAccepted, waitFor } from '../../helpers/cluster';
import { freePort } from '../../helpers/javaref';
import { spawnBrokerChild, stopBrokerChild } from '../../helpers/broker-child-process';

const FAST = { heartBeatTimeIntervalMs: 100, maxHeartBeatLeak: 3, minVoteIntervalMs: 50, maxVoteIntervalMs: 200, maxWaitAckTimeMs: 2000 };

describe('dledger: SIGKILL of a child-process peer', function () {
  this.timeout(180_000);
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  it('moves leadership to the preferred peer, survives its SIGKILL, and takes it back as a follower', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'dlkill-'));
    cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
    const ns = new NamesrvController({ listenPort: 0, bindAddress: '127.0.0.1', kvConfigPath: path.join(root, 'kv.json'), configStorePath: path.join(root, 'ns.properties') });
    await ns.start();
    cleanups.push(() => ns.shutdown());
    const ports = [await freePort(), await freePort(), await freePort()];
    const dLegerPeers = ports.map((p, i) => `n${i}-127.0.0.1:${p}`).join(';');
    const optsFor = (i: number) => ({
      brokerConfig: { brokerName: 'kill-a', brokerClusterName: 'DefaultCluster', brokerIP1: '127.0.0.1', namesrvAddr: ns.address, storePathRootDir: path.join(root, `n${i}`) },
      messageStoreConfig: {
        storePathRootDir: path.join(root, `n${i}`), mappedFileSizeCommitLog: 16 * 1024 * 1024, enableDLegerCommitLog: true,
        dLegerGroup: 'kill-a', dLegerPeers, dLegerSelfId: `n${i}`, preferredLeaderId: 'n2',
      },
      dledger: FAST,
    });
    const local = [0, 1].map((i) => new BrokerController({ ...optsFor(i), remotingServerConfig: { bindAddress: '127.0.0.1', listenPort: 0 } }));
    for (const b of local) {
      await b.start();
      cleanups.push(() => b.shutdown());
    }
    let child: ChildProcess | null = null;
    const startChild = async (): Promise<void> => {
      const c = (await spawnBrokerChild(optsFor(2))).child;
      child = c;
      cleanups.push(() => stopBrokerChild(c, 'SIGKILL'));
    };
    await startChild();
    const leaderOf = (b: BrokerController) => b.dledgerCommitLog!.server.leaderId;
    // preferredLeaderId=n2: leadership moves to the child.
    await waitFor(() => local.every((b) => leaderOf(b) === 'n2'), 60_000, 'n2 (the child) leading');

    const topic = randomName('KILL');
    const p = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: ns.address, instanceName: randomName('p'), pollNameServerInterval: 100, sendMsgTimeout: 3000 });
    await p.start();
    cleanups.push(() => p.shutdown());
    const sendOk = (body: string): Promise<unknown> => sendUntilAccepted(p, topic, body, 30_000);
    for (let i = 0; i < 10; i++) await sendOk(`a${i}`);
    // The leader (the child) committed all ten before answering; a follower learns the commit index with the
    // leader's next push or heartbeat.
    await waitFor(() => local[0].dledgerCommitLog!.server.committedIndex >= 9, 5_000, 'the follower learning the commit of all ten');
    const committed = local[0].dledgerCommitLog!.server.committedIndex;
    expect(committed).to.be.at.least(9);

    const killedAt = Date.now();
    child!.kill('SIGKILL');
    await waitFor(() => local.some((b) => b.dledgerCommitLog!.server.isLeader), 10_000, 'a new leader among the in-process peers');
    await sendOk('b0');
    console.log(`      SIGKILL → first ok send: ${Date.now() - killedAt} ms`);
    // The restarted child rejoins; with preferredLeaderId=n2 it gets leadership back once caught up.
    await startChild();
    await waitFor(() => local.every((b) => leaderOf(b) === 'n2'), 60_000, 'n2 leading again');
    await sendOk('c0');
    const s = local[0].dledgerCommitLog!.server;
    await waitFor(() => s.appliedIndex === s.committedIndex && s.committedIndex >= committed + 2, 10_000, 'applied');
    await waitFor(() => local[0].messageStore.getMaxPhyOffset() === local[1].messageStore.getMaxPhyOffset(), 10_000, 'the same commit log on both in-process peers');
  });
});
