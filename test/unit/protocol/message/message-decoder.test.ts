import { expect } from 'chai';
import { ProtocolError, RocketMQError } from '../../../../protocol/errors';
import {
  BLANK_MAGIC_CODE, MESSAGE_MAGIC_CODE, MESSAGE_MAGIC_CODE_V2, MessageSysFlag, bodyCrc32, compressBody, decodeMessage,
  decodeMessages, encodeStoredMessage, peekMessage, readMagicCode, type MessageExt,
} from '../../../../protocol/message/index';
import { CONSUMER_ADDED, capturedPairs, capturedPulls, loadJavaView, readCommitLog, type ExpectedMessage } from './golden-messages';

/** The commit log record by record, up to the blank filler or the unwritten (zero) tail. */
function walkCommitLog(buf: Buffer): { offset: number; msg: MessageExt }[] {
  const out: { offset: number; msg: MessageExt }[] = [];
  let offset = 0;
  while (offset + 8 <= buf.length) {
    const magic = readMagicCode(buf, offset);
    if (magic === BLANK_MAGIC_CODE || buf.readInt32BE(offset) === 0) break;
    const msg = decodeMessage(buf, offset, { checkCRC: true });
    out.push({ offset, msg });
    offset += msg.storeSize;
  }
  return out;
}

function checkAgainstJava(msg: MessageExt, e: ExpectedMessage): void {
  expect(msg.topic).to.equal(e.topic);
  expect(msg.queueId, `${e.msgId} queueId`).to.equal(e.queueId);
  expect(msg.queueOffset, `${e.msgId} queueOffset`).to.equal(e.queueOffset);
  expect(msg.msgId).to.equal(e.msgId);
  expect(msg.properties.TAGS).to.equal(e.tags);
  expect(msg.properties.KEYS?.split(' ').join(',')).to.equal(e.keys);
  expect(msg.body.length).to.equal(e.bodyLength);
  expect(msg.body.toString('utf8')).to.equal(e.body);
  expect(msg.reconsumeTimes).to.equal(e.reconsumeTimes);
  const expectedProps = { ...e.properties };
  for (const k of CONSUMER_ADDED) delete expectedProps[k];
  expect(msg.properties).to.deep.equal(expectedProps);
}

describe('protocol/message message-decoder', () => {
  const javaView = loadJavaView();
  const commitLog = readCommitLog();
  const records = walkCommitLog(commitLog);

  describe('the 4.9.8 commit log', () => {
    it('decodes every record with a valid CRC and consecutive offsets', () => {
      expect(records.length).to.be.greaterThan(50);
      let expectedOffset = 0;
      for (const { offset, msg } of records) {
        expect(offset).to.equal(expectedOffset);
        expect(msg.commitLogOffset).to.equal(offset);
        expect(msg.storeHost).to.deep.equal({ address: '127.0.0.1', port: 20911 });
        expect(msg.offsetMsgId).to.have.length(32);
        expect(msg.bodyCRC).to.be.at.least(0); // masked with 0x7FFFFFFF
        expectedOffset += msg.storeSize;
      }
      // what follows the last record is the unwritten tail of the mapped file
      expect(commitLog.subarray(expectedOffset, expectedOffset + 64).every((b) => b === 0)).to.equal(true);
    });

    it('matches what the Java consumer received, message by message', () => {
      let matched = 0;
      for (const { msg } of records) {
        const e = javaView.get(`${msg.topic}/${msg.msgId}`);
        if (!e) continue;
        checkAgainstJava(msg, e);
        matched++;
      }
      expect(matched).to.equal(javaView.size);
    });

    it('decodes the 8 KiB zlib-compressed message (sysFlag 769)', () => {
      const big = records.find((r) => r.msg.sysFlag === 769)!.msg;
      expect(big.sysFlag & MessageSysFlag.COMPRESSED_FLAG).to.equal(1);
      expect(big.sysFlag & MessageSysFlag.COMPRESSION_TYPE_COMPARATOR).to.equal(MessageSysFlag.COMPRESSION_ZLIB_TYPE);
      expect(big.body.length).to.equal(8192);
      expect(big.properties.TAGS).to.equal('Big');
      const raw = records.find((r) => r.msg.sysFlag === 769)!;
      const stored = decodeMessage(commitLog, raw.offset, { decompressBody: false });
      expect(stored.body.length).to.be.lessThan(8192);
      expect(bodyCrc32(stored.body)).to.equal(stored.bodyCRC); // CRC over the stored (compressed) bytes
    });

    it('decodes the UTF-8 tag, keys and body', () => {
      const m = records.find((r) => r.msg.properties.TAGS === 'T\u00e4\u4e2d')!.msg;
      expect(m.properties.KEYS).to.equal('k1 k2');
      expect(m.body.length).to.equal(23);
      expect(javaView.get(`CapTopic/${m.msgId}`)!.body).to.equal(m.body.toString('utf8'));
    });

    it('peeks the routing fields without a full decode', () => {
      for (const { offset, msg } of records) {
        const p = peekMessage(commitLog, offset);
        expect(p).to.include({
          storeSize: msg.storeSize, topic: msg.topic, queueId: msg.queueId, queueOffset: msg.queueOffset,
          commitLogOffset: msg.commitLogOffset, sysFlag: msg.sysFlag, storeTimestamp: msg.storeTimestamp,
        });
        expect(p.tags).to.equal(msg.properties.TAGS);
      }
    });

    it('re-encodes every record to the same bytes', () => {
      for (const { offset, msg } of records) {
        const raw = decodeMessage(commitLog, offset, { decompressBody: false });
        const again = encodeStoredMessage({ ...raw, properties: peekMessage(commitLog, offset).propertiesString });
        expect(again.equals(commitLog.subarray(offset, offset + msg.storeSize)), `record at ${offset}`).to.equal(true);
      }
    });
  });

  describe('PULL_MESSAGE response bodies', () => {
    for (const scenario of ['03-consume', '07-rocketmq-binary-header']) {
      it(`${scenario}: decode to what the Java consumer received and to the stored records`, () => {
        const pulls = capturedPulls(scenario);
        expect(pulls.length).to.be.greaterThan(0);
        const stored = new Map(records.map((r) => [r.msg.commitLogOffset, r.msg]));
        let n = 0;
        for (const p of pulls) {
          const msgs = decodeMessages(p.response.body!, { checkCRC: true });
          expect(msgs.length).to.be.greaterThan(0);
          const q = Number(p.request.extFields!.queueOffset);
          const total = msgs.reduce((s, m) => s + m.storeSize, 0);
          expect(total).to.equal(p.response.body!.length);
          for (const m of msgs) {
            expect(m.topic).to.equal(p.request.extFields!.topic);
            expect(m.queueId).to.equal(Number(p.request.extFields!.queueId));
            expect(m.queueOffset).to.be.at.least(q);
            expect(m.msgId).to.equal(m.properties.UNIQ_KEY);
            const s = stored.get(m.commitLogOffset);
            if (s && s.msgId === m.msgId) {
              expect(m.offsetMsgId).to.equal(s.offsetMsgId);
              expect(m.properties).to.deep.equal(s.properties);
            }
            const e = javaView.get(`${m.topic}/${m.msgId}`);
            if (e) {
              checkAgainstJava(m, e);
              n++;
            }
          }
        }
        expect(n).to.be.greaterThan(0);
      });
    }

    it('10-java5-broker: decodes the 5.3.3 broker records (CRC, sizes, UNIQ_KEY msgId)', () => {
      const pulls = capturedPulls('10-java5-broker');
      expect(pulls.length).to.be.greaterThan(0);
      for (const p of pulls) {
        const body = p.response.body!;
        const msgs = decodeMessages(body, { checkCRC: true });
        expect(msgs.reduce((s, m) => s + m.storeSize, 0)).to.equal(body.length);
        for (const m of msgs) {
          expect([MESSAGE_MAGIC_CODE, MESSAGE_MAGIC_CODE_V2]).to.include(readMagicCode(body, 0));
          expect(m.topic).to.equal(p.request.extFields!.topic);
          expect(m.msgId).to.equal(m.properties.UNIQ_KEY ?? m.offsetMsgId);
          expect(m.offsetMsgId).to.have.length(32);
        }
      }
    });

    it('send responses carry the offset msgIds of the stored records', () => {
      const stored = new Map(records.map((r) => [r.msg.offsetMsgId, r.msg]));
      let seen = 0;
      for (const code of [310, 320]) {
        for (const p of capturedPairs('02-produce', code)) {
          const ids = p.response.extFields?.msgId;
          if (!ids) continue;
          for (const id of ids.split(',')) {
            const m = stored.get(id);
            expect(m, id).to.not.equal(undefined);
            expect(m!.topic === p.request.extFields!.b || m!.properties.REAL_TOPIC === p.request.extFields!.b).to.equal(true);
            seen++;
          }
        }
      }
      expect(seen).to.be.greaterThan(20);
    });
  });

  describe('encode and decode', () => {
    const base = {
      topic: 'T', flag: 7, properties: { TAGS: 'a', UNIQ_KEY: 'ABC', k: 'v' }, body: Buffer.from('hello'), queueId: 3,
      queueOffset: 2 ** 40 + 5, commitLogOffset: 2 ** 45 + 17, bornTimestamp: 1795936597241,
      bornHost: { address: '10.0.0.1', port: 50000 }, storeTimestamp: 1795936597242,
      storeHost: { address: '127.0.0.1', port: 10911 }, reconsumeTimes: 2, preparedTransactionOffset: 99,
    };

    it('round-trips a V1 record with IPv4 hosts', () => {
      const buf = encodeStoredMessage(base);
      const m = decodeMessage(buf);
      expect(m).to.deep.include({ ...base, sysFlag: 0, storeSize: buf.length, msgId: 'ABC', bodyCRC: bodyCrc32(base.body) });
      expect(decodeMessage(buf, 0, { clientMsgId: false }).msgId).to.equal(m.offsetMsgId);
    });

    it('round-trips IPv6 hosts (sysFlag 0x10 / 0x20) and the 5.x V2 magic', () => {
      const buf = encodeStoredMessage({
        ...base, magicCode: MESSAGE_MAGIC_CODE_V2,
        bornHost: { address: 'fd00::2', port: 1 }, storeHost: { address: '::1', port: 10911 },
      });
      expect(buf.readInt32BE(4)).to.equal(MESSAGE_MAGIC_CODE_V2);
      const m = decodeMessage(buf);
      expect(m.sysFlag).to.equal(0x30);
      expect(m.bornHost).to.deep.equal({ address: 'fd00:0:0:0:0:0:0:2', port: 1 });
      expect(m.storeHost).to.deep.equal({ address: '0:0:0:0:0:0:0:1', port: 10911 });
      expect(m.offsetMsgId).to.have.length(56);
      expect(m.topic).to.equal('T');
      expect(m.queueOffset).to.equal(base.queueOffset);
      expect(m.commitLogOffset).to.equal(base.commitLogOffset);
    });

    it('inflates a zlib body; a zlib body flagged LZ4 or ZSTD is a clear error (their own: compression-codecs.test.ts)', () => {
      const body = Buffer.alloc(10000, 'x');
      const zipped = compressBody(body);
      const plain = decodeMessage(encodeStoredMessage({ ...base, body: zipped, sysFlag: 0x301 }));
      expect(plain.body.equals(body)).to.equal(true);
      expect(decodeMessage(encodeStoredMessage({ ...base, body: zipped, sysFlag: 0x1 })).body.equals(body)).to.equal(true);
      for (const flag of [0x101, 0x201]) {
        const buf = encodeStoredMessage({ ...base, body: zipped, sysFlag: flag });
        // Not an LZ4 / Zstandard frame: a ProtocolError, or the missing optional codec's error where it is absent.
        expect(() => decodeMessage(buf)).to.throw(RocketMQError, /cannot decompress (LZ4|ZSTD) message body|optional dependency/);
        expect(decodeMessage(buf, 0, { decompressBody: false }).body.equals(zipped)).to.equal(true);
      }
    });

    it('skips the body when asked', () => {
      const m = decodeMessage(encodeStoredMessage(base), 0, { readBody: false });
      expect(m.body.length).to.equal(0);
      expect(m.properties.TAGS).to.equal('a');
    });

    it('raises ProtocolError for truncated records, bad magic, the blank filler and a bad CRC', () => {
      const buf = encodeStoredMessage(base);
      expect(() => decodeMessages(buf.subarray(0, buf.length - 1))).to.throw(ProtocolError);
      expect(() => decodeMessages(Buffer.concat([buf, buf.subarray(0, 30)]))).to.throw(ProtocolError, /truncated/);
      const bad = Buffer.from(buf);
      bad.writeInt32BE(12345, 4);
      expect(() => decodeMessage(bad)).to.throw(ProtocolError, /magic/);
      bad.writeInt32BE(BLANK_MAGIC_CODE, 4);
      expect(() => decodeMessage(bad)).to.throw(ProtocolError, /magic/);
      const crc = Buffer.from(buf);
      crc.writeInt32BE(1, 8);
      expect(() => decodeMessage(crc, 0, { checkCRC: true })).to.throw(ProtocolError, /CRC/);
      const size = Buffer.from(buf);
      size.writeInt32BE(buf.length - 1, 0);
      expect(() => decodeMessage(size)).to.throw(ProtocolError);
    });

    it('decodes several records back to back', () => {
      const a = encodeStoredMessage(base);
      const b = encodeStoredMessage({ ...base, queueOffset: 6, commitLogOffset: base.commitLogOffset + a.length });
      const msgs = decodeMessages(Buffer.concat([a, b]));
      expect(msgs.map((m) => m.queueOffset)).to.deep.equal([base.queueOffset, 6]);
      expect(decodeMessages(Buffer.alloc(0))).to.deep.equal([]);
    });
  });
});
