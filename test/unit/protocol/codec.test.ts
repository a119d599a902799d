import { expect } from 'chai';
import { decodePayload, encodeFrame, encodeHeaderFrame } from '../../../protocol/codec';
import { RemotingCommand, SerializeType } from '../../../protocol/remoting-command';

function command(serializeType: SerializeType): RemotingCommand {
  return new RemotingCommand({
    code: 310, language: 'JAVA', version: 409, opaque: 7, flag: 0, remark: 'rémark ✓',
    extFields: { a: 'PG', b: 'Tøpic', k: 'false', empty: '' }, body: Buffer.from('hello body'), serializeType,
  });
}

describe('protocol/codec: pure, single-buffer frame codec', () => {
  for (const [name, type] of Object.entries(SerializeType)) {
    it(`${name}: EncodeOptions change the frame, never the command`, () => {
      const cmd = command(type);
      const other = type === SerializeType.JSON ? SerializeType.ROCKETMQ : SerializeType.JSON;
      const frame = cmd.encode({ opaque: 99, flag: 2, language: 'GO', serializeType: other });
      expect(cmd.opaque).to.equal(7);
      expect(cmd.flag).to.equal(0);
      expect(cmd.language).to.equal('JAVA');
      expect(cmd.serializeType).to.equal(type);
      const back = RemotingCommand.decodeFrame(frame);
      expect(back.opaque).to.equal(99);
      expect(back.flag).to.equal(2);
      expect(back.language).to.equal('GO');
      expect(back.serializeType).to.equal(other);
      expect(back.remark).to.equal('rémark ✓');
      expect(back.extFields).to.deep.equal(cmd.extFields);
      expect(back.body!.toString()).to.equal('hello body');
    });

    it(`${name}: the same bytes as a command built with those values, and the head is a prefix of the frame`, () => {
      const cmd = command(type);
      const built = new RemotingCommand({ ...cmd, opaque: 99, flag: 2, language: 'GO' });
      built.serializeType = type;
      const frame = cmd.encode({ opaque: 99, flag: 2, language: 'GO' });
      expect(frame.equals(built.encode())).to.equal(true);
      const head = encodeHeaderFrame(cmd, { opaque: 99, flag: 2, language: 'GO' });
      expect(Buffer.concat([head, cmd.body!]).equals(frame)).to.equal(true);
      expect(frame.readInt32BE(0)).to.equal(frame.length - 4);
      expect(frame.readInt32BE(4) >>> 24).to.equal(type);
    });

    it(`${name}: gathered body parts are copied after the header in order`, () => {
      const cmd = command(type).setBodyParts([Buffer.from('ab'), Buffer.from('cde')]);
      const frame = encodeFrame(cmd);
      const back = decodePayload(frame.subarray(4));
      expect(back.body!.toString()).to.equal('abcde');
      expect(frame.readInt32BE(0)).to.equal(frame.length - 4);
    });
  }

  it('JSON header of a command with no extFields and no remark leaves both out', () => {
    const frame = new RemotingCommand({ code: 34 }).encode({ opaque: 3 });
    const header = frame.subarray(8).toString('utf8');
    expect(header).to.equal('{"code":34,"flag":0,"language":"JAVA","opaque":3,"serializeTypeCurrentRPC":"JSON","version":409}');
  });
});

describe('protocol/serializer/rocketmq: short-string fast paths', () => {
  const roundTrip = (extFields: Record<string, string>, remark: string | null = null): RemotingCommand => {
    const cmd = new RemotingCommand({ code: 310, remark, extFields, serializeType: SerializeType.ROCKETMQ });
    const frame = cmd.encode({ opaque: 1 });
    // the byte lengths written must be UTF-8's, whatever path wrote them
    const back = RemotingCommand.decodeFrame(frame);
    expect(back.remark).to.equal(remark);
    expect(back.extFields).to.deep.equal(extFields);
    return back;
  };

  it('non-ASCII keys and values at, below and above the short-string length come back whole', () => {
    const values: Record<string, string> = {};
    const samples = ['', 'a', 'é', 'aé', 'x'.repeat(31) + 'é', 'x'.repeat(32), 'x'.repeat(33), 'y'.repeat(31) + '✓', '主题', '😀', 'ab😀cd', `${'z'.repeat(40)}é`];
    samples.forEach((v, i) => { values[`k${i}${v.length < 3 ? v : ''}`] = v; });
    roundTrip(values, 'rémark ✓');
    roundTrip({ [`ключ`]: 'значение', a: '0', b: '1796113359971' });
  });

  it('strings read before never stand in for different bytes of the same length and shape', () => {
    // same length, first, middle and last byte: the one hash slot, different contents
    roundTrip({ topic: 'TopicAxxxB' });
    roundTrip({ topic: 'TopicAyyyB' });
    expect(roundTrip({ topic: 'TopicAxxxB', other: 'TopicAxyxB' }).extFields).to.deep.equal({ topic: 'TopicAxxxB', other: 'TopicAxyxB' });
    // invalid UTF-8 decodes to U+FFFD once, then again (never cached as the raw byte)
    const header = Buffer.from([0x01, 0x36, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]);
    const ext = Buffer.from([0x00, 0x01, 0x6b, 0x00, 0x00, 0x00, 0x01, 0x80]);
    const len = Buffer.alloc(4);
    len.writeInt32BE(ext.length);
    const h = Buffer.concat([header, len, ext]);
    const payload = Buffer.concat([Buffer.from([SerializeType.ROCKETMQ, 0, 0, h.length]), h]);
    for (let i = 0; i < 2; i++) expect(decodePayload(payload).extFields).to.deep.equal({ k: '\ufffd' });
  });
});

describe('protocol/serializer/json: strings as JSON.stringify writes them', () => {
  it('keys, values and remarks with quotes, backslashes, control and non-ASCII characters come back whole', () => {
    const extFields: Record<string, string> = {
      plain: 'TopicTest', quote: 'a"b', backslash: 'a\\b', ctl: 'a\u0001b\u0002', nonAscii: 'Tøpic', long: 'x'.repeat(65), del: 'a\u007fb', '"k"': 'v',
    };
    for (const remark of ['plain', 'say "hi"\n', 'x'.repeat(70)]) {
      const cmd = new RemotingCommand({ code: 310, remark, extFields, serializeType: SerializeType.JSON });
      const frame = cmd.encode({ opaque: 3 });
      const header = frame.subarray(8, 8 + (frame.readInt32BE(4) & 0xffffff)).toString('utf8');
      expect(JSON.parse(header).extFields).to.deep.equal(extFields);
      expect(header).to.include(`"extFields":${JSON.stringify(extFields)}`);
      const back = RemotingCommand.decodeFrame(frame);
      expect(back.remark).to.equal(remark);
      expect(back.extFields).to.deep.equal(extFields);
    }
  });
});
