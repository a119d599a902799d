import { expect } from 'chai';
import { RemotingCommand } from '../../../../protocol/remoting-command';
import { RequestCode } from '../../../../protocol/code/request-code';
import {
  CheckTransactionStateRequestHeader,
  ConsumerSendMsgBackRequestHeader,
  EndTransactionRequestHeader,
  PullMessageRequestHeader,
  PullMessageResponseHeader,
  REQUEST_HEADER_BY_CODE,
  RegisterBrokerRequestHeader,
  SendMessageRequestHeaderV2,
  SendMessageResponseHeader,
} from '../../../../protocol/header/index';
import { frameIndex, readFrame, scenarios } from '../../../helpers/golden';

function frame(scenario: string, file: string): RemotingCommand {
  return RemotingCommand.decodeFrame(readFrame(scenario, file));
}

describe('protocol/header against the Java captures', () => {
  describe('every request frame whose code has a header codec', () => {
    for (const scenario of scenarios()) {
      it(`${scenario}: decodes, re-encodes and decodes to equal values`, () => {
        let checked = 0;
        for (const entry of frameIndex(scenario)) {
          const flag = Number(entry.header.flag ?? 0);
          if (flag & 1) continue;
          const codec = REQUEST_HEADER_BY_CODE.get(Number(entry.header.code));
          if (!codec) continue;
          const cmd = frame(scenario, entry.file);
          const values = codec.decode(cmd.extFields);
          const again = codec.decode(codec.encode(values));
          expect(again, entry.file).to.deep.equal(values);
          // every key the schema knows that the frame carried came through
          for (const [field, spec] of Object.entries(codec.schema)) {
            const key = spec.key ?? field;
            if (cmd.extFields && cmd.extFields[key] !== undefined) expect(values, `${entry.file} ${field}`).to.have.property(field);
          }
          checked++;
        }
        expect(checked, 'request frames with a known header').to.be.greaterThan(0);
      });
    }
  });

  it('SEND_MESSAGE_V2 (02-produce, the compressed 8 KiB message)', () => {
    const cmd = frame('02-produce', '20911-40368/0000-c2s-req310.bin');
    expect(cmd.code).to.equal(RequestCode.SEND_MESSAGE_V2);
    const h = SendMessageRequestHeaderV2.decode(cmd.extFields);
    expect(h.producerGroup).to.equal('PG_CAP');
    expect(h.topic).to.equal('CapTopic');
    expect(h.defaultTopic).to.equal('TBW102');
    expect(h.defaultTopicQueueNums).to.equal(4);
    expect(h.queueId).to.equal(0);
    expect(h.sysFlag).to.equal(769);
    expect(h.bornTimestamp).to.equal(1795936602069);
    expect(h.flag).to.equal(0);
    expect(h.properties).to.equal(
      'KEYS\u0001bigkey\u0002UNIQ_KEY\u0001FD00000000000000000000000000000272655FFD2B2791C1DFD40000\u0002WAIT\u0001true\u0002TAGS\u0001Big',
    );
    expect(h.reconsumeTimes).to.equal(0);
    expect(h.unitMode).to.equal(false);
    expect(h.batch).to.equal(false);
    expect(h.maxReconsumeTimes).to.equal(undefined);
    expect(h.brokerName).to.equal('broker-cap');
    // what we encode carries the same short keys and strings as Java's
    expect(SendMessageRequestHeaderV2.encode(h)).to.deep.equal(cmd.extFields);
  });

  it('PULL_MESSAGE request and its FOUND response header (03-consume)', () => {
    const req = PullMessageRequestHeader.decode(frame('03-consume', '20911-50328/0007-c2s-req11.bin').extFields);
    expect(req).to.deep.equal({
      consumerGroup: 'CG_TAG',
      topic: 'CapTopic',
      queueId: 3,
      queueOffset: 0,
      maxMsgNums: 32,
      sysFlag: 2,
      commitOffset: 0,
      suspendTimeoutMillis: 15000,
      subVersion: 1795936661287,
      expressionType: 'TAG',
      bname: 'broker-cap',
    });
    const resp = frame('03-consume', '20911-50328/0008-s2c-resp0.bin');
    expect(resp.isResponse).to.equal(true);
    expect(resp.opaque).to.equal(24);
    expect(PullMessageResponseHeader.decode(resp.extFields)).to.deep.equal({
      suggestWhichBrokerId: 0,
      nextBeginOffset: 4,
      minOffset: 0,
      maxOffset: 4,
    });
  });

  it('REGISTER_BROKER request header (01-startup)', () => {
    const h = RegisterBrokerRequestHeader.decode(frame('01-startup', '19876-54610/0000-c2s-req103.bin').extFields);
    expect(h).to.deep.equal({
      brokerName: 'broker-cap',
      brokerAddr: '127.0.0.1:20911',
      clusterName: 'DefaultCluster',
      haServerAddr: '127.0.0.1:20912',
      brokerId: 0,
      compressed: false,
      bodyCrc32: 979649797,
    });
  });

  it('REGISTER_BROKER request header of a 5.3.3 broker (10-java5-broker)', () => {
    const cmd = frame('10-java5-broker', '19876-39916/0000-c2s-req103.bin');
    expect(cmd.version).to.equal(479);
    const h = RegisterBrokerRequestHeader.decode(cmd.extFields);
    expect(h.brokerName).to.equal('broker-5x');
    expect(h.brokerId).to.equal(0);
    expect(h.enableActingMaster).to.equal(false);
    expect(h.heartbeatTimeoutMillis).to.equal(undefined);
    expect(h.compressed).to.equal(false);
    expect(h.bodyCrc32).to.equal(1152980346);
    expect(RegisterBrokerRequestHeader.encode(h)).to.deep.equal(cmd.extFields);
  });

  it('SEND_MESSAGE response header of a batch (02-produce), with the broker-added MSG_REGION and TRACE_ON', () => {
    const h = SendMessageResponseHeader.decode(frame('02-produce', '20911-40366/0000-s2c-resp0.bin').extFields);
    expect(h.msgId.split(',')).to.have.length(5);
    expect(h.msgId.split(',')[0]).to.equal('7F000001000051AF0000000000000999');
    expect(h.queueId).to.equal(0);
    expect(h.queueOffset).to.equal(2);
    expect(h.transactionId).to.equal(undefined);
    expect(h.msgRegion).to.equal('DefaultRegion');
    expect(h.traceOn).to.equal('true');
  });

  it('CONSUMER_SEND_MSG_BACK (04-orderly-retry-rebalance)', () => {
    const h = ConsumerSendMsgBackRequestHeader.decode(
      frame('04-orderly-retry-rebalance', '20911-58748/0021-c2s-req36.bin').extFields,
    );
    expect(h).to.deep.equal({
      offset: 2035,
      group: 'CG_RETRY',
      delayLevel: 0,
      originMsgId: 'FD000000000000000000000000000002720E5FFD2B2791C1D6BE0001',
      originTopic: 'CapTopic',
      unitMode: false,
      maxReconsumeTimes: 16,
      bname: 'broker-cap',
    });
  });

  it('END_TRANSACTION after a check and the CHECK_TRANSACTION_STATE before it (05-transaction)', () => {
    const uniq = 'FD0000000000000000000000000000027E725FFD2B2791C533B40000';
    const check = frame('05-transaction', '20911-58348/0003-s2c-req39.bin');
    expect(check.code).to.equal(RequestCode.CHECK_TRANSACTION_STATE);
    expect(check.isOneway).to.equal(true);
    expect(CheckTransactionStateRequestHeader.decode(check.extFields)).to.deep.equal({
      tranStateTableOffset: 5,
      commitLogOffset: 11239,
      msgId: uniq,
      transactionId: uniq,
      offsetMsgId: '7F000001000051AF0000000000002BE7',
    });
    const end = frame('05-transaction', '20911-58348/0005-c2s-req37.bin');
    expect(end.code).to.equal(RequestCode.END_TRANSACTION);
    expect(EndTransactionRequestHeader.decode(end.extFields)).to.deep.equal({
      producerGroup: 'TXG',
      tranStateTableOffset: 5,
      commitLogOffset: 11239,
      commitOrRollback: 8,
      fromTransactionCheck: true,
      msgId: uniq,
      transactionId: uniq,
    });
  });
});
