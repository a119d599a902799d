/**
 * DefaultMQPushConsumer against the in-process cluster with one-second delay levels: RECONSUME_LATER through
 * %RETRY%<group> into %DLQ%<group>, orderly consumption (order kept across a SUSPEND, broker locks respected) and
 * broadcasting (every member gets everything, offsets survive a restart from the local file).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { getDLQTopic, getRetryTopic } from '../../../lib/client/mix-all';
import { ConsumeConcurrentlyStatus, ConsumeOrderlyStatus } from '../../../lib/consumer/listener';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { MessageModel } from '../../../protocol/body/heartbeat-data';
import { encodeLockBatchRequestBody, encodeUnlockBatchRequestBody } from '../../../protocol/body/lock-batch';
import type { RemotingClient } from '../../../lib/transport/remoting-client';
import { newClient } from '../broker/broker-helpers';
import { randomName, skipWhenExternal, waitFor } from '../../helpers/cluster';
import { type ConsumerEnv, consumerEnv } from './consumer-helpers';

describe('consumer: retry, DLQ, orderly and broadcasting end to end', function () {
  this.timeout(60_000);
  let env: ConsumerEnv;
  let raw: RemotingClient;
  let tmp: string;

  before(async function () {
    env = await consumerEnv({ storeConfig: { messageDelayLevel: Array(18).fill('1s').join(' ') } });
    skipWhenExternal(this, 'the tests need 1 s delay levels on the in-process broker');
    if (!env.tc.cluster) this.skip();
    raw = newClient();
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'rocketmq-ts-offsets-'));
  });
  after(async () => {
    await raw?.shutdown();
    await env?.stop();
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  it('RECONSUME_LATER: back through %RETRY%<group> with reconsumeTimes + 1, then into %DLQ%<group> after maxReconsumeTimes', async () => {
    const topic = randomName('T');
    const group = randomName('G');
    await env.createTopic(topic, 2);
    await env.sendMany(topic, 3, 'r', { batch: 1 });
    const deliveries = new Map<string, Array<{ topic: string; reconsumeTimes: number; retryTopic?: string }>>();
    const c = env.consumer(group, { maxReconsumeTimes: 2 });
    c.subscribe(topic, '*');
    c.registerMessageListener((msgs) => {
      for (const m of msgs) {
        const k = m.body.toString();
        const l = deliveries.get(k) ?? [];
        l.push({ topic: m.topic, reconsumeTimes: m.reconsumeTimes, retryTopic: m.properties.RETRY_TOPIC });
        deliveries.set(k, l);
      }
      return ConsumeConcurrentlyStatus.RECONSUME_LATER;
    });
    await c.start();
    await waitFor(() => [...deliveries.values()].every((l) => l.length >= 3) && deliveries.size === 3, 30_000, '3 deliveries of each message');
    for (const l of deliveries.values()) {
      expect(l.map((d) => d.reconsumeTimes)).to.deep.equal([0, 1, 2]);
      // the retried copies are handed to the listener under the original topic (Java resetRetryAndNamespace)
      expect(l.every((d) => d.topic === topic)).to.equal(true);
      expect(l.slice(1).every((d) => d.retryTopic === topic)).to.equal(true);
    }
    const dlq = getDLQTopic(group);
    let inDlq: string[] = [];
    await waitFor(async () => {
      try {
        const r = await env.admin.queryMessage(dlq, 'r0', 32, 0, Date.now() + 60_000);
        const r1 = await env.admin.queryMessage(dlq, 'r1', 32, 0, Date.now() + 60_000);
        const r2 = await env.admin.queryMessage(dlq, 'r2', 32, 0, Date.now() + 60_000);
        inDlq = [...r.messageList, ...r1.messageList, ...r2.messageList].map((m) => m.body.toString());
        return inDlq.length >= 3;
      } catch {
        return false;
      }
    }, 10_000, `3 messages in ${dlq}`);
    expect(inDlq.sort()).to.deep.equal(['r0', 'r1', 'r2']);
    // no 4th delivery once in the DLQ
    await new Promise((r) => setTimeout(r, 1500));
    expect([...deliveries.values()].map((l) => l.length)).to.deep.equal([3, 3, 3]);
    expect(getRetryTopic(group)).to.equal(`%RETRY%${group}`);
    await c.shutdown();
  });

  it('orderly: per-queue order kept with SUSPEND_CURRENT_QUEUE_A_MOMENT in the middle', async () => {
    const topic = randomName('T');
    await env.createTopic(topic, 2);
    await env.sendMany(topic, 100, 'o', { batch: 10 });
    const byQueue = new Map<number, number[]>();
    let suspends = 0;
    const c = env.consumer(randomName('G'), { suspendCurrentQueueTimeMillis: 100, consumeMessageBatchMaxSize: 3 });
    c.subscribe(topic, '*');
    c.registerMessageListenerOrderly((msgs) => {
      if (suspends < 3 && msgs.some((m) => m.queueOffset === 20 + suspends * 7)) {
        suspends++;
        return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
      }
      for (const m of msgs) {
        const l = byQueue.get(m.queueId) ?? [];
        l.push(m.queueOffset);
        byQueue.set(m.queueId, l);
      }
      return ConsumeOrderlyStatus.SUCCESS;
    });
    await c.start();
    await waitFor(() => [...byQueue.values()].reduce((n, l) => n + l.length, 0) >= 100, 20_000, '100 orderly messages');
    expect(suspends).to.equal(3);
    for (const l of byQueue.values()) expect(l).to.deep.equal(Array.from({ length: 50 }, (_, i) => i));
    await c.shutdown();
  });

  it('orderly: a queue locked by another client is not consumed until the lock is released', async () => {
    const topic = randomName('T');
    const group = randomName('G');
    await env.createTopic(topic, 1);
    await env.sendMany(topic, 10, 'l');
    const brokerAddr = env.tc.cluster!.brokers[0].brokerAddr;
    const mq = { topic, brokerName: 'broker-a', queueId: 0 };
    const other = 'other-client@1';
    const lock = await raw.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.LOCK_BATCH_MQ, null,
      encodeLockBatchRequestBody({ consumerGroup: group, clientId: other, mqSet: [mq] })), 5000);
    expect(lock.code).to.equal(ResponseCode.SUCCESS);
    const got: number[] = [];
    const c = env.consumer(group);
    c.subscribe(topic, '*');
    c.registerMessageListenerOrderly((msgs) => {
      for (const m of msgs) got.push(m.queueOffset);
      return ConsumeOrderlyStatus.SUCCESS;
    });
    await c.start();
    await new Promise((r) => setTimeout(r, 1500));
    expect(got, 'consumed a queue locked by another client').to.deep.equal([]);
    const unlock = await raw.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.UNLOCK_BATCH_MQ, null,
      encodeUnlockBatchRequestBody({ consumerGroup: group, clientId: other, mqSet: [mq] })), 5000);
    expect(unlock.code).to.equal(ResponseCode.SUCCESS);
    await c.doRebalance();
    await waitFor(() => got.length === 10, 10_000, '10 messages after the unlock');
    expect(got).to.deep.equal(Array.from({ length: 10 }, (_, i) => i));
    await c.shutdown();
  });

  it('broadcasting: every member gets every message; offsets survive a restart from the local file', async () => {
    const topic = randomName('T');
    const group = randomName('G');
    await env.createTopic(topic, 4);
    await env.sendMany(topic, 40, 'b', { batch: 5 });
    const names = [randomName('bi'), randomName('bi')];
    const seen = names.map(() => new Map<string, number>());
    const start = async (i: number) => {
      const c = env.consumer(group, { messageModel: MessageModel.BROADCASTING, instanceName: names[i], localOffsetStoreDir: tmp });
      c.subscribe(topic, '*');
      c.registerMessageListener((msgs) => {
        for (const m of msgs) seen[i].set(m.body.toString(), (seen[i].get(m.body.toString()) ?? 0) + 1);
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
      });
      await c.start();
      return c;
    };
    const cs = [await start(0), await start(1)];
    await waitFor(() => seen.every((s) => s.size === 40), 15_000, 'every member gets 40');
    await Promise.all(cs.map((c) => c.shutdown()));
    const files = await fs.readdir(tmp, { recursive: true });
    expect(files.filter((f) => String(f).endsWith('offsets.json'))).to.have.length(2);
    await env.sendMany(topic, 20, 'n', { batch: 5 });
    for (const s of seen) s.clear();
    await Promise.all([start(0), start(1)]);
    await waitFor(() => seen.every((s) => s.size === 20), 15_000, 'every member gets the 20 new ones');
    await new Promise((r) => setTimeout(r, 300));
    for (const s of seen) {
      expect([...s.keys()].every((k) => k.startsWith('n'))).to.equal(true);
      expect([...s.values()].every((v) => v === 1)).to.equal(true);
    }
  });
});
