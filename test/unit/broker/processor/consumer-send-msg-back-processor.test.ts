import { expect } from 'chai';
import { ConsumerSendMsgBackProcessor, type SendMsgBackController } from '../../../../lib/broker/processor/consumer-send-msg-back-processor';
import { rewriteDelayedMessage } from '../../../../lib/broker/schedule/schedule-message-service';
import { newSubscriptionGroupConfig, type SubscriptionGroupConfig } from '../../../../protocol/body/subscription-group-wrapper';
import { newTopicConfig, type TopicConfig } from '../../../../protocol/body/topic-config';
import { RequestCode } from '../../../../protocol/code/request-code';
import { ResponseCode } from '../../../../protocol/code/response-code';
import { ConsumerSendMsgBackRequestHeader } from '../../../../protocol/header/consumer-send-msg-back-request-header';
import { decodeMessage } from '../../../../protocol/message/message-decoder';
import { propertiesToString } from '../../../../protocol/message/properties';
import { RemotingCommand } from '../../../../protocol/remoting-command';
import type { RemotingContext } from '../../../../lib/transport/processor';
import { FakeMessageStore } from '../fake-message-store';

const ctx = {} as RemotingContext;

function setup() {
  const store = new FakeMessageStore();
  const groups = new Map<string, SubscriptionGroupConfig>([['G', newSubscriptionGroupConfig('G')]]);
  const topics = new Map<string, TopicConfig>();
  const controller: SendMsgBackController = {
    brokerConfig: { brokerPermission: 6, brokerIP1: '127.0.0.1' },
    subscriptionGroupManager: { findSubscriptionGroupConfig: (g) => groups.get(g) },
    topicConfigManager: {
      createTopicInSendMessageBackMethod(topic, queueNums, perm, topicSysFlag) {
        let tc = topics.get(topic);
        if (!tc) {
          tc = newTopicConfig(topic, { readQueueNums: queueNums, writeQueueNums: queueNums, perm, topicSysFlag });
          topics.set(topic, tc);
        }
        return tc;
      },
    },
    messageStore: store,
    scheduleMessageService: { rewriteDelayedMessage: (m) => rewriteDelayedMessage(m, 18) },
  };
  return { store, groups, topics, controller, p: new ConsumerSendMsgBackProcessor(controller) };
}

async function putOriginal(store: FakeMessageStore, reconsumeTimes = 0, extra: Record<string, string> = {}): Promise<number> {
  const r = await store.putMessage({
    topic: 'T', queueId: 2, flag: 3, body: Buffer.from('payload'),
    propertiesString: propertiesToString({ TAGS: 'tg', KEYS: 'k1', UNIQ_KEY: 'U1', ...extra }), bornTimestamp: 1234,
    bornHost: { host: '10.1.1.1', port: 999 }, sysFlag: 0, reconsumeTimes, preparedTransactionOffset: 0,
  });
  return r.appendMessageResult!.wroteOffset;
}

function backRequest(offset: number, fields: Partial<ConsumerSendMsgBackRequestHeader> = {}): RemotingCommand {
  const cmd = RemotingCommand.createRequest(RequestCode.CONSUMER_SEND_MSG_BACK,
    ConsumerSendMsgBackRequestHeader.encode({ offset, group: 'G', delayLevel: 0, ...fields }));
  return cmd;
}

describe('broker/processor/ConsumerSendMsgBackProcessor', () => {
  it('re-stores the message for %RETRY%<group> through SCHEDULE_TOPIC_XXXX at level 3 + reconsumeTimes', async () => {
    const { store, topics, p } = setup();
    const off = await putOriginal(store, 1);
    const res = (await p.processRequest(backRequest(off, { originMsgId: 'U1' }), ctx))!;
    expect(res.code).to.equal(ResponseCode.SUCCESS);
    expect(res.remark ?? null).to.equal(null);
    expect(topics.get('%RETRY%G')!.perm).to.equal(6);
    expect(topics.get('%RETRY%G')!.writeQueueNums).to.equal(1);
    const q = store.queue('SCHEDULE_TOPIC_XXXX', 3); // level 4 = 3 + 1
    expect(q).to.have.length(1);
    const m = decodeMessage(q[0], 0, { clientMsgId: false });
    expect(m.reconsumeTimes).to.equal(2);
    expect(m.flag).to.equal(3);
    expect(m.body.toString()).to.equal('payload');
    expect(m.bornTimestamp).to.equal(1234);
    expect(m.properties).to.include({
      TAGS: 'tg', KEYS: 'k1', UNIQ_KEY: 'U1', RETRY_TOPIC: 'T', WAIT: 'false', DELAY: '4', REAL_TOPIC: '%RETRY%G', REAL_QID: '0',
    });
    const original = decodeMessage((await store.lookMessageByOffset(off))!, 0, { clientMsgId: false });
    expect(m.properties.ORIGIN_MESSAGE_ID).to.equal(original.offsetMsgId);
  });

  it('keeps RETRY_TOPIC and ORIGIN_MESSAGE_ID of a message already retried, and honours the requested level', async () => {
    const { store, p } = setup();
    const off = await putOriginal(store, 2, { RETRY_TOPIC: 'First', ORIGIN_MESSAGE_ID: 'ORIG' });
    expect((await p.processRequest(backRequest(off, { delayLevel: 1 }), ctx))!.code).to.equal(ResponseCode.SUCCESS);
    const m = decodeMessage(store.queue('SCHEDULE_TOPIC_XXXX', 0)[0]);
    expect(m.properties).to.include({ RETRY_TOPIC: 'First', ORIGIN_MESSAGE_ID: 'ORIG', DELAY: '1' });
    expect(m.reconsumeTimes).to.equal(3);
  });

  it('sends to %DLQ%<group> after maxReconsumeTimes (group default 16, or the request\'s), and at once for level -1', async () => {
    const { store, topics, p } = setup();
    const at16 = await putOriginal(store, 16);
    expect((await p.processRequest(backRequest(at16), ctx))!.code).to.equal(ResponseCode.SUCCESS);
    const dlq = store.queue('%DLQ%G', 0);
    expect(dlq).to.have.length(1);
    expect(decodeMessage(dlq[0]).properties.DELAY).to.equal('0');
    expect(decodeMessage(dlq[0]).reconsumeTimes).to.equal(17);
    expect(topics.get('%DLQ%G')!.perm).to.equal(6);
    expect(topics.get('%DLQ%G')!.readQueueNums).to.equal(1);

    const at2 = await putOriginal(store, 2);
    const req = backRequest(at2, { maxReconsumeTimes: 2 });
    expect((await p.processRequest(req, ctx))!.code).to.equal(ResponseCode.SUCCESS);
    expect(store.queue('%DLQ%G', 0)).to.have.length(2);
    // an old client (version < V3_4_9) is held to the group's limit
    const old = backRequest(at2, { maxReconsumeTimes: 2 });
    old.version = 100;
    await p.processRequest(old, ctx);
    expect(store.queue('%DLQ%G', 0)).to.have.length(2);

    const fresh = await putOriginal(store, 0);
    await p.processRequest(backRequest(fresh, { delayLevel: -1 }), ctx);
    expect(store.queue('%DLQ%G', 0)).to.have.length(3);
  });

  it('answers Java\'s errors', async () => {
    const { store, groups, controller, p } = setup();
    const off = await putOriginal(store);
    const noGroup = (await p.processRequest(backRequest(off, { group: 'nope' }), ctx))!;
    expect(noGroup.code).to.equal(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST);
    expect(noGroup.remark).to.equal('subscription group not exist, nope \nSee http://rocketmq.apache.org/docs/faq/ for further details.');
    const bad = (await p.processRequest(backRequest(123456), ctx))!;
    expect(bad.code).to.equal(ResponseCode.SYSTEM_ERROR);
    expect(bad.remark).to.equal('look message by offset failed, 123456');
    store.failPuts = 1;
    const fail = (await p.processRequest(backRequest(off), ctx))!;
    expect([fail.code, fail.remark]).to.deep.equal([ResponseCode.SYSTEM_ERROR, 'SERVICE_NOT_AVAILABLE']);
    groups.get('G')!.retryQueueNums = 0;
    expect((await p.processRequest(backRequest(off), ctx))!.code).to.equal(ResponseCode.SUCCESS);
    controller.brokerConfig.brokerPermission = 4;
    const ro = (await p.processRequest(backRequest(off), ctx))!;
    expect([ro.code, ro.remark]).to.deep.equal([ResponseCode.NO_PERMISSION, 'the broker[127.0.0.1] sending message is forbidden']);
    expect(() => ConsumerSendMsgBackRequestHeader.decode({ group: 'G' })).to.throw();
  });
});
