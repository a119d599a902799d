/**
 * SendMessageProcessor against fakes of its port (SendMessageController): topic checks, queue id, retry → DLQ,
 * transactions, delays, the store's statuses mapped to response codes, and what a stored message carries.
 */
import { expect } from 'chai';
import pino from 'pino';
import { resolveBrokerConfig } from '../../../../lib/broker/broker-config';
import { BrokerLatencyMetrics } from '../../../../lib/broker/metrics/broker-metrics';
import { SendMessageProcessor, type SendMessageController } from '../../../../lib/broker/processor/send-message-processor';
import type { MessageExtBrokerInner } from '../../../../lib/store/commit-log';
import type { PutMessageResult } from '../../../../lib/store/store-status';
import type { RemotingContext } from '../../../../lib/transport/processor';
import { newSubscriptionGroupConfig } from '../../../../protocol/body/subscription-group-wrapper';
import { newTopicConfig, type TopicConfig } from '../../../../protocol/body/topic-config';
import { RequestCode } from '../../../../protocol/code/request-code';
import { ResponseCode } from '../../../../protocol/code/response-code';
import { SendMessageRequestHeader } from '../../../../protocol/header/send-message-request-header';
import { SendMessageRequestHeaderV2, toSendMessageRequestHeaderV2 } from '../../../../protocol/header/send-message-request-header-v2';
import { SendMessageResponseHeader } from '../../../../protocol/header/send-message-response-header';
import { propertiesToString, stringToProperties } from '../../../../protocol/message/properties';
import { RemotingCommand } from '../../../../protocol/remoting-command';

const ctx = { remoteAddress: '10.0.0.7:50001' } as RemotingContext;

function header(topic: string, props: Record<string, string> = {}, extra: Partial<SendMessageRequestHeader> = {}): SendMessageRequestHeader {
  return {
    producerGroup: 'PG', topic, defaultTopic: 'TBW102', defaultTopicQueueNums: 4, queueId: 1, sysFlag: 0, bornTimestamp: 1_700_000_000_000,
    flag: 0, properties: propertiesToString({ UNIQ_KEY: 'U1', WAIT: 'true', ...props }), reconsumeTimes: 0, unitMode: false, batch: false,
    ...extra,
  };
}

function v2(h: SendMessageRequestHeader, body = Buffer.from('hello')): RemotingCommand {
  return RemotingCommand.createRequest(RequestCode.SEND_MESSAGE_V2, SendMessageRequestHeaderV2.encode(toSendMessageRequestHeaderV2(h)), body);
}

/** A fake broker: topics T (4 queues) and whatever `created` answers; records every call. */
function fakeBroker(overrides: Partial<SendMessageController> = {}) {
  const topics = new Map<string, TopicConfig>([['T', newTopicConfig('T', { readQueueNums: 4, writeQueueNums: 4 })]]);
  const calls = {
    stored: [] as MessageExtBrokerInner[], prepared: [] as MessageExtBrokerInner[], delayed: [] as string[],
    createdBack: [] as string[], stats: [] as string[],
  };
  let putStatus: PutMessageResult['putMessageStatus'] = 'PUT_OK';
  const put = async (msg: MessageExtBrokerInner): Promise<PutMessageResult> => {
    calls.stored.push(msg);
    if (putStatus !== 'PUT_OK') return { putMessageStatus: putStatus, appendMessageResult: null };
    return {
      putMessageStatus: 'PUT_OK',
      appendMessageResult: { status: 'PUT_OK', wroteOffset: 0, wroteBytes: 100, msgId: 'MSGID', storeTimestamp: 1, logicsOffset: 41, pagecacheRT: 0, msgNum: 1 },
    };
  };
  const controller: SendMessageController = {
    brokerConfig: resolveBrokerConfig({ brokerName: 'b1', brokerIP1: '10.0.0.1' }),
    messageStoreConfig: { maxMessageSize: 4 * 1024 * 1024, timerWheelEnable: true, timerMaxDelaySec: 3 * 24 * 3600 },
    logger: pino({ level: 'silent' }),
    storeHost: { address: '10.0.0.1', port: 10911 },
    topicConfigManager: {
      selectTopicConfig: (t) => topics.get(t),
      createTopicInSendMessageMethod: () => null,
      createTopicInSendMessageBackMethod: (t, queues) => {
        calls.createdBack.push(t);
        const tc = newTopicConfig(t, { readQueueNums: queues, writeQueueNums: queues });
        topics.set(t, tc);
        return tc;
      },
      isOrderTopic: () => false,
    },
    subscriptionGroupManager: { findSubscriptionGroupConfig: (g) => (g === 'G' ? newSubscriptionGroupConfig('G', { retryMaxTimes: 3 }) : null) },
    messageStore: {
      putMessage: put, putMessageCoalesced: put, putMessages: async () => { throw new Error('no batch here'); }, commitLogDiskRatio: 0.9512, consumeQueueDiskRatio: 0.5,
    },
    scheduleMessageService: { rewriteDelayMessage: (msg) => { calls.delayed.push(msg.topic); } },
    transactionalMessageService: { prepareMessage: async (msg) => { calls.prepared.push(msg); return put(msg); } },
    brokerStatsManager: {
      incTopicPutNums: (t, n) => { calls.stats.push(`nums ${t} ${n}`); },
      incTopicPutSize: (t, n) => { calls.stats.push(`size ${t} ${n}`); },
      incBrokerPutNums: (n) => { calls.stats.push(`broker ${n}`); },
    },
    latencyMetrics: new BrokerLatencyMetrics(),
    ...overrides,
  };
  return { controller, calls, processor: new SendMessageProcessor(controller), setPutStatus: (s: typeof putStatus) => { putStatus = s; } };
}

describe('broker/processor/SendMessageProcessor (fakes)', () => {
  it('stores a SEND_MESSAGE_V2 with CLUSTER added and WAIT cut, born at the producer, and answers its queue offset', async () => {
    const { processor, calls } = fakeBroker();
    const r = await processor.processRequest(v2(header('T', { TAGS: 'a' })), ctx);
    expect(r.code, r.remark ?? '').to.equal(ResponseCode.SUCCESS);
    const h = SendMessageResponseHeader.decode(r.extFields);
    expect([h.msgId, h.queueId, h.queueOffset]).to.deep.equal(['MSGID', 1, 41]);
    expect(r.extFields).to.include({ MSG_REGION: 'DefaultRegion', TRACE_ON: 'true' });
    expect(calls.stored).to.have.length(1);
    const m = calls.stored[0];
    expect(stringToProperties(m.propertiesString)).to.deep.equal({ UNIQ_KEY: 'U1', TAGS: 'a', CLUSTER: 'DefaultCluster' });
    expect(m.bornHost).to.deep.equal({ host: '10.0.0.7', port: 50001 });
    expect(m.storeHost).to.deep.equal({ host: '10.0.0.1', port: 10911 });
    expect([m.topic, m.queueId, m.body!.toString(), m.bornTimestamp]).to.deep.equal(['T', 1, 'hello', 1_700_000_000_000]);
    expect(calls.stats).to.deep.equal(['nums T 1', 'size T 100', 'broker 1']);
  });

  it('SEND_MESSAGE (V1 header) and a negative queue id (any queue of the topic) are stored too', async () => {
    const { processor, calls } = fakeBroker();
    const req = RemotingCommand.createRequest(RequestCode.SEND_MESSAGE, SendMessageRequestHeader.encode(header('T', {}, { queueId: -1 })), Buffer.from('x'));
    const r = await processor.processRequest(req, ctx);
    expect(r.code).to.equal(ResponseCode.SUCCESS);
    expect(calls.stored[0].queueId).to.be.within(0, 3);
  });

  it('refuses an unknown topic that cannot be created, and a queue id beyond the topic', async () => {
    const { processor, calls } = fakeBroker();
    const unknown = await processor.processRequest(v2(header('Nope')), ctx);
    expect(unknown.code).to.equal(ResponseCode.TOPIC_NOT_EXIST);
    expect(unknown.remark).to.match(/^topic\[Nope\] not exist, apply first please!/);
    const beyond = await processor.processRequest(v2(header('T', {}, { queueId: 4 })), ctx);
    expect(beyond.code).to.equal(ResponseCode.SYSTEM_ERROR);
    expect(beyond.remark).to.match(/^request queueId\[4\] is illegal, TopicConfig \[topicName=T, readQueueNums=4, writeQueueNums=4, perm=RW-/);
    expect(beyond.remark).to.match(/Producer: 10\.0\.0\.7:50001$/);
    expect(calls.stored).to.deep.equal([]);
  });

  it('refuses sends to a system topic and refuses everything before startAcceptSendRequestTimeStamp', async () => {
    const { processor, controller } = fakeBroker();
    const sys = await processor.processRequest(v2(header('SCHEDULE_TOPIC_XXXX')), ctx);
    expect([sys.code, sys.remark]).to.deep.equal([ResponseCode.NO_PERMISSION, 'Sending message to topic[SCHEDULE_TOPIC_XXXX] is forbidden.']);
    controller.brokerConfig.startAcceptSendRequestTimeStamp = Date.now() + 60_000;
    const early = await processor.processRequest(v2(header('T')), ctx);
    expect(early.code).to.equal(ResponseCode.SYSTEM_ERROR);
    expect(early.remark).to.match(/^broker unable to service, until /);
  });

  it('a %RETRY% send past the group\'s retryMaxTimes goes to the %DLQ% topic without its delay level', async () => {
    const { processor, calls } = fakeBroker();
    const retryTopic = '%RETRY%G';
    const h = header(retryTopic, { DELAY: '3' }, { queueId: 0, reconsumeTimes: 3 });
    // the retry topic is created on the fly by createTopicInSendMessageBackMethod (createTopicInSendMessageMethod has none)
    const r = await processor.processRequest(v2(h), ctx);
    expect(r.code, r.remark ?? '').to.equal(ResponseCode.SUCCESS);
    expect(calls.createdBack).to.deep.equal([retryTopic, '%DLQ%G']);
    expect(calls.stored[0].topic).to.equal('%DLQ%G');
    expect(calls.stored[0].queueId).to.equal(0);
    expect(stringToProperties(calls.stored[0].propertiesString).DELAY).to.equal(undefined);
    expect(calls.delayed).to.deep.equal([]);
  });

  it('a %RETRY% send of an unknown group is refused with SUBSCRIPTION_GROUP_NOT_EXIST', async () => {
    const { processor } = fakeBroker();
    const r = await processor.processRequest(v2(header('%RETRY%Other', {}, { queueId: 0 })), ctx);
    expect(r.code).to.equal(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST);
  });

  it('a delayed message is handed to the schedule service before the store', async () => {
    const { processor, calls } = fakeBroker();
    const r = await processor.processRequest(v2(header('T', { DELAY: '2' })), ctx);
    expect(r.code).to.equal(ResponseCode.SUCCESS);
    expect(calls.delayed).to.deep.equal(['T']);
    // Java keeps WAIT on a delayed message (the commit log re-encodes the request's property map)
    expect(stringToProperties(calls.stored[0].propertiesString).WAIT).to.equal('true');
  });

  it('a prepared transaction message goes to the transaction service, or is refused with rejectTransactionMessage', async () => {
    const { processor, calls, controller } = fakeBroker();
    const r = await processor.processRequest(v2(header('T', { TRAN_MSG: 'true', PGROUP: 'PG' }, { sysFlag: 4 })), ctx);
    expect(r.code).to.equal(ResponseCode.SUCCESS);
    expect(calls.prepared).to.have.length(1);
    expect(calls.prepared[0].sysFlag & 0xc).to.equal(0);
    controller.brokerConfig.rejectTransactionMessage = true;
    const refused = await processor.processRequest(v2(header('T', { TRAN_MSG: 'true' }, { sysFlag: 4 })), ctx);
    expect([refused.code, refused.remark]).to.deep.equal([ResponseCode.NO_PERMISSION, 'the broker[10.0.0.1] sending transaction message is forbidden']);
    expect(calls.prepared).to.have.length(1);
  });

  it('maps the store statuses to Java\'s response codes and remarks', async () => {
    const { processor, setPutStatus, calls } = fakeBroker();
    setPutStatus('SERVICE_NOT_AVAILABLE');
    const busy = await processor.processRequest(v2(header('T')), ctx);
    expect(busy.code).to.equal(ResponseCode.SERVICE_NOT_AVAILABLE);
    expect(busy.remark).to.include("the broker's disk is full [CL:  0.95 CQ:  0.50 INDEX:  0.50]");
    setPutStatus('MESSAGE_ILLEGAL');
    const illegal = await processor.processRequest(v2(header('T')), ctx);
    expect(illegal.code).to.equal(ResponseCode.MESSAGE_ILLEGAL);
    expect(illegal.remark).to.include('msg body length limit 4194304B');
    setPutStatus('OS_PAGECACHE_BUSY');
    const pc = await processor.processRequest(v2(header('T')), ctx);
    expect([pc.code, pc.remark]).to.deep.equal([ResponseCode.SYSTEM_ERROR, '[PC_SYNCHRONIZED]broker busy, start flow control for a while']);
    expect(calls.stats).to.deep.equal([]);
  });
});
