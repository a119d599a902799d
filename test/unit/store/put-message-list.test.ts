import { expect } from 'chai';
import fs from 'node:fs/promises';
import { DefaultMessageStore } from '../../../lib/store/message-store';
import { GetMessageStatus, PutMessageStatus } from '../../../lib/store/store-status';
import { SMALL, decodeRecord, makeMessage, tempDir } from './store-test-util';

describe('store: batch-level puts (putMessageList, putMessageCoalesced)', function () {
  this.timeout(30000);
  let dir: string;
  let store: DefaultMessageStore;
  const open = async (extra: Record<string, unknown> = {}) => {
    store = new DefaultMessageStore({ ...SMALL, mappedFileSizeCommitLog: 64 * 1024, mappedFileSizeConsumeQueue: 200, storePathRootDir: dir, ...extra });
    await store.start();
    return store;
  };
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    await store?.shutdown();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('appends a list in order across commit-log and consume-queue files, one result each, refused ones in place', async () => {
    await open({ maxMessageSize: 2048 });
    const msgs = Array.from({ length: 300 }, (_, i) => makeMessage('T', i % 2, Buffer.alloc(700, i % 256), { KEYS: `k${i}` }));
    msgs[7] = makeMessage('T', 1, Buffer.alloc(4096));
    const rs = await store.putMessageList(msgs);
    expect(rs).to.have.length(300);
    expect(rs[7].putMessageStatus).to.equal(PutMessageStatus.MESSAGE_ILLEGAL);
    const ok = rs.filter((r) => r.putMessageStatus === PutMessageStatus.PUT_OK);
    expect(ok).to.have.length(299);
    const offsets = ok.map((r) => r.appendMessageResult!.wroteOffset);
    expect([...offsets].sort((a, b) => a - b)).to.deep.equal(offsets);
    expect(store.commitLog.mappedFileQueue.files.length).to.be.greaterThan(3);
    // Every consume-queue entry is written once the list resolves.
    expect(store.getMaxOffsetInQueue('T', 0)).to.equal(150);
    expect(store.getMaxOffsetInQueue('T', 1)).to.equal(149);
    let off = 0;
    const keys: string[] = [];
    while (off < 150) {
      const r = await store.getMessage('G', 'T', 0, off, 32);
      expect(r.status).to.equal(GetMessageStatus.FOUND);
      for (const m of r.messages) keys.push(decodeRecord(m).properties.KEYS);
      off = r.nextBeginOffset;
    }
    expect(keys).to.deep.equal(Array.from({ length: 150 }, (_, i) => `k${i * 2}`));
    expect(store.getRuntimeInfo().putMessageTimesTotal).to.equal('299');
  });

  it('SYNC_FLUSH: a list is acknowledged after one shared fdatasync', async () => {
    await open({ flushDiskType: 'SYNC_FLUSH' });
    let flushes = 0;
    const flush = store.commitLog.flush.bind(store.commitLog);
    store.commitLog.flush = () => {
      flushes++;
      return flush();
    };
    const rs = await store.putMessageList(Array.from({ length: 50 }, (_, i) => makeMessage('S', 0, `m${i}`)));
    expect(rs.every((r) => r.putMessageStatus === PutMessageStatus.PUT_OK)).to.equal(true);
    expect(flushes, 'one group commit for the list (a periodic flush may add one)').to.be.at.most(2);
    expect(store.commitLog.mappedFileQueue.getFlushedWhere()).to.equal(store.getMaxPhyOffset());
  });

  it('putMessageCoalesced appends the puts of one task with one putMessageList; each caller gets its own result', async () => {
    await open();
    await store.putMessage(makeMessage('C', 0, 'first')); // the first file exists
    const lists: number[] = [];
    const putList = store.putMessageList.bind(store);
    store.putMessageList = (msgs) => {
      lists.push(msgs.length);
      return putList(msgs);
    };
    const rs = await Promise.all(Array.from({ length: 40 }, (_, i) => store.putMessageCoalesced(makeMessage('C', 0, `m${i}`))));
    expect(lists).to.deep.equal([40]);
    expect(rs.map((r) => r.appendMessageResult!.logicsOffset)).to.deep.equal(Array.from({ length: 40 }, (_, i) => i + 1));
    // A put alone in its task goes through putMessage.
    const one = await store.putMessageCoalesced(makeMessage('C', 0, 'alone'));
    expect(one.putMessageStatus).to.equal(PutMessageStatus.PUT_OK);
    expect(lists).to.deep.equal([40]);
    expect(store.getMaxOffsetInQueue('C', 0)).to.equal(42);
  });

  it('a list on a store that refuses writes gets the refusal for each message', async () => {
    await open({ brokerRole: 'SLAVE' });
    const rs = await store.putMessageList([makeMessage('X', 0, 'a'), makeMessage('X', 0, 'b')]);
    expect(rs.map((r) => r.putMessageStatus)).to.deep.equal([PutMessageStatus.SERVICE_NOT_AVAILABLE, PutMessageStatus.SERVICE_NOT_AVAILABLE]);
  });
});
