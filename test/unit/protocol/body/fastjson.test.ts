import { expect } from 'chai';
import { ProtocolError } from '../../../../protocol/errors';
import {
  FastjsonMap, fastjsonString, javaDouble, javaDoubleString, parseFastjson, toFastjson,
} from '../../../../protocol/body/fastjson';

describe('protocol/body/fastjson', () => {
  it('parses standard JSON into plain objects', () => {
    expect(parseFastjson(' {"a":[1,-2.5,true,false,null,"x\\u0041\\n"],"b":{}} ')).to.deep.equal({
      a: [1, -2.5, true, false, null, 'xA\n'],
      b: {},
    });
  });

  it('parses unquoted integer keys into a FastjsonMap', () => {
    const v = parseFastjson('{"brokerAddrs":{0:"127.0.0.1:20911",1:"127.0.0.1:20931"}}') as { brokerAddrs: FastjsonMap };
    expect(v.brokerAddrs).to.be.instanceOf(FastjsonMap);
    expect(v.brokerAddrs.entries).to.deep.equal([[0, '127.0.0.1:20911'], [1, '127.0.0.1:20931']]);
  });

  it('parses object keys into a FastjsonMap', () => {
    const v = parseFastjson('{{"brokerName":"b","queueId":0,"topic":"T"}:{"x":1}}') as FastjsonMap;
    expect(v.entries).to.deep.equal([[{ brokerName: 'b', queueId: 0, topic: 'T' }, { x: 1 }]]);
  });

  it('keeps integers beyond 2^53 exact as bigint', () => {
    expect(parseFastjson('[9007199254740991,9007199254740993,-9223372036854775808]')).to.deep.equal([
      9007199254740991, 9007199254740993n, -9223372036854775808n,
    ]);
    expect(toFastjson([9223372036854775807n])).to.equal('[9223372036854775807]');
    expect(toFastjson([9223372036854775807n], { browserCompatible: true })).to.equal('["9223372036854775807"]');
  });

  it('treats a __proto__ key as data', () => {
    const v = parseFastjson('{"__proto__":{"polluted":1}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).to.equal(Object.prototype);
    expect(Object.keys(v)).to.deep.equal(['__proto__']);
  });

  for (const bad of ['', '{', '{"a":1,}', '{"a" 1}', '[1,2', '"abc', '{"a":tru}', '{"a":1}x', '-', '1.', '"\\q"', '{"a":01e}']) {
    it(`rejects malformed input ${JSON.stringify(bad)} with ProtocolError`, () => {
      expect(() => parseFastjson(bad)).to.throw(ProtocolError);
    });
  }

  it('writes beans with sorted fields and no nulls, maps in order with bare non-string keys', () => {
    const m = new Map<unknown, unknown>([[1, 'b'], [0, 'a'], [2, null]]);
    expect(toFastjson({ z: 1, a: null, m, b: [true, null], s: new Set(['x']) })).to.equal(
      '{"b":[true,null],"m":{1:"b",0:"a"},"s":["x"],"z":1}');
    const om = new FastjsonMap([[{ topic: 'T', queueId: 0, brokerName: 'b' }, 5]]);
    expect(toFastjson(om)).to.equal('{{"brokerName":"b","queueId":0,"topic":"T"}:5}');
  });

  it('writes maps BrowserCompatible-sorted with quoted keys', () => {
    const m = new Map<number, string>([[1, 'b'], [0, 'a']]);
    expect(toFastjson({ m }, { browserCompatible: true, mapSortField: true })).to.equal('{"m":{"0":"a","1":"b"}}');
  });

  it('escapes strings as fastjson does', () => {
    expect(fastjsonString('a"b\\c\n\t\u0001\u007f\u00a0é/')).to.equal('"a\\"b\\\\c\\n\\t\\u0001\\u007F\u00a0é/"');
    expect(fastjsonString('é/', true)).to.equal('"\\u00E9\\/"');
    expect(parseFastjson(fastjsonString('a"b\\c\n\t\u0001\u007f'))).to.equal('a"b\\c\n\t\u0001\u007f');
  });

  it('spells doubles as Java Double.toString', () => {
    expect(javaDoubleString(0)).to.equal('0.0');
    expect(javaDoubleString(4)).to.equal('4.0');
    expect(javaDoubleString(0.5)).to.equal('0.5');
    expect(javaDoubleString(1e7)).to.equal('1.0E7');
    expect(javaDoubleString(1.5e-4)).to.equal('1.5E-4');
    expect(javaDoubleString(123456.789)).to.equal('123456.789');
    expect(toFastjson({ tps: javaDouble(2) })).to.equal('{"tps":2.0}');
  });
});
