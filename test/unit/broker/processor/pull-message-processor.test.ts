/**
 * PullMessageProcessor against fakes of its port (PullMessageController): group, topic and subscription checks, the
 * store's statuses mapped to pull codes, offset commits, long polling (held pulls) and OFFSET_MOVED events.
 */
import { expect } from 'chai';
import pino from 'pino';
import { resolveBrokerConfig } from '../../../../lib/broker/broker-config';
import { ConsumerGroupInfo } from '../../../../lib/broker/client-manager/consumer-group-info';
import { PullSysFlag } from '../../../../lib/broker/filter-api';
import type { PullRequest } from '../../../../lib/broker/longpolling/pull-request-hold-service';
import { BrokerLatencyMetrics } from '../../../../lib/broker/metrics/broker-metrics';
import { PullMessageProcessor, type PullMessageController } from '../../../../lib/broker/processor/pull-message-processor';
import type { MessageExtBrokerInner } from '../../../../lib/store/commit-log';
import { BrokerRole } from '../../../../lib/store/message-store-config';
import type { GetMessageResult } from '../../../../lib/store/store-status';
import type { RemotingContext } from '../../../../lib/transport/processor';
import { ConsumeFromWhere, ConsumeType, MessageModel } from '../../../../protocol/body/heartbeat-data';
import { newSubscriptionGroupConfig } from '../../../../protocol/body/subscription-group-wrapper';
import { newTopicConfig } from '../../../../protocol/body/topic-config';
import { RequestCode } from '../../../../protocol/code/request-code';
import { ResponseCode } from '../../../../protocol/code/response-code';
import { PullMessageRequestHeader } from '../../../../protocol/header/pull-message-request-header';
import { PullMessageResponseHeader } from '../../../../protocol/header/pull-message-response-header';
import { decodeMessages } from '../../../../protocol/message/message-decoder';
import { propertiesToString } from '../../../../protocol/message/properties';
import { RemotingCommand } from '../../../../protocol/remoting-command';
import { FakeMessageStore } from '../fake-message-store';

const ctx = { remoteAddress: '10.0.0.8:40000' } as RemotingContext;
const WITH_SUB = PullSysFlag.FLAG_SUBSCRIPTION;

function pull(queueOffset: number, sysFlag: number, extra: Partial<PullMessageRequestHeader> = {}): RemotingCommand {
  return RemotingCommand.createRequest(RequestCode.PULL_MESSAGE, PullMessageRequestHeader.encode({
    consumerGroup: 'G', topic: 'T', queueId: 0, queueOffset, maxMsgNums: 32, sysFlag, commitOffset: 7,
    suspendTimeoutMillis: 15_000, subscription: '*', subVersion: 0, expressionType: 'TAG', ...extra,
  }));
}

async function fakeBroker(messages = 3) {
  const store = new FakeMessageStore();
  for (let i = 0; i < messages; i++) {
    await store.putMessage({
      topic: 'T', queueId: 0, flag: 0, body: Buffer.from(`m${i}`), propertiesString: propertiesToString({ TAGS: 'a' }),
      bornTimestamp: 1, bornHost: { host: '10.0.0.9', port: 1 }, sysFlag: 0, reconsumeTimes: 0, preparedTransactionOffset: 0,
    });
  }
  let nextStatus: GetMessageResult['status'] | null = null;
  const calls = { commits: [] as string[], held: [] as PullRequest[], stats: [] as string[], events: [] as MessageExtBrokerInner[] };
  const group = new ConsumerGroupInfo('G', ConsumeType.CONSUME_PASSIVELY, MessageModel.CLUSTERING, ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET);
  const sgc = newSubscriptionGroupConfig('G');
  const controller: PullMessageController = {
    brokerConfig: resolveBrokerConfig({ brokerName: 'b1', brokerIP1: '10.0.0.1' }),
    messageStoreConfig: { brokerRole: BrokerRole.ASYNC_MASTER, offsetCheckInSlave: false },
    logger: pino({ level: 'silent' }),
    storeHost: { address: '10.0.0.1', port: 10911 },
    topicConfigManager: { selectTopicConfig: (t) => (t === 'T' ? newTopicConfig('T', { readQueueNums: 2, writeQueueNums: 2 }) : undefined) },
    subscriptionGroupManager: { findSubscriptionGroupConfig: (g) => (g === 'G' ? sgc : null) },
    consumerManager: { getConsumerGroupInfo: (g) => (g === 'G' ? group : undefined) },
    consumerOffsetManager: { commitOffset: (host, g, t, q, o) => { calls.commits.push(`${host} ${g} ${t} ${q} ${o}`); } },
    messageStore: {
      getMessage: async (g, t, q, offset, max) => {
        const r = await store.getMessage(g, t, q, offset, max);
        if (nextStatus) r.status = nextStatus;
        return r;
      },
      putMessage: async (msg) => {
        calls.events.push(msg);
        return store.putMessage(msg);
      },
    },
    pullRequestHoldService: { suspendPullRequest: (_t, _q, req) => { calls.held.push(req); } },
    brokerStatsManager: {
      incGroupGet: (g, t, n, size) => { calls.stats.push(`group ${g} ${t} ${n} ${size}`); },
      incBrokerGetNums: (n) => { calls.stats.push(`broker ${n}`); },
    },
    latencyMetrics: new BrokerLatencyMetrics(),
  };
  return { controller, calls, group, sgc, store, processor: new PullMessageProcessor(controller), setStatus: (s: typeof nextStatus) => { nextStatus = s; } };
}

describe('broker/processor/PullMessageProcessor (fakes)', () => {
  it('FOUND: the stored records as the body, the offsets in the header, the store status as remark, stats counted', async () => {
    const { processor, calls, store } = await fakeBroker(3);
    const r = (await processor.processRequest(pull(1, WITH_SUB), ctx))!;
    expect([r.code, r.remark]).to.deep.equal([ResponseCode.SUCCESS, 'FOUND']);
    // two records of one queue need not lie back to back in memory: a gathered body then
    const body = r.bodyParts ? Buffer.concat(r.bodyParts) : r.body!;
    expect(decodeMessages(body).map((m) => m.body.toString())).to.deep.equal(['m1', 'm2']);
    const h = PullMessageResponseHeader.decode(r.extFields);
    expect([h.nextBeginOffset, h.minOffset, h.maxOffset, h.suggestWhichBrokerId]).to.deep.equal([3, 0, 3, 0]);
    const size = store.queue('T', 0).slice(1).reduce((n, b) => n + b.length, 0);
    expect(calls.stats).to.deep.equal([`group G T 2 ${size}`, 'broker 2']);
    expect(calls.commits).to.deep.equal([]);
  });

  it('commits the consumer\'s offset when the pull carries FLAG_COMMIT_OFFSET (not on a slave)', async () => {
    const { processor, calls, controller } = await fakeBroker(1);
    await processor.processRequest(pull(0, WITH_SUB | PullSysFlag.FLAG_COMMIT_OFFSET), ctx);
    expect(calls.commits).to.deep.equal(['10.0.0.8:40000 G T 0 7']);
    controller.messageStoreConfig.brokerRole = BrokerRole.SLAVE;
    await processor.processRequest(pull(0, WITH_SUB | PullSysFlag.FLAG_COMMIT_OFFSET), ctx);
    expect(calls.commits).to.have.length(1);
  });

  it('refuses an unknown group, a group that may not consume, an unknown topic and a queue beyond it', async () => {
    const { processor, sgc } = await fakeBroker();
    const noGroup = (await processor.processRequest(pull(0, WITH_SUB, { consumerGroup: 'X' }), ctx))!;
    expect(noGroup.code).to.equal(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST);
    const noTopic = (await processor.processRequest(pull(0, WITH_SUB, { topic: 'U' }), ctx))!;
    expect(noTopic.code).to.equal(ResponseCode.TOPIC_NOT_EXIST);
    const queue = (await processor.processRequest(pull(0, WITH_SUB, { queueId: 2 }), ctx))!;
    expect([queue.code, queue.remark]).to.deep.equal([ResponseCode.SYSTEM_ERROR,
      'queueId[2] is illegal, topic:[T] topicConfig.readQueueNums:[2] consumer:[10.0.0.8:40000]']);
    sgc.consumeEnable = false;
    const disabled = (await processor.processRequest(pull(0, WITH_SUB), ctx))!;
    expect([disabled.code, disabled.remark]).to.deep.equal([ResponseCode.NO_PERMISSION, 'subscription group no permission, G']);
  });

  it('without FLAG_SUBSCRIPTION the group\'s registered subscription is used, and must be as new as the pull\'s', async () => {
    const { processor, group, sgc } = await fakeBroker(1);
    const none = (await processor.processRequest(pull(0, 0), ctx))!;
    expect(none.code).to.equal(ResponseCode.SUBSCRIPTION_NOT_EXIST);
    group.subscriptionTable.set('T', { topic: 'T', subString: '*', tagsSet: [], codeSet: [], subVersion: 5, expressionType: 'TAG', classFilterMode: false });
    const old = (await processor.processRequest(pull(0, 0, { subVersion: 6 }), ctx))!;
    expect([old.code, old.remark]).to.deep.equal([ResponseCode.SUBSCRIPTION_NOT_LATEST, "the consumer's subscription not latest"]);
    const ok = (await processor.processRequest(pull(0, 0, { subVersion: 5 }), ctx))!;
    expect(ok.code).to.equal(ResponseCode.SUCCESS);
    group.messageModel = MessageModel.BROADCASTING;
    sgc.consumeBroadcastEnable = false;
    const broadcast = (await processor.processRequest(pull(0, 0, { subVersion: 5 }), ctx))!;
    expect(broadcast.code).to.equal(ResponseCode.NO_PERMISSION);
  });

  it('nothing new with FLAG_SUSPEND: the pull is held (answered later) for suspendTimeoutMillis; without it, PULL_NOT_FOUND', async () => {
    const { processor, calls } = await fakeBroker(2);
    const held = await processor.processRequest(pull(2, WITH_SUB | PullSysFlag.FLAG_SUSPEND), ctx);
    expect(held).to.equal(null);
    expect(calls.held).to.have.length(1);
    expect([calls.held[0].timeoutMillis, calls.held[0].pullFromThisOffset]).to.deep.equal([15_000, 2]);
    const now = (await processor.processRequest(pull(2, WITH_SUB), ctx))!;
    expect(now.code).to.equal(ResponseCode.PULL_NOT_FOUND);
    // a held pull woken up runs without suspension: it answers even when still nothing is there
    const again = await processor.pull(pull(2, WITH_SUB | PullSysFlag.FLAG_SUSPEND), ctx, false);
    expect(again!.code).to.equal(ResponseCode.PULL_NOT_FOUND);
    expect(calls.held).to.have.length(1);
  });

  it('an offset out of range answers PULL_OFFSET_MOVED and stores an OFFSET_MOVED_EVENT; a slave without offsetCheckInSlave retries', async () => {
    const { processor, calls, setStatus, controller } = await fakeBroker(2);
    setStatus('OFFSET_TOO_SMALL');
    const moved = (await processor.processRequest(pull(0, WITH_SUB), ctx))!;
    expect(moved.code).to.equal(ResponseCode.PULL_OFFSET_MOVED);
    await new Promise((r) => setImmediate(r));
    expect(calls.events.map((m) => m.topic)).to.deep.equal(['OFFSET_MOVED_EVENT']);
    expect(JSON.parse(calls.events[0].body!.toString())).to.deep.equal({
      consumerGroup: 'G', messageQueue: { brokerName: 'b1', queueId: 0, topic: 'T' }, offsetNew: 2, offsetRequest: 0,
    });
    controller.messageStoreConfig.brokerRole = BrokerRole.SLAVE;
    const slave = (await processor.processRequest(pull(0, WITH_SUB), ctx))!;
    expect(slave.code).to.equal(ResponseCode.PULL_RETRY_IMMEDIATELY);
    expect(calls.events).to.have.length(1);
  });

  it('refuses a SQL92 subscription when enablePropertyFilter is off, and a filter that does not parse when it is on', async () => {
    const { processor, controller } = await fakeBroker(1);
    const off = (await processor.processRequest(pull(0, WITH_SUB, { expressionType: 'SQL92', subscription: 'a > 1' }), ctx))!;
    expect([off.code, off.remark]).to.deep.equal([ResponseCode.SYSTEM_ERROR, 'The broker does not support consumer to filter message by SQL92']);
    controller.brokerConfig.enablePropertyFilter = true;
    const bad = (await processor.processRequest(pull(0, WITH_SUB, { expressionType: 'SQL92', subscription: 'a >' }), ctx))!;
    expect(bad.code).to.equal(ResponseCode.SUBSCRIPTION_PARSE_FAILED);
  });
});
