import { expect } from 'chai';
import fs from 'node:fs/promises';
import path from 'node:path';
import { DefaultMessageStore } from '../../../lib/store/message-store';
import { MappedFile } from '../../../lib/store/mapped-file';
import { PutMessageStatus, type PutMessageResult } from '../../../lib/store/store-status';
import { BLANK_MAGIC_CODE, MESSAGE_MAGIC_CODE, crc32, readI64 } from '../../../lib/store/stored-record';
import { crc32Implementation, crc32Table } from '../../../protocol/message/compression';
import { javaStringHashCode } from '../../../protocol/message/java-hash';
import { decodeOffsetMessageId } from '../../../protocol/message/message-id';
import { goldenPath } from '../../helpers/golden';
import { SMALL, decodeRecord, makeMessage, storePerTest, tempDir } from './store-test-util';

/** Counts the writes of the commit log's files (MappedFile.commit calls that had bytes to hand over). */
function countCommits(store: DefaultMessageStore): { writes: number } {
  const counter = { writes: 0 };
  for (const mfq of [store.commitLog.mappedFileQueue]) {
    const getLast = mfq.getLastMappedFileOrCreate.bind(mfq);
    const wrap = (mf: MappedFile): MappedFile => {
      if ((mf as unknown as { counted?: boolean }).counted) return mf;
      (mf as unknown as { counted?: boolean }).counted = true;
      const commit = mf.commit.bind(mf);
      mf.commit = () => {
        if (mf.pendingBytes() > 0) counter.writes++;
        return commit();
      };
      return mf;
    };
    for (const f of mfq.files) wrap(f);
    mfq.getLastMappedFileOrCreate = async (o: number) => wrap(await getLast(o));
  }
  return counter;
}

describe('store: the ASYNC_FLUSH append path (early writes, reused segments, cached encodings)', function () {
  this.timeout(60000);
  const { open } = storePerTest();

  it('crc32 (native and table) equals the BODYCRC Java 4.9.8 stored for every record of the golden commit log', async () => {
    expect(['@node-rs/crc32', 'zlib', 'table']).to.include(crc32Implementation());
    const file = path.join(goldenPath('store-4.9.8'), 'store', 'commitlog', '00000000000000000000');
    const log = await fs.readFile(file);
    let pos = 0;
    let records = 0;
    while (pos + 8 <= log.length) {
      const size = log.readInt32BE(pos);
      const magic = log.readInt32BE(pos + 4);
      if (magic === BLANK_MAGIC_CODE || size <= 0 || magic !== MESSAGE_MAGIC_CODE) break;
      const rec = log.subarray(pos, pos + size);
      const { body } = decodeRecord(rec);
      expect(crc32(body), `record at ${pos}`).to.equal(rec.readInt32BE(8));
      expect(crc32Table(body) & 0x7fffffff, `table, record at ${pos}`).to.equal(rec.readInt32BE(8));
      records++;
      pos += size;
    }
    expect(records).to.be.greaterThan(50);
  });

  for (const transientStorePoolEnable of [true, false]) {
    it(`each ASYNC_FLUSH put resolves only once its record was handed to the OS, with many puts in flight (${transientStorePoolEnable ? 'write segments' : 'mapped'})`, async () => {
      const s = await open({ commitCommitLogLeastPages: 1, transientStorePoolEnable });
      await checkEveryPutCommitted(s);
    });
  }

  async function checkEveryPutCommitted(s: DefaultMessageStore): Promise<void> {
    const body = Buffer.alloc(900, 3);
    const checks: Promise<void>[] = [];
    let late = 0;
    for (let i = 0; i < 600; i++) {
      checks.push(s.putMessage(makeMessage('T', i % 4, body, { TAGS: 'a' })).then((r) => {
        expect(r.putMessageStatus).to.equal(PutMessageStatus.PUT_OK);
        const a = r.appendMessageResult!;
        if (s.commitLog.mappedFileQueue.getCommittedWhere() < a.wroteOffset + a.wroteBytes) late++;
      }));
    }
    await Promise.all(checks);
    expect(late).to.equal(0);
  }

  it('a list longer than commitCommitLogLeastPages starts going to the OS while it is encoded; queues keep their order and offsets', async () => {
    // write segments: the early writes are theirs (a map has nothing to write)
    const s = await open({ commitCommitLogLeastPages: 2, transientStorePoolEnable: true });
    await s.putMessage(makeMessage('other', 0, 'first')); // the first file exists: the list is encoded synchronously
    const counter = countCommits(s);
    const msgs = Array.from({ length: 400 }, (_, i) => makeMessage('L', i % 4, Buffer.alloc(1000, i % 251), { KEYS: `k${i}` }));
    const put = s.putMessageList(msgs);
    // The first write began while the list was being encoded (before putMessageList returned).
    expect(counter.writes).to.be.at.least(1);
    const rs = await put;
    expect(rs.every((r) => r.putMessageStatus === PutMessageStatus.PUT_OK)).to.equal(true);
    const end = Math.max(...rs.map((r) => r.appendMessageResult!.wroteOffset + r.appendMessageResult!.wroteBytes));
    expect(s.commitLog.mappedFileQueue.getCommittedWhere()).to.be.at.least(end);
    const check = async (st: DefaultMessageStore) => {
      for (let q = 0; q < 4; q++) {
        expect(st.getMaxOffsetInQueue('L', q)).to.equal(100);
        let off = 0;
        while (off < 100) {
          const r = await st.getMessage('G', 'L', q, off, 16);
          for (const m of r.messages) {
            const rec = decodeRecord(m);
            expect(rec.queueOffset).to.equal(off);
            expect(rec.properties.KEYS).to.equal(`k${off * 4 + q}`);
            off++;
          }
        }
      }
    };
    await check(s);
    await s.shutdown();
    await check(await open({ commitCommitLogLeastPages: 2, transientStorePoolEnable: true }));
  });

  it('a record read while still in a write segment keeps its bytes after that segment is written and reused', async () => {
    const s = await open({ writeSegmentSize: 16 * 1024, commitCommitLogLeastPages: 1, transientStorePoolEnable: true });
    const first = await s.putMessage(makeMessage('R', 0, Buffer.alloc(3000, 0xaa)));
    const a = first.appendMessageResult!;
    // Appended but not yet written: served from the segment.
    const put = s.putMessage(makeMessage('R', 0, Buffer.alloc(3000, 0xbb)));
    const b = (await s.commitLog.mappedFileQueue.getLastMappedFile()!.read(a.wroteOffset + a.wroteBytes, a.wroteBytes))!;
    const copy = Buffer.from(b);
    await put;
    // Many more segments fill, go to the OS and are reused.
    await s.putMessageList(Array.from({ length: 200 }, () => makeMessage('R', 1, Buffer.alloc(3000, 0xcc))));
    expect(b.equals(copy)).to.equal(true);
    expect(decodeRecord(b).body.equals(Buffer.alloc(3000, 0xbb))).to.equal(true);
    const again = await s.lookMessageByOffset(a.wroteOffset + a.wroteBytes);
    expect(again!.equals(copy)).to.equal(true);
  });

  it('alternating properties strings: each record carries its own properties, tags code and keys; msgId names the offset', async () => {
    const s = await open({ messageIndexEnable: true });
    const kinds: Record<string, string>[] = [{ TAGS: 'a' }, { TAGS: 'a' }, { TAGS: 'bé', KEYS: 'x y' }, {}, { TAGS: 'a' }, { KEYS: 'z' }, {}];
    const results: PutMessageResult[] = [];
    for (const props of kinds) results.push(await s.putMessage(makeMessage('P', 0, 'body', props)));
    const listed = await s.putMessageList(kinds.map((props) => makeMessage('P', 0, 'body', props)));
    results.push(...listed);
    const cq = s.findConsumeQueue('P', 0)!;
    for (let i = 0; i < results.length; i++) {
      const props = kinds[i % kinds.length];
      const a = results[i].appendMessageResult!;
      const rec = decodeRecord((await s.lookMessageByOffset(a.wroteOffset))!);
      expect(rec.properties, `record ${i}`).to.deep.equal(props);
      const entry = (await cq.getEntry(i))!;
      expect(entry.offset).to.equal(a.wroteOffset);
      expect(entry.tagsCode, `tags code ${i}`).to.equal(props.TAGS ? javaStringHashCode(props.TAGS) : 0);
      expect(decodeOffsetMessageId(a.msgId).offset).to.equal(a.wroteOffset);
      expect(a.msgId).to.match(/^[0-9A-F]{32}$/);
    }
    const byKey = await s.queryMessage('P', 'x', 32, 0, Date.now() + 1000);
    expect(byKey.messages).to.have.length(2);
  });
});

describe('store: stored-record helpers used by the append path', () => {
  it('readI64 reads what the append path writes for offsets past 2^32 and negative values', async () => {
    const dir = await tempDir();
    const s = new DefaultMessageStore({ ...SMALL, storePathRootDir: dir });
    try {
      await s.start();
      const r = await s.putMessage({ ...makeMessage('N', 0, 'x'), bornTimestamp: 2 ** 40 + 5, preparedTransactionOffset: -1 });
      const rec = (await s.lookMessageByOffset(r.appendMessageResult!.wroteOffset))!;
      expect(readI64(rec, 40)).to.equal(2 ** 40 + 5);
      const prepared = rec.length - (4 + 1 + 1 + 1 + 2) - 8; // body length, body, topic length, topic, properties length
      expect(readI64(rec, prepared)).to.equal(-1);
    } finally {
      await s.shutdown();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
