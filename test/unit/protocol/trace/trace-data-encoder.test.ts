import { expect } from 'chai';
import {
  TraceType, decodeTraceData, encodeTraceContext, javaSplit, newTraceBean, newTraceContext,
} from '../../../../protocol/trace/trace-data-encoder';

const C = '\u0001';
const F = '\u0002';

describe('protocol/trace/trace-data-encoder (Java TraceDataEncoder)', () => {
  it('javaSplit drops trailing empty strings as String.split does', () => {
    expect(javaSplit('a', F)).to.deep.equal(['a']);
    expect(javaSplit('', F)).to.deep.equal(['']);
    expect(javaSplit(`a${F}b${F}`, F)).to.deep.equal(['a', 'b']);
    expect(javaSplit(`${F}a${C}${C}`, C)).to.deep.equal([`${F}a`]);
    expect(javaSplit(F, F)).to.deep.equal([]);
    expect(javaSplit(`a${C}${C}b`, C)).to.deep.equal(['a', '', 'b']);
  });

  it('Pub: the 14 fields, null tags/keys written "null", keys indexed beside the msgId', () => {
    const ctx = newTraceContext(TraceType.Pub, { timeStamp: 1700000000000, regionId: 'DefaultRegion', groupName: 'PG', costTime: 7 });
    ctx.traceBeans.push(newTraceBean('10.0.0.1', {
      topic: 'T', msgId: 'ID1', tags: null, keys: 'k1 k2', storeHost: '127.0.0.1:10911', bodyLength: 5, msgType: 0, offsetMsgId: 'OFF1',
    }));
    const t = encodeTraceContext(ctx);
    expect(t.transData).to.equal(['Pub', '1700000000000', 'DefaultRegion', 'PG', 'T', 'ID1', 'null', 'k1 k2', '127.0.0.1:10911', '5', '7', '0', 'OFF1', 'true'].join(C) + F);
    expect(t.transKey).to.deep.equal(['ID1', 'k1', 'k2']);
    const [back] = decodeTraceData(t.transData);
    expect(back.traceType).to.equal('Pub');
    expect(back.timeStamp).to.equal(1700000000000);
    expect(back.groupName).to.equal('PG');
    expect(back.costTime).to.equal(7);
    expect(back.isSuccess).to.equal(true);
    expect(back.traceBeans[0]).to.include({ topic: 'T', msgId: 'ID1', tags: 'null', keys: 'k1 k2', storeHost: '127.0.0.1:10911', bodyLength: 5, msgType: 0, offsetMsgId: 'OFF1' });
  });

  it('SubBefore and SubAfter: one record per message; SubAfter carries contextCode, timeStamp and group (LOCAL) or stops after contextCode (CLOUD)', () => {
    const beans = [newTraceBean('h', { msgId: 'A', retryTimes: 0, keys: null }), newTraceBean('h', { msgId: 'B', retryTimes: 2, keys: 'kb' })];
    const before = newTraceContext(TraceType.SubBefore, { timeStamp: 5, regionId: null, groupName: 'CG', requestId: 'R', traceBeans: beans });
    expect(encodeTraceContext(before).transData).to.equal(
      ['SubBefore', '5', 'null', 'CG', 'R', 'A', '0', 'null'].join(C) + F + ['SubBefore', '5', 'null', 'CG', 'R', 'B', '2', 'kb'].join(C) + F);
    const after = newTraceContext(TraceType.SubAfter, { timeStamp: 9, groupName: 'CG', requestId: 'R', costTime: 3, isSuccess: false, contextCode: 4, traceBeans: beans });
    const data = encodeTraceContext(after).transData;
    expect(data).to.equal(['SubAfter', 'R', 'A', '3', 'false', 'null', '4', '9', 'CG'].join(C) + F + ['SubAfter', 'R', 'B', '3', 'false', 'kb', '4', '9', 'CG'].join(C) + F);
    const decoded = decodeTraceData(data);
    expect(decoded.map((c) => [c.traceType, c.traceBeans[0].msgId, c.costTime, c.isSuccess, c.contextCode, c.timeStamp, c.groupName]))
      .to.deep.equal([['SubAfter', 'A', 3, false, 4, 9, 'CG'], ['SubAfter', 'B', 3, false, 4, 9, 'CG']]);
    const cloud = encodeTraceContext({ ...after, accessChannel: 'CLOUD', traceBeans: [beans[0]] }).transData;
    expect(cloud).to.equal(['SubAfter', 'R', 'A', '3', 'false', 'null', '4'].join(C) + C);
  });

  it('EndTransaction: state name and fromTransactionCheck', () => {
    const ctx = newTraceContext(TraceType.EndTransaction, { timeStamp: 1, regionId: 'DefaultRegion', groupName: 'PG' });
    ctx.traceBeans.push(newTraceBean('h', { topic: 'T', msgId: 'M', tags: 'TagA', keys: null, storeHost: 'b:1', msgType: 2, transactionId: 'M', transactionState: 'COMMIT_MESSAGE', fromTransactionCheck: true }));
    const t = encodeTraceContext(ctx);
    expect(t.transData).to.equal(['EndTransaction', '1', 'DefaultRegion', 'PG', 'T', 'M', 'TagA', 'null', 'b:1', '2', 'M', 'COMMIT_MESSAGE', 'true'].join(C) + F);
    expect(decodeTraceData(t.transData)[0].traceBeans[0]).to.include({ transactionState: 'COMMIT_MESSAGE', fromTransactionCheck: true, transactionId: 'M', msgType: 2 });
  });

  it('old Pub records (13 fields: no offsetMsgId) and unknown record types decode as Java does', () => {
    const old = ['Pub', '1', 'r', 'g', 't', 'm', 'tg', 'k', 'h', '1', '2', '0', 'false'].join(C) + F + 'Other' + C + 'x' + F;
    const res = decodeTraceData(old);
    expect(res).to.have.length(1);
    expect(res[0].isSuccess).to.equal(false);
    expect(res[0].traceBeans[0].offsetMsgId).to.equal('');
    expect(decodeTraceData('')).to.deep.equal([]);
  });
});
