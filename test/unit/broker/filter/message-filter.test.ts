import { expect } from 'chai';
import fs from 'node:fs';
import {
  CompiledExpressionCache,
  ExpressionMessageFilter,
  ExpressionType,
  isTagType,
} from '../../../../lib/broker/filter/message-filter';
import { FilterExpressionError } from '../../../../lib/broker/filter/filter-expression-error';
import { propertiesToString } from '../../../../protocol/message/properties';
import { javaStringHashCode } from '../../../../protocol/message/java-hash';
import { frameIndex, goldenPath, readFrame } from '../../../helpers/golden';

interface StoredRecord {
  topic: string;
  body: string;
  properties: string;
}

/** Walks stored message records (commit-log layout, as in a pull response body) just far enough for these tests. */
function readRecords(buf: Buffer): StoredRecord[] {
  const out: StoredRecord[] = [];
  let pos = 0;
  while (pos + 8 <= buf.length) {
    const total = buf.readInt32BE(pos);
    const magic = buf.readUInt32BE(pos + 4);
    if (total <= 0 || magic !== 0xdaa320a7) break;
    let p = pos + 4 + 4 + 4 + 4 + 4 + 8 + 8;
    const sysFlag = buf.readInt32BE(p);
    p += 4 + 8;
    p += sysFlag & 0x10 ? 20 : 8; // born host
    p += 8;
    p += sysFlag & 0x20 ? 20 : 8; // store host
    p += 4 + 8;
    const bodyLen = buf.readInt32BE(p);
    p += 4;
    const body = buf.subarray(p, p + bodyLen).toString('utf8');
    p += bodyLen;
    const topicLen = buf.readUInt8(p);
    p += 1;
    const topic = buf.subarray(p, p + topicLen).toString('utf8');
    p += topicLen;
    const propLen = buf.readInt16BE(p);
    p += 2;
    out.push({ topic, body, properties: buf.subarray(p, p + propLen).toString('utf8') });
    pos += total;
  }
  return out;
}

const CAPTURED_EXPRESSION = "a > 2 AND region = 'r1'";

describe('broker/filter/message-filter', () => {
  describe('SQL92 over the golden SqlTopic', () => {
    const commitLog = fs.readFileSync(goldenPath('store-4.9.8', 'store', 'commitlog', '00000000000000000000'));
    const sqlRecords = readRecords(commitLog).filter((r) => r.topic === 'SqlTopic');

    /** What Java 4.9.8's broker returned to the CG_SQL consumer (03-consume, its pull responses with messages). */
    function javaDelivered(): string[] {
      const bodies: string[] = [];
      for (const e of frameIndex('03-consume')) {
        if (!e.file.startsWith('20911-50342/') || e.dir !== 's2c' || e.header.code !== 0 || e.header.remark !== 'FOUND') continue;
        const frame = readFrame('03-consume', e.file);
        const body = frame.subarray(frame.length - e.bodyLength);
        for (const r of readRecords(body)) bodies.push(r.body);
      }
      return bodies.sort();
    }

    it('the captured consumer subscribed with the expression tested here', () => {
      const e = frameIndex('03-consume').find((x) => x.file === '20911-50342/0000-c2s-req46.bin');
      expect(e).to.exist;
      const frame = readFrame('03-consume', e!.file);
      expect(frame.subarray(frame.length - e!.bodyLength).toString('utf8')).to.contain(`"subString":"${CAPTURED_EXPRESSION}"`);
    });

    it(`selects from the stored SqlTopic exactly the messages Java delivered for ${CAPTURED_EXPRESSION}`, () => {
      expect(sqlRecords).to.have.length(6);
      const filter = ExpressionMessageFilter.create({ topic: 'SqlTopic', subString: CAPTURED_EXPRESSION, expressionType: 'SQL92' }, new CompiledExpressionCache());
      const matched = sqlRecords.filter((r) => filter.isMatchedByConsumeQueue(javaStringHashCode('S')) && filter.isMatchedByCommitLog(r.properties)).map((r) => r.body);
      expect(matched.sort()).to.deep.equal(['sql 3', 'sql 5']);
      expect(javaDelivered()).to.deep.equal(['sql 3', 'sql 5']);
    });

    it('the tag is the TAGS property for an SQL92 subscription', () => {
      const cache = new CompiledExpressionCache();
      const byTag = ExpressionMessageFilter.create({ subString: "TAGS = 'S' AND a >= 4", expressionType: 'SQL92' }, cache);
      expect(sqlRecords.filter((r) => byTag.isMatchedByCommitLog(r.properties)).map((r) => r.body).sort()).to.deep.equal(['sql 4', 'sql 5']);
      const otherTag = ExpressionMessageFilter.create({ subString: "TAGS IN ('T', 'U')", expressionType: 'SQL92' }, cache);
      expect(sqlRecords.some((r) => otherTag.isMatchedByCommitLog(r.properties))).to.equal(false);
    });
  });

  describe('tags', () => {
    const tagA = javaStringHashCode('TagA');
    const tagB = javaStringHashCode('TagB');
    const tagC = javaStringHashCode('TagC');

    it('matches the code set, everything for *, and entries without a tags code', () => {
      const f = new ExpressionMessageFilter({ subString: 'TagA || TagB', expressionType: 'TAG', codeSet: [tagA, tagB] });
      expect(f.isMatchedByConsumeQueue(tagA)).to.equal(true);
      expect(f.isMatchedByConsumeQueue(tagB)).to.equal(true);
      expect(f.isMatchedByConsumeQueue(tagC)).to.equal(false);
      expect(f.isMatchedByConsumeQueue(null)).to.equal(true);
      expect(f.isMatchedByCommitLog(propertiesToString({ TAGS: 'TagC' }))).to.equal(true); // tags are the consume queue's job
      const all = new ExpressionMessageFilter({ subString: '*', codeSet: [] });
      expect(all.isMatchedByConsumeQueue(tagC)).to.equal(true);
    });

    it("compares the 8-byte tags code as Java's intValue()", () => {
      const f = new ExpressionMessageFilter({ subString: 'TagA', expressionType: 'TAG', codeSet: [tagA] });
      const widened = BigInt(tagA) + (5n << 32n);
      expect(f.isMatchedByConsumeQueue(widened)).to.equal(true);
      expect(f.isMatchedByConsumeQueue(Number(widened))).to.equal(true);
    });

    it('no subscription and class-filter mode match everything', () => {
      expect(new ExpressionMessageFilter(null).isMatchedByConsumeQueue(tagC)).to.equal(true);
      expect(new ExpressionMessageFilter(null).isMatchedByCommitLog('')).to.equal(true);
      const cf = new ExpressionMessageFilter({ subString: 'x', expressionType: 'SQL92', classFilterMode: true });
      expect(cf.isMatchedByCommitLog(propertiesToString({ a: '1' }))).to.equal(true);
    });

    it('an SQL92 subscription is not filtered by tags codes (Java leaves that to a bloom filter)', () => {
      const f = ExpressionMessageFilter.create({ subString: 'a = 1', expressionType: 'SQL92', codeSet: [tagA] }, new CompiledExpressionCache());
      expect(f.isMatchedByConsumeQueue(tagC)).to.equal(true);
      expect(f.isMatchedByCommitLog(propertiesToString({ a: '1' }))).to.equal(true);
      expect(f.isMatchedByCommitLog(propertiesToString({ a: '2' }))).to.equal(false);
      expect(f.isMatchedByCommitLog(propertiesToString({ a: 'x' }))).to.equal(false); // evaluation error: not matched
      expect(f.isMatchedByCommitLog('')).to.equal(false);
      expect(f.isMatchedByCommitLog(null)).to.equal(false);
    });

    it('isTagType follows Java', () => {
      expect(isTagType(undefined)).to.equal(true);
      expect(isTagType('')).to.equal(true);
      expect(isTagType(ExpressionType.TAG)).to.equal(true);
      expect(isTagType(ExpressionType.SQL92)).to.equal(false);
    });
  });

  describe('CompiledExpressionCache', () => {
    it('compiles an expression once and keeps refusals', () => {
      const cache = new CompiledExpressionCache(2);
      const a = cache.get('a = 1');
      expect(cache.get('a = 1')).to.equal(a);
      expect(() => cache.get('a =')).to.throw(FilterExpressionError, 'Encountered "<EOF>" at line 1, column 3.');
      expect(() => cache.get('a =')).to.throw(FilterExpressionError);
      expect(cache.size).to.equal(2);
      cache.get('b = 1'); // evicts the least recently used ('a = 1')
      expect(cache.size).to.equal(2);
      expect(cache.get('a = 1')).to.not.equal(a);
    });

    it('create() refuses a bad expression and an unknown type', () => {
      const cache = new CompiledExpressionCache();
      expect(() => ExpressionMessageFilter.create({ subString: 'a > ', expressionType: 'SQL92' }, cache)).to.throw(FilterExpressionError);
      expect(() => ExpressionMessageFilter.create({ subString: 'x', expressionType: 'JSON' }, cache)).to.throw(FilterExpressionError, 'JSON');
    });
  });
});
