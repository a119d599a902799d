import { expect } from 'chai';
import { ProtocolError } from '../../../../protocol/errors';
import {
  GetAllTopicConfigResponseHeader,
  PullMessageRequestHeader,
  QueryMessageRequestHeader,
  REQUEST_HEADER_BY_CODE,
  RegisterBrokerRequestHeader,
  SendMessageRequestHeader,
  SendMessageRequestHeaderV2,
  WipeWritePermOfBrokerResponseHeader,
  fromSendMessageRequestHeaderV2,
  toSendMessageRequestHeaderV2,
} from '../../../../protocol/header/index';
import { RequestCode } from '../../../../protocol/code/request-code';

const V1: SendMessageRequestHeader = {
  producerGroup: 'PG',
  topic: 'T',
  defaultTopic: 'TBW102',
  defaultTopicQueueNums: 4,
  queueId: 2,
  sysFlag: 0,
  bornTimestamp: 1700000000123,
  flag: 0,
  properties: 'TAGS\u0001a\u0002',
  reconsumeTimes: 0,
  unitMode: false,
  batch: true,
  maxReconsumeTimes: 16,
  bname: 'broker-a',
};

describe('protocol/header/header-schema and codecs', () => {
  it('a missing required field is a ProtocolError, on decode and on encode', () => {
    const ext = RegisterBrokerRequestHeader.encode({
      brokerName: 'b', brokerAddr: '127.0.0.1:10911', clusterName: 'C', haServerAddr: '127.0.0.1:10912', brokerId: 0,
    });
    delete ext.haServerAddr;
    expect(() => RegisterBrokerRequestHeader.decode(ext)).to.throw(ProtocolError, /haServerAddr/);
    expect(() => RegisterBrokerRequestHeader.decode(null)).to.throw(ProtocolError, /brokerName/);
    const partial = { brokerName: 'b' } as unknown as RegisterBrokerRequestHeader;
    expect(() => RegisterBrokerRequestHeader.encode(partial)).to.throw(ProtocolError);
  });

  it('a non-integer int or long is a ProtocolError', () => {
    const ext = { consumerGroup: 'g', topic: 't', queueId: '1', queueOffset: '0', maxMsgNums: '32', sysFlag: '2',
      commitOffset: '0', suspendTimeoutMillis: '15000', subVersion: '1' };
    expect(PullMessageRequestHeader.decode(ext).queueId).to.equal(1);
    expect(() => PullMessageRequestHeader.decode({ ...ext, queueId: '1.5' })).to.throw(ProtocolError, /queueId/);
    expect(() => PullMessageRequestHeader.decode({ ...ext, queueOffset: 'abc' })).to.throw(ProtocolError, /queueOffset/);
    expect(() => PullMessageRequestHeader.decode({ ...ext, queueId: '2147483648' })).to.throw(ProtocolError, /range/);
    expect(() => WipeWritePermOfBrokerResponseHeader.decode({ wipeTopicCount: '' })).to.throw(ProtocolError);
  });

  it('booleans and unknown keys decode the way Java reads them', () => {
    const h = QueryMessageRequestHeader.decode({
      topic: 't', key: 'k', maxNum: '32', beginTimestamp: '0', endTimestamp: '9', _UNIQUE_KEY_QUERY: 'TRUE', AccessKey: 'x',
    });
    expect(h.uniqueKeyQuery).to.equal(true);
    expect(h).to.not.have.property('AccessKey');
    expect(QueryMessageRequestHeader.encode(h)._UNIQUE_KEY_QUERY).to.equal('true');
  });

  it('a header without fields encodes to no extFields', () => {
    expect(GetAllTopicConfigResponseHeader.encode({})).to.deep.equal({});
    expect(GetAllTopicConfigResponseHeader.decode(null)).to.deep.equal({});
  });

  it('SendMessageRequestHeader V1 -> V2 -> V1 round trip, bname carried in key n', () => {
    const v2 = toSendMessageRequestHeaderV2(V1);
    expect(v2.brokerName).to.equal('broker-a');
    expect(v2.maxReconsumeTimes).to.equal(16);
    const ext = SendMessageRequestHeaderV2.encode(v2);
    expect(ext).to.deep.equal({
      a: 'PG', b: 'T', c: 'TBW102', d: '4', e: '2', f: '0', g: '1700000000123', h: '0', i: 'TAGS\u0001a\u0002',
      j: '0', k: 'false', l: '16', m: 'true', n: 'broker-a',
    });
    const back = fromSendMessageRequestHeaderV2(SendMessageRequestHeaderV2.decode(ext));
    expect(back).to.deep.equal(V1);
    const minimal = { ...V1 };
    delete minimal.properties;
    delete minimal.bname;
    expect(fromSendMessageRequestHeaderV2(toSendMessageRequestHeaderV2(minimal))).to.deep.equal(minimal);
  });

  it('the request-code table picks V1 for SEND_MESSAGE and V2 for SEND_MESSAGE_V2 and SEND_BATCH_MESSAGE', () => {
    expect(REQUEST_HEADER_BY_CODE.get(RequestCode.SEND_MESSAGE)).to.equal(SendMessageRequestHeader);
    expect(REQUEST_HEADER_BY_CODE.get(RequestCode.SEND_MESSAGE_V2)).to.equal(SendMessageRequestHeaderV2);
    expect(REQUEST_HEADER_BY_CODE.get(RequestCode.SEND_BATCH_MESSAGE)).to.equal(SendMessageRequestHeaderV2);
    expect(REQUEST_HEADER_BY_CODE.get(RequestCode.PULL_MESSAGE)).to.equal(PullMessageRequestHeader);
    expect(REQUEST_HEADER_BY_CODE.has(RequestCode.HEART_BEAT)).to.equal(false);
    for (const [code, codec] of REQUEST_HEADER_BY_CODE) {
      expect(Object.values(RequestCode), `code ${code}`).to.include(code);
      expect(codec.name).to.match(/Header(V2)?$/);
    }
  });

  it('the value types follow the schema (checked by the compiler)', () => {
    // @ts-expect-error queueId is required
    const bad: SendMessageRequestHeader = { producerGroup: 'p', topic: 't', defaultTopic: 'd', defaultTopicQueueNums: 4,
      sysFlag: 0, bornTimestamp: 0, flag: 0 };
    expect(bad.topic).to.equal('t');
  });
});
