import { expect } from 'chai';
import { ProtocolError, RocketMQError } from '../../../../protocol/errors';
import {
  UniqIdGenerator, bodyCrc32, compressBody, configureUniqIdGenerator, createMessage, createOffsetMessageId, createUniqId,
  crc32, decodeBatchBody, decodeOffsetMessageId, encodeBatchBody, getDelayTimeLevel, getIPFromID, getIPStrFromID,
  getKeyList, getNearlyTimeFromID, getPidFromID, getTags, getUserProperties, isWaitStoreMsgOK, javaStringHashCode,
  parseSocketAddress, propertiesToString, putUserProperty, setDelayTimeLevel, stringToProperties, uncompressBody,
} from '../../../../protocol/message/index';
import { capturedPairs } from './golden-messages';

describe('protocol/message codecs', () => {
  describe('batch body (SEND_BATCH_MESSAGE)', () => {
    const [batch] = capturedPairs('02-produce', 320);

    it('decodes the 5 messages of the captured batch', () => {
      const entries = decodeBatchBody(batch.request.body!);
      expect(entries).to.have.length(5);
      entries.forEach((e, i) => {
        expect(e.flag).to.equal(0);
        expect(e.body.toString()).to.equal(`hello batch ${i}`);
        expect(e.properties).to.include({ KEYS: `bkey-${i}`, TAGS: 'TagB', WAIT: 'true' });
        expect(e.properties.UNIQ_KEY).to.have.length(56);
      });
      // the broker answered with one offset msgId per message
      expect(batch.response.extFields!.msgId.split(',')).to.have.length(5);
    });

    it('re-encodes it byte for byte (MAGICCODE and BODYCRC 0, no trailing separator)', () => {
      const body = batch.request.body!;
      expect(encodeBatchBody(decodeBatchBody(body)).equals(body)).to.equal(true);
      expect(body.readInt32BE(4)).to.equal(0);
      expect(body.readInt32BE(8)).to.equal(0);
    });

    it('refuses truncated bodies', () => {
      const body = batch.request.body!;
      expect(() => decodeBatchBody(body.subarray(0, body.length - 3))).to.throw(ProtocolError);
    });

    it('7-rocketmq-binary-header and 10-java5-broker batches decode too', () => {
      for (const sc of ['07-rocketmq-binary-header', '10-java5-broker']) {
        const [p] = capturedPairs(sc, 320);
        const entries = decodeBatchBody(p.request.body!);
        expect(entries.length).to.be.greaterThan(1);
        expect(encodeBatchBody(entries).equals(p.request.body!)).to.equal(true);
      }
    });
  });

  describe('properties', () => {
    it('writes Java\'s layout without a trailing separator and skips empty names or values when reading', () => {
      expect(propertiesToString({ a: '1', b: '2' })).to.equal('a\u00011\u0002b\u00012');
      expect(propertiesToString({})).to.equal('');
      expect(stringToProperties('a\u00011\u0002b\u00012\u0002')).to.deep.equal({ a: '1', b: '2' });
      expect(stringToProperties('\u0001x\u0002y\u0001\u0002z\u00013')).to.deep.equal({ z: '3' });
    });

    it('the SEND_MESSAGE_V2 properties field (i) of every captured send parses', () => {
      for (const p of capturedPairs('02-produce', 310)) {
        const props = stringToProperties(p.request.extFields!.i);
        expect(props.WAIT).to.equal('true');
        expect(propertiesToString(props)).to.equal(p.request.extFields!.i);
      }
    });
  });

  describe('offset msgId', () => {
    it('encodes and decodes the ids the 4.9.8 broker returned', () => {
      const ids = capturedPairs('02-produce', 310).map((p) => p.response.extFields?.msgId).filter((x): x is string => !!x);
      expect(ids.length).to.be.greaterThan(10);
      for (const id of ids) {
        const d = decodeOffsetMessageId(id);
        expect(d.address).to.equal('127.0.0.1');
        expect(d.port).to.equal(20911);
        expect(createOffsetMessageId(d.address, d.port, d.offset)).to.equal(id);
      }
      expect(createOffsetMessageId('127.0.0.1', 20911, 0x0e53)).to.equal('7F000001000051AF0000000000000E53');
    });

    it('handles IPv6 (56 hex characters) and large offsets', () => {
      const id = createOffsetMessageId('fd00::2', 10911, 2 ** 50 + 3);
      expect(id).to.have.length(56);
      expect(id).to.equal('FD000000000000000000000000000002' + '00002A9F' + '0004000000000003');
      expect(decodeOffsetMessageId(id)).to.deep.equal({ address: 'fd00:0:0:0:0:0:0:2', port: 10911, offset: 2 ** 50 + 3 });
      expect(decodeOffsetMessageId(id.toLowerCase()).offset).to.equal(2 ** 50 + 3);
      expect(() => decodeOffsetMessageId('ABC')).to.throw(ProtocolError);
      expect(() => createOffsetMessageId('host.example', 1, 0)).to.throw(ProtocolError);
    });
  });

  describe('unique id (UNIQ_KEY)', () => {
    const captured = 'FD00000000000000000000000000000271AC5FFD2B2791C1CCF80000';

    it('reads IP, pid and time of an id the Java client made (IPv6 host)', () => {
      expect(getIPFromID(captured).toString('hex')).to.equal('fd000000000000000000000000000002');
      expect(getIPStrFromID(captured)).to.equal('fd00:0000:0000:0000:0000:0000:0000:0002');
      expect(getPidFromID(captured)).to.equal(0x71ac);
      const born = 1795936597241; // BORNTIMESTAMP of that message in the store
      if (new Date(born).getTimezoneOffset() === 0 && new Date(born - 60 * 86400000).getTimezoneOffset() === 0) {
        // Java used its local month start; the captures were made in UTC
        const t = getNearlyTimeFromID(captured, born + 1000).getTime();
        expect(Math.abs(t - born)).to.be.lessThan(5000);
      }
    });

    it('generates ids with Java\'s layout and an incrementing counter', () => {
      const g = new UniqIdGenerator(Buffer.from([10, 1, 2, 3]), 0x1234, 0x5ffd2b27);
      const now = Date.UTC(2026, 10, 29, 8, 0, 0);
      const a = g.createUniqId(now);
      const b = g.createUniqId(now);
      expect(a).to.have.length(32);
      expect(a.startsWith('0A010203' + '1234' + '5FFD2B27')).to.equal(true);
      expect(b.slice(0, 28)).to.equal(a.slice(0, 28));
      expect(parseInt(b.slice(28), 16)).to.equal(parseInt(a.slice(28), 16) + 1);
      expect(getIPStrFromID(a)).to.equal('10.1.2.3');
      expect(getPidFromID(a)).to.equal(0x1234);
      expect(getNearlyTimeFromID(a, now + 10).getTime()).to.equal(now);
      const monthStart = new Date(new Date(now).getFullYear(), new Date(now).getMonth(), 1).getTime();
      expect(parseInt(a.slice(20, 28), 16)).to.equal(now - monthStart);
      const v6 = new UniqIdGenerator(Buffer.alloc(16, 0xab), 1, 2).createUniqId(now);
      expect(v6).to.have.length(56);
      expect(getPidFromID(v6)).to.equal(1);
    });

    it('the counter wraps at 16 bits', () => {
      const g = new UniqIdGenerator(Buffer.from([1, 2, 3, 4]), 1, 1);
      let last = '';
      for (let i = 0; i <= 0x10000; i++) last = g.createUniqId(1000);
      expect(last.slice(-4)).to.equal('0000');
    });

    it('createUniqId uses the process-wide generator', () => {
      configureUniqIdGenerator('192.168.1.9', 77);
      const id = createUniqId();
      expect(getIPStrFromID(id)).to.equal('192.168.1.9');
      expect(getPidFromID(id)).to.equal(77);
      expect(createUniqId()).to.not.equal(id);
    });
  });

  describe('Java String.hashCode', () => {
    it('matches values printed by javac-compiled Java 17', () => {
      expect(javaStringHashCode('TagA')).to.equal(2598919);
      expect(javaStringHashCode('TagB')).to.equal(2598920);
      expect(javaStringHashCode('')).to.equal(0);
      expect(javaStringHashCode('CapTopic')).to.equal(-14822243);
      // odd and even lengths, non-ASCII and long keys (values from Java's String.hashCode)
      expect(javaStringHashCode('a')).to.equal(97);
      expect(javaStringHashCode('abc')).to.equal(96354);
      expect(javaStringHashCode('hello world')).to.equal(1794106052);
      expect(javaStringHashCode('\u00e9t\u00e9')).to.equal(227742);
      expect(javaStringHashCode('TopicTest#7F00000100012A9F1B2C3D4E5F600001')).to.equal(1609222815);
      expect(javaStringHashCode('T\u00e4\u4e2d')).to.equal(107805);
      expect(javaStringHashCode('\ud83d\ude00emoji')).to.equal(-1233692477);
      expect(javaStringHashCode('order-0')).to.equal(-1207111311);
    });
  });

  describe('CRC and compression', () => {
    it('CRC-32 as java.util.zip.CRC32, masked as UtilAll.crc32', () => {
      expect(crc32(Buffer.from('123456789'))).to.equal(0xcbf43926);
      expect(bodyCrc32(Buffer.from('123456789'))).to.equal(0x4bf43926);
      expect(bodyCrc32(Buffer.from('hello sync 0'))).to.equal(414443440); // Java 17
      expect(bodyCrc32(Buffer.from('xx123456789yy'), 2, 11)).to.equal(0x4bf43926);
    });

    it('inflates the body of the captured compressed SEND_MESSAGE_V2 (sysFlag 769)', () => {
      const p = capturedPairs('02-produce', 310).find((x) => x.request.extFields!.f === '769')!;
      const body = uncompressBody(p.request.body!);
      expect(body.length).to.equal(8192);
      expect(body.subarray(0, 2).toString()).to.equal('0|');
      expect(uncompressBody(compressBody(body)).equals(body)).to.equal(true);
      expect(compressBody(body)[0]).to.equal(0x78); // zlib header, as Deflater
      expect(() => uncompressBody(Buffer.from('not zlib'))).to.throw(ProtocolError);
    });
  });

  describe('Message helpers', () => {
    it('mirror Java\'s Message accessors', () => {
      const m = createMessage('T', 'body', { tags: 'TagA', keys: ['k1', 'k2'] });
      expect(getTags(m)).to.equal('TagA');
      expect(m.properties.KEYS).to.equal('k1 k2');
      expect(getKeyList(m)).to.deep.equal(['k1', 'k2']);
      expect(isWaitStoreMsgOK(m)).to.equal(true);
      expect(m.properties.WAIT).to.equal('true');
      expect(getDelayTimeLevel(m)).to.equal(0);
      setDelayTimeLevel(m, 3);
      expect(m.properties.DELAY).to.equal('3');
      putUserProperty(m, 'color', 'red');
      expect(getUserProperties(m)).to.deep.equal({ color: 'red' });
      expect(() => putUserProperty(m, 'TAGS', 'x')).to.throw(RocketMQError, /used by system/);
      expect(() => putUserProperty(m, 'a', ' ')).to.throw(RocketMQError, /blank/);
      expect(m.body.toString()).to.equal('body');
    });

    it('parses socket addresses', () => {
      expect(parseSocketAddress('127.0.0.1:10911')).to.deep.equal({ address: '127.0.0.1', port: 10911 });
      expect(parseSocketAddress('[fd00::2]:1')).to.deep.equal({ address: 'fd00::2', port: 1 });
      expect(parseSocketAddress('/fd00:0:0:0:0:0:0:2:54321')).to.deep.equal({ address: 'fd00:0:0:0:0:0:0:2', port: 54321 });
      expect(() => parseSocketAddress('nohost')).to.throw(ProtocolError);
    });
  });
});
