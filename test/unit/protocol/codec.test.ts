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
