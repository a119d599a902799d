/**
 * The POP checkpoint strings (ExtraInfoUtil) and pop retry topic names (KeyBuilder), with expected values written
 * from the Java 5.3.3 source: fields joined by MessageConst.KEY_SEPARATOR (a space), per-queue infos joined by ';'.
 */
import { expect } from 'chai';
import {
  KeyBuilder, appendMsgOffsetInfo, appendQueueIdOrderCountInfo, appendQueueOffsetOrderCountInfo, appendStartOffsetInfo, buildExtraInfo,
  isOrderExtraInfo, orderCountOf, parseExtraInfo, parseMsgOffsetInfo, parseOrderCountInfo, parseStartOffsetInfo, queueOffsetMapKey,
  realTopicOf, retryMark, startOffsetInfoKey,
} from '../../../../protocol/message/extra-info-util';
import { ProtocolError } from '../../../../protocol/errors';

describe('ExtraInfoUtil / KeyBuilder', () => {
  it('pop retry topics: v1 "%RETRY%group_topic", v2 "%RETRY%group+topic", and their marks', () => {
    expect(KeyBuilder.buildPopRetryTopicV1('T', 'G')).to.equal('%RETRY%G_T');
    expect(KeyBuilder.buildPopRetryTopicV2('T', 'G')).to.equal('%RETRY%G+T');
    expect(KeyBuilder.buildPopRetryTopic('T', 'G')).to.equal('%RETRY%G_T');
    expect(KeyBuilder.parseNormalTopic('%RETRY%G_T', 'G')).to.equal('T');
    expect(KeyBuilder.parseNormalTopic('%RETRY%G+T', 'G')).to.equal('T');
    expect(KeyBuilder.parseNormalTopic('T', 'G')).to.equal('T');
    expect([retryMark('T'), retryMark('%RETRY%G_T'), retryMark('%RETRY%G+T')]).to.deep.equal(['0', '1', '2']);
  });

  it('builds and parses extraInfo in both forms', () => {
    const s = buildExtraInfo(10, 1700000000000, 30000, 3, '%RETRY%G_T', 'broker-a', 2, 12);
    expect(s).to.equal('10 1700000000000 30000 3 1 broker-a 2 12');
    expect(parseExtraInfo(s)).to.deep.equal({
      ckQueueOffset: 10, popTime: 1700000000000, invisibleTime: 30000, reviveQid: 3, retry: '1', brokerName: 'broker-a', queueId: 2, queueOffset: 12,
    });
    expect(buildExtraInfo(10, 1, 2, 3, 'T', 'b', 0)).to.equal('10 1 2 3 0 b 0');
    expect(parseExtraInfo('10 1 2 3 0 b 0').queueOffset).to.equal(undefined);
    expect(realTopicOf({ retry: '1' }, 'T', 'G')).to.equal('%RETRY%G_T');
    expect(realTopicOf({ retry: '2' }, 'T', 'G')).to.equal('%RETRY%G+T');
    expect(realTopicOf({ retry: '0' }, 'T', 'G')).to.equal('T');
    expect(() => parseExtraInfo('1 2 3')).to.throw(ProtocolError);
    expect(() => parseExtraInfo('a 1 2 3 0 b 0')).to.throw(ProtocolError);
  });

  it('start and message offset infos per queue', () => {
    let start = appendStartOffsetInfo('', 'T', 0, 5);
    start = appendStartOffsetInfo(start, '%RETRY%G_T', 0, 7);
    expect(start).to.equal('0 0 5;1 0 7');
    let msgs = appendMsgOffsetInfo('', 'T', 0, [5, 6, 9]);
    msgs = appendMsgOffsetInfo(msgs, '%RETRY%G_T', 0, [7]);
    expect(msgs).to.equal('0 0 5,6,9;1 0 7');
    expect([...parseStartOffsetInfo(start)!]).to.deep.equal([['0@0', 5], ['1@0', 7]]);
    expect(parseMsgOffsetInfo(msgs)!.get(startOffsetInfoKey('T', 0))).to.deep.equal([5, 6, 9]);
    expect(parseStartOffsetInfo('')).to.equal(null);
    expect(() => parseStartOffsetInfo('0 0 5;0 0 6')).to.throw(ProtocolError);
  });

  it('orderCountInfo: per message "retry qo<queueId>%<offset> count", then the queue\'s "retry queueId count"', () => {
    let info = appendQueueOffsetOrderCountInfo('', 'T', 1, 5, 2);
    info = appendQueueOffsetOrderCountInfo(info, 'T', 1, 6, 1);
    info = appendQueueIdOrderCountInfo(info, 'T', 1, 0);
    // ExtraInfoUtil.buildQueueOffsetOrderCountInfo / buildQueueIdOrderCountInfo (5.3.3)
    expect(info).to.equal('0 qo1%5 2;0 qo1%6 1;0 1 0');
    const counts = parseOrderCountInfo(info);
    expect([...counts!]).to.deep.equal([['0@qo1%5', 2], ['0@qo1%6', 1], ['0@1', 0]]);
    expect(queueOffsetMapKey('T', 1, 5)).to.equal('0@qo1%5');
    expect(orderCountOf(counts, 'T', 1, 5)).to.equal(2);
    // No entry of its own: the queue's, 0 here, which leaves reconsumeTimes as it is.
    expect(orderCountOf(counts, 'T', 1, 7)).to.equal(undefined);
    expect(orderCountOf(parseOrderCountInfo('0 1 3'), 'T', 1, 7)).to.equal(3);
    expect(orderCountOf(null, 'T', 1, 7)).to.equal(undefined);
    expect(parseOrderCountInfo('')).to.equal(null);
    expect(() => parseOrderCountInfo('0 qo1%5 x')).to.throw(ProtocolError);
    expect(isOrderExtraInfo(parseExtraInfo('5 1 2 999 0 b 1 5'))).to.equal(true);
    expect(isOrderExtraInfo(parseExtraInfo('5 1 2 3 0 b 1 5'))).to.equal(false);
  });
});
