import { expect } from 'chai';
import * as body from '../../../../protocol/body/index';

const mq = (topic: string, queueId: number) => ({ topic, brokerName: 'b', queueId });
const sub: body.SubscriptionData = {
  classFilterMode: false, topic: 'T', subString: '*', tagsSet: [], codeSet: [], subVersion: 1700000000000, expressionType: 'TAG',
};

describe('protocol/body bodies without captures', () => {
  it('ConsumerRunningInfo writes TreeMap order, doubles and MessageQueue keys', () => {
    const pq: body.ProcessQueueInfo = {
      commitOffset: 5, cachedMsgMinOffset: 1, cachedMsgMaxOffset: 4, cachedMsgCount: 4, cachedMsgSizeInMiB: 0,
      transactionMsgMinOffset: 0, transactionMsgMaxOffset: 0, transactionMsgCount: 0, locked: true, tryUnlockTimes: 0,
      lastLockTimestamp: 10, droped: false, lastPullTimestamp: 11, lastConsumeTimestamp: 12,
    };
    const info: body.ConsumerRunningInfo = {
      properties: new Map([[body.ConsumerRunningInfoProp.PROP_CONSUME_TYPE, 'CONSUME_PASSIVELY']]),
      subscriptionSet: [sub],
      mqTable: [[mq('T', 1), pq], [mq('T', 0), pq]],
      statusTable: new Map([['T', { pullRT: 1.5, pullTPS: 0, consumeRT: 2, consumeOKTPS: 0, consumeFailedTPS: 0, consumeFailedMsgs: 3 }]]),
      jstack: 'thread dump',
    };
    const text = body.encodeConsumerRunningInfo(info).toString();
    expect(text).to.contain('"mqTable":{{"brokerName":"b","queueId":0,"topic":"T"}:{"cachedMsgCount":4,');
    expect(text).to.contain('"statusTable":{"T":{"consumeFailedMsgs":3,"consumeFailedTPS":0.0,"consumeOKTPS":0.0,"consumeRT":2.0,"pullRT":1.5,"pullTPS":0.0}}');
    const back = body.decodeConsumerRunningInfo(Buffer.from(text));
    expect(back.mqTable.map(([m]) => m.queueId)).to.deep.equal([0, 1]);
    expect(back.statusTable).to.deep.equal(info.statusTable);
    expect(back.subscriptionSet).to.deep.equal([sub]);
    expect(back.jstack).to.equal('thread dump');
  });

  it('ConsumerConnection, ProducerConnection, ResetOffsetBody, GroupList, ConsumeMessageDirectlyResult round-trip', () => {
    const cc: body.ConsumerConnection = {
      connectionSet: [{ clientId: 'c1', clientAddr: '127.0.0.1:1', language: 'JAVA', version: 409 }],
      subscriptionTable: new Map([['T', sub]]),
      consumeType: 'CONSUME_PASSIVELY', messageModel: 'CLUSTERING', consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
    };
    expect(body.decodeConsumerConnection(body.encodeConsumerConnection(cc))).to.deep.equal(cc);
    const pc: body.ProducerConnection = { connectionSet: cc.connectionSet };
    expect(body.decodeProducerConnection(body.encodeProducerConnection(pc))).to.deep.equal(pc);
    const ro: body.ResetOffsetBody = { offsetTable: [[mq('T', 0), 42]] };
    expect(body.encodeResetOffsetBody(ro).toString()).to.equal('{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:42}}');
    expect(body.decodeResetOffsetBody(body.encodeResetOffsetBody(ro))).to.deep.equal(ro);
    expect(body.decodeGroupList(body.encodeGroupList({ groupList: ['g'] }))).to.deep.equal({ groupList: ['g'] });
    const r: body.ConsumeMessageDirectlyResult = { order: false, autoCommit: true, consumeResult: 'CR_SUCCESS', spentTimeMills: 3 };
    expect(body.encodeConsumeMessageDirectlyResult(r).toString())
      .to.equal('{"autoCommit":true,"consumeResult":"CR_SUCCESS","order":false,"spentTimeMills":3}');
    expect(body.decodeConsumeMessageDirectlyResult(body.encodeConsumeMessageDirectlyResult(r))).to.deep.equal(r);
  });

  it('ConsumerOffsetSerializeWrapper writes integer queue ids unquoted', () => {
    const w = { offsetTable: new Map([['T@G', new Map([[0, 5], [1, 7]])]]) };
    expect(body.encodeConsumerOffsetSerializeWrapper(w).toString()).to.equal('{"offsetTable":{"T@G":{0:5,1:7}}}');
    expect(body.decodeConsumerOffsetSerializeWrapper(Buffer.from('{"offsetTable":{"T@G":{"0":5,"1":7}}}'))).to.deep.equal(w);
  });

  it('PermName, TopicSysFlag and DataVersion helpers', () => {
    expect(body.isReadable(6)).to.equal(true);
    expect(body.isWriteable(4)).to.equal(false);
    expect(body.perm2String(7)).to.equal('RWX');
    expect(body.PermName.PERM_PRIORITY).to.equal(8);
    expect(body.buildTopicSysFlag(true, true)).to.equal(3);
    const v = body.nextVersion({ counter: 4, timestamp: 1 }, 99);
    expect(v).to.deep.equal({ counter: 5, timestamp: 99 });
    expect(body.encodeDataVersion(v).toString()).to.equal('{"counter":5,"timestamp":99}');
  });
});
