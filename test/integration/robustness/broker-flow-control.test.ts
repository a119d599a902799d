/**
 * Broker flow control under a flood of sends: Java's answers (SYSTEM_BUSY with [OVERLOAD], [REJECTREQUEST],
 * [PCBUSY_CLEAN_QUEUE], [TIMEOUT_CLEAN_QUEUE]), a bounded number of queued requests, and a health probe on another
 * connection that keeps answering. The store is held still by gating its flush (SYNC_FLUSH) or by stubbing its
 * busy signals, so every count is deterministic.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { BrokerController } from '../../../lib/broker/broker-controller';
import { TEST_STORE_CONFIG } from '../../../lib/cluster';
import { RemotingClient } from '../../../lib/transport/remoting-client';
import { OVERLOAD_REMARK, REJECTREQUEST_REMARK } from '../../../lib/transport/processor';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { randomName, waitFor } from '../../helpers/cluster';
import { sendHeader, sendRequest } from '../broker/broker-helpers';

describe('broker flow control: a flood of sends is refused early, memory stays bounded', function () {
  this.timeout(60000);
  let root: string;
  let broker: BrokerController;
  let addr: string;
  const clients: RemotingClient[] = [];
  const CAPACITY = 64;

  before(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'rocketmq-ts-flow-'));
    broker = new BrokerController({
      brokerConfig: {
        brokerName: 'flow', brokerIP1: '127.0.0.1', namesrvAddr: '', storePathRootDir: root,
        sendThreadPoolQueueCapacity: CAPACITY,
      },
      messageStoreConfig: { ...TEST_STORE_CONFIG, storePathRootDir: root, flushDiskType: 'SYNC_FLUSH', syncFlushTimeout: 600000 },
      remotingServerConfig: { bindAddress: '127.0.0.1', listenPort: 0 },
    });
    await broker.start();
    addr = broker.brokerAddr;
  });
  after(async () => {
    for (const c of clients) await c.shutdown();
    await broker.shutdown();
    await fs.rm(root, { recursive: true, force: true });
  });

  function newClient(): RemotingClient {
    const c = new RemotingClient();
    clients.push(c);
    return c;
  }
  const probe = async (): Promise<number> => {
    const r = await newClient().invoke(addr, RemotingCommand.createRequest(RequestCode.GET_BROKER_RUNTIME_INFO), 10000);
    return r.code;
  };

  it('8 connections × 40 sends against a stalled store: exactly sendThreadPoolQueueCapacity queued, the rest SYSTEM_BUSY [OVERLOAD]; the probe answers', async () => {
    const topic = randomName('FLOOD');
    // Warm up: the topic exists and the first file is mapped.
    const warm = await newClient().invoke(addr, sendRequest('V2', sendHeader(topic), Buffer.alloc(16)), 10000);
    expect(warm.code, warm.remark ?? '').to.equal(ResponseCode.SUCCESS);
    const commitLog = broker.messageStore.commitLog;
    const flush = commitLog.flush.bind(commitLog);
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    commitLog.flush = async () => {
      await gate;
      return flush();
    };
    const heapBefore = process.memoryUsage().heapUsed;
    const body = Buffer.alloc(1024, 7);
    const conns = Array.from({ length: 8 }, () => newClient());
    const results: (RemotingCommand | null)[] = [];
    let answered = 0;
    const sends = conns.flatMap((c) => Array.from({ length: 40 }, () =>
      c.invoke(addr, sendRequest('V2', sendHeader(topic), body), 60000).then((r) => {
        answered++;
        results.push(r);
        return r;
      })));
    await waitFor(() => answered + broker.sendExecutor.size === 320, 20000, 'every send answered or queued');
    try {
      expect(broker.sendExecutor.size).to.equal(CAPACITY);
      expect(answered).to.equal(320 - CAPACITY);
      for (const r of results) {
        expect(r!.code).to.equal(ResponseCode.SYSTEM_BUSY);
        expect(r!.remark).to.equal(OVERLOAD_REMARK);
      }
      expect(broker.remotingServer.inflightRequests).to.be.at.most(CAPACITY);
      expect(broker.remotingServer.inflightBytes).to.be.at.most(CAPACITY * body.length);
      // The health probe on another connection answers while the sends are stalled.
      expect(await probe()).to.equal(ResponseCode.SUCCESS);
      // Generous: 64 queued KiB-sized sends and 256 small answers cannot take 64 MiB of heap.
      expect(process.memoryUsage().heapUsed - heapBefore).to.be.below(64 * 1024 * 1024);
    } finally {
      commitLog.flush = flush;
      open();
    }
    const all = await Promise.all(sends);
    expect(all.filter((r) => r.code === ResponseCode.SUCCESS)).to.have.length(CAPACITY);
    expect(broker.sendExecutor.size).to.equal(0);
    // Free again: a send succeeds.
    const after = await conns[0].invoke(addr, sendRequest('V2', sendHeader(topic), body), 10000);
    expect(after.code, after.remark ?? '').to.equal(ResponseCode.SUCCESS);
  });

  it('sends wait while the store appends are busy; BrokerFastFailure answers [TIMEOUT_CLEAN_QUEUE] and [PCBUSY_CLEAN_QUEUE], new sends get [REJECTREQUEST]', async () => {
    const topic = randomName('FF');
    const c = newClient();
    const warm = await c.invoke(addr, sendRequest('V2', sendHeader(topic), Buffer.alloc(16)), 10000);
    expect(warm.code, warm.remark ?? '').to.equal(ResponseCode.SUCCESS);
    const store = broker.messageStore;
    const origAppendBusy = store.isAppendBusy.bind(store);
    const origPcBusy = store.isOSPageCacheBusy.bind(store);
    let appendBusy = true;
    let pcBusy = false;
    store.isAppendBusy = () => appendBusy;
    store.isOSPageCacheBusy = () => pcBusy;
    const waitMs = broker.brokerConfig.waitTimeMillsInSendQueue;
    try {
      broker.brokerConfig.waitTimeMillsInSendQueue = 3600000;
      const first = [0, 1, 2].map(() => c.invoke(addr, sendRequest('V2', sendHeader(topic), Buffer.alloc(16)), 20000));
      await waitFor(() => broker.sendExecutor.queueSize === 3, 10000, '3 sends waiting');
      broker.brokerConfig.waitTimeMillsInSendQueue = 0;
      broker.brokerFastFailure.cleanExpiredRequest();
      for (const r of await Promise.all(first)) {
        expect(r.code).to.equal(ResponseCode.SYSTEM_BUSY);
        expect(r.remark).to.match(/^\[TIMEOUT_CLEAN_QUEUE\]broker busy, start flow control for a while, period in queue: \d+ms, size of queue: \d+$/);
      }
      broker.brokerConfig.waitTimeMillsInSendQueue = 3600000;
      const second = [0, 1].map(() => c.invoke(addr, sendRequest('V2', sendHeader(topic), Buffer.alloc(16)), 20000));
      await waitFor(() => broker.sendExecutor.queueSize === 2, 10000, '2 sends waiting');
      pcBusy = true;
      broker.brokerFastFailure.cleanExpiredRequest();
      const [p0, p1] = await Promise.all(second);
      expect(p0.remark).to.equal('[PCBUSY_CLEAN_QUEUE]broker busy, start flow control for a while, period in queue: ' + p0.remark!.match(/(\d+)ms/)![1] + 'ms, size of queue: 1');
      expect(p1.code).to.equal(ResponseCode.SYSTEM_BUSY);
      expect(p1.remark).to.match(/^\[PCBUSY_CLEAN_QUEUE\].*size of queue: 0$/);
      const rejected = await c.invoke(addr, sendRequest('V2', sendHeader(topic), Buffer.alloc(16)), 20000);
      expect(rejected.code).to.equal(ResponseCode.SYSTEM_BUSY);
      expect(rejected.remark).to.equal(REJECTREQUEST_REMARK);
      // The store frees up: waiting sends run.
      pcBusy = false;
      const third = c.invoke(addr, sendRequest('V2', sendHeader(topic), Buffer.alloc(16)), 20000);
      await waitFor(() => broker.sendExecutor.queueSize === 1, 10000, 'a send waiting');
      appendBusy = false;
      broker.brokerFastFailure.cleanExpiredRequest();
      expect((await third).code).to.equal(ResponseCode.SUCCESS);
    } finally {
      broker.brokerConfig.waitTimeMillsInSendQueue = waitMs;
      store.isAppendBusy = origAppendBusy;
      store.isOSPageCacheBusy = origPcBusy;
    }
  });
});
