import { expect } from 'chai';
import { QueryMessageProcessor } from '../../../../lib/broker/processor/query-message-processor';
import { RequestCode } from '../../../../protocol/code/request-code';
import { ResponseCode } from '../../../../protocol/code/response-code';
import { QueryMessageRequestHeader } from '../../../../protocol/header/query-message-request-header';
import { QueryMessageResponseHeader } from '../../../../protocol/header/query-message-response-header';
import { decodeMessages } from '../../../../protocol/message/message-decoder';
import { decodeOffsetMessageId } from '../../../../protocol/message/message-id';
import { propertiesToString } from '../../../../protocol/message/properties';
import { RemotingCommand } from '../../../../protocol/remoting-command';
import type { RemotingContext } from '../../../../lib/transport/processor';
import { FakeMessageStore } from '../fake-message-store';

const ctx = {} as RemotingContext;

describe('broker/processor/QueryMessageProcessor', () => {
  async function setup() {
    const store = new FakeMessageStore();
    const offsets: number[] = [];
    for (let i = 0; i < 40; i++) {
      const r = await store.putMessage({
        topic: 'T', queueId: 0, flag: 0, body: Buffer.from(`b${i}`),
        propertiesString: propertiesToString({ KEYS: i % 2 === 0 ? 'even all' : 'odd all', UNIQ_KEY: `U${i}` }),
        bornTimestamp: 1, bornHost: { host: '1.2.3.4', port: 1 }, sysFlag: 0, reconsumeTimes: 0, preparedTransactionOffset: 0,
      });
      offsets.push(r.appendMessageResult!.wroteOffset);
    }
    return { store, offsets, p: new QueryMessageProcessor({ messageStoreConfig: {}, messageStore: store }) };
  }
  const query = (key: string, maxNum: number, unique = false, begin = 0) => RemotingCommand.createRequest(RequestCode.QUERY_MESSAGE,
    QueryMessageRequestHeader.encode({ topic: 'T', key, maxNum, beginTimestamp: begin, endTimestamp: Date.now() + 1000, uniqueKeyQuery: unique || undefined }));

  it('QUERY_MESSAGE returns the records matching a key with the index header', async () => {
    const { p, store } = await setup();
    const r = (await p.processRequest(query('odd', 64), ctx))!;
    expect(r.code).to.equal(ResponseCode.SUCCESS);
    const msgs = decodeMessages(r.body!);
    expect(msgs).to.have.length(20);
    expect(msgs.every((m) => m.properties.KEYS === 'odd all')).to.equal(true);
    const h = QueryMessageResponseHeader.decode(r.extFields);
    expect(h.indexLastUpdatePhyoffset).to.equal(store.commitLogOffset);
    // maxNum limits; the unique-key flag uses the broker's 32 instead
    expect(decodeMessages((await p.processRequest(query('all', 5), ctx))!.body!)).to.have.length(5);
    expect(decodeMessages((await p.processRequest(query('all', 5, true), ctx))!.body!)).to.have.length(32);
    const u = decodeMessages((await p.processRequest(query('U7', 1, true), ctx))!.body!);
    expect(u.map((m) => m.body.toString())).to.deep.equal(['b7']);
  });

  it('QUERY_MESSAGE answers QUERY_NOT_FOUND with Java\'s remark', async () => {
    const { p } = await setup();
    const r = (await p.processRequest(query('none', 32), ctx))!;
    expect(r.code).to.equal(ResponseCode.QUERY_NOT_FOUND);
    expect(r.remark).to.equal('can not find message, maybe time range not correct');
    const late = (await p.processRequest(query('odd', 32, false, Date.now() + 500), ctx))!;
    expect(late.code).to.equal(ResponseCode.QUERY_NOT_FOUND);
  });

  it('VIEW_MESSAGE_BY_ID returns the record at the offset of an offset msgId', async () => {
    const { p, offsets } = await setup();
    const all = decodeMessages((await p.processRequest(query('all', 64), ctx))!.body!);
    const target = all.find((m) => m.body.toString() === 'b9')!;
    const offset = decodeOffsetMessageId(target.offsetMsgId).offset;
    expect(offset).to.equal(offsets[9]);
    const r = (await p.processRequest(RemotingCommand.createRequest(RequestCode.VIEW_MESSAGE_BY_ID, { offset: String(offset) }), ctx))!;
    expect(r.code).to.equal(ResponseCode.SUCCESS);
    expect(decodeMessages(r.body!)[0].body.toString()).to.equal('b9');
    const miss = (await p.processRequest(RemotingCommand.createRequest(RequestCode.VIEW_MESSAGE_BY_ID, { offset: '7' }), ctx))!;
    expect([miss.code, miss.remark]).to.deep.equal([ResponseCode.SYSTEM_ERROR, 'can not find message by the offset, 7']);
  });
});
