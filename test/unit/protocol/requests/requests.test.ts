import { expect } from 'chai';
import { RequestCode } from '../../../../protocol/code/request-code';
import { ResponseCode } from '../../../../protocol/code/response-code';
import { MQBrokerError, ProtocolError } from '../../../../protocol/errors';
import { REQUEST_HEADER_BY_CODE } from '../../../../protocol/header/request-header-by-code';
import { RemotingCommand } from '../../../../protocol/remoting-command';
import {
  GetMaxOffset, HeartBeat, LockBatchMQ, PullMessage, QueryConsumerOffset, REQUEST_BY_CODE, SendBatchMessage, SendMessageV2, UnregisterClient,
} from '../../../../protocol/requests/index';

function answer(code: number, extFields: Record<string, string> | null = null, remark: string | null = null): RemotingCommand {
  return new RemotingCommand({ code, extFields, remark, flag: 1 });
}

describe('protocol/requests: one module per request', () => {
  it('every module is in REQUEST_BY_CODE under its code and name', () => {
    for (const [code, req] of REQUEST_BY_CODE) {
      expect(req.code).to.equal(code);
      expect((RequestCode as Record<string, number>)[req.name], req.name).to.equal(code);
    }
    expect(REQUEST_BY_CODE.get(RequestCode.GET_MAX_OFFSET)).to.equal(GetMaxOffset);
    expect(REQUEST_BY_CODE.size).to.be.at.least(17);
  });

  it('uses the request header codec the header table names for its code', () => {
    for (const [code, req] of REQUEST_BY_CODE) {
      const known = REQUEST_HEADER_BY_CODE.get(code);
      if (known) expect(req.requestHeader, req.name).to.equal(known);
    }
  });

  it('request(): the code and the header codec\'s extFields; no header means extFields null', () => {
    const cmd = GetMaxOffset.request({ topic: 'T', queueId: 3 });
    expect(cmd.code).to.equal(RequestCode.GET_MAX_OFFSET);
    expect(cmd.extFields).to.deep.equal({ topic: 'T', queueId: '3' });
    const hb = HeartBeat.request(undefined, Buffer.from('{}'));
    expect(hb.extFields).to.equal(null);
    expect(hb.body!.toString()).to.equal('{}');
  });

  it('SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE write the V2 short keys through SendMessageRequestHeaderV2', () => {
    const values = {
      producerGroup: 'PG', topic: 'T', defaultTopic: 'TBW102', defaultTopicQueueNums: 4, queueId: 1, sysFlag: 0, bornTimestamp: 1700000000000,
      flag: 0, properties: 'UNIQ_KEY\u0001x\u0002', reconsumeTimes: 0, unitMode: false, batch: false, brokerName: 'broker-a',
    };
    expect(SendMessageV2.request(values).extFields).to.deep.equal({
      a: 'PG', b: 'T', c: 'TBW102', d: '4', e: '1', f: '0', g: '1700000000000', h: '0', i: 'UNIQ_KEY\u0001x\u0002', j: '0', k: 'false',
      m: 'false', n: 'broker-a',
    });
    expect(SendBatchMessage.request({ ...values, batch: true, maxReconsumeTimes: 16 }).extFields).to.include({ m: 'true', l: '16' });
    expect(SendBatchMessage.code).to.equal(RequestCode.SEND_BATCH_MESSAGE);
  });

  it('parse(): the response header through its codec on SUCCESS', () => {
    expect(GetMaxOffset.parse(answer(ResponseCode.SUCCESS, { offset: '42' }), 'b:1')).to.equal(42);
    expect(HeartBeat.parse(new RemotingCommand({ code: ResponseCode.SUCCESS, version: 453, flag: 1 }))).to.equal(453);
    expect(UnregisterClient.parse(answer(ResponseCode.SUCCESS))).to.equal(undefined);
    expect(LockBatchMQ.parse(answer(ResponseCode.SUCCESS))).to.deep.equal([]);
  });

  it('parse(): a failure code is an MQBrokerError with the code, remark, address and the table\'s retriable flag', () => {
    const err = (() => {
      try {
        QueryConsumerOffset.parse(answer(ResponseCode.QUERY_NOT_FOUND, null, 'not found'), 'b:1');
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).to.be.instanceOf(MQBrokerError);
    expect((err as MQBrokerError).responseCode).to.equal(ResponseCode.QUERY_NOT_FOUND);
    expect((err as MQBrokerError).remark).to.equal('not found');
    expect((err as MQBrokerError).brokerAddr).to.equal('b:1');
    expect((err as MQBrokerError).retriable).to.equal(false);
    expect(() => GetMaxOffset.parse(answer(ResponseCode.SYSTEM_ERROR))).to.throw(MQBrokerError).with.property('retriable', true);
  });

  it('parse(): a missing response field is an MQBrokerError whose cause is the ProtocolError', () => {
    try {
      GetMaxOffset.parse(answer(ResponseCode.SUCCESS, {}), 'b:1');
      expect.fail('parsed');
    } catch (err) {
      expect(err).to.be.instanceOf(MQBrokerError);
      expect((err as MQBrokerError).cause).to.be.instanceOf(ProtocolError);
    }
  });

  it('PULL_MESSAGE and SEND_MESSAGE_V2 accept their non-SUCCESS answers and refuse the rest', () => {
    const pullHeader = { suggestWhichBrokerId: '0', nextBeginOffset: '5', minOffset: '0', maxOffset: '5' };
    expect(PullMessage.parse(answer(ResponseCode.PULL_NOT_FOUND, pullHeader)).nextBeginOffset).to.equal(5);
    expect(() => PullMessage.parse(answer(ResponseCode.SYSTEM_BUSY, pullHeader))).to.throw(MQBrokerError);
    const sendHeader = { msgId: 'M', queueId: '2', queueOffset: '9' };
    expect(SendMessageV2.parse(answer(ResponseCode.FLUSH_DISK_TIMEOUT, sendHeader)).queueOffset).to.equal(9);
    expect(() => SendMessageV2.parse(answer(ResponseCode.TOPIC_NOT_EXIST, sendHeader))).to.throw(MQBrokerError);
  });
});
