import { expect } from 'chai';
import { FrameDecoder } from '../../../protocol/frame';
import { ProtocolError } from '../../../protocol/errors';
import { RemotingCommand, SerializeType } from '../../../protocol/remoting-command';
import { frameIndex, readFrame, scenarios } from '../../helpers/golden';

function frameOf(payload: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeInt32BE(payload.length);
  return Buffer.concat([len, payload]);
}

function collect(chunks: Buffer[], max?: number): Buffer[] {
  const out: Buffer[] = [];
  const d = new FrameDecoder((p) => out.push(Buffer.from(p)), max);
  for (const c of chunks) d.push(c);
  return out;
}

describe('protocol/frame FrameDecoder', () => {
  const a = frameOf(Buffer.from('0000hello'));
  const b = frameOf(Buffer.from('0000world!!'));
  const all = Buffer.concat([a, b, a]);

  it('splits frames delivered as one chunk', () => {
    expect(collect([all]).map(String)).to.deep.equal(['0000hello', '0000world!!', '0000hello']);
  });

  it('assembles frames delivered byte by byte', () => {
    const chunks = [...all].map((x) => Buffer.from([x]));
    expect(collect(chunks).map(String)).to.deep.equal(['0000hello', '0000world!!', '0000hello']);
  });

  it('handles two frames plus half a frame, then the rest', () => {
    const cut = a.length + b.length + 5;
    const out: string[] = [];
    const d = new FrameDecoder((p) => out.push(String(p)));
    d.push(all.subarray(0, cut));
    expect(out).to.deep.equal(['0000hello', '0000world!!']);
    expect(d.buffered).to.equal(5 - 4);
    d.push(all.subarray(cut));
    expect(out).to.have.length(3);
  });

  it('rejects negative and oversized lengths', () => {
    const neg = Buffer.alloc(8);
    neg.writeInt32BE(-5);
    expect(() => collect([neg])).to.throw(ProtocolError);
    const big = Buffer.alloc(8);
    big.writeInt32BE(16 * 1024 * 1024 + 1);
    expect(() => collect([big])).to.throw(ProtocolError, /exceeds/);
    expect(() => collect([a], 4)).to.throw(ProtocolError);
  });
});

describe('protocol/remoting-command', () => {
  it('round-trips both serializers', () => {
    for (const serializeType of [SerializeType.JSON, SerializeType.ROCKETMQ]) {
      const cmd = new RemotingCommand({
        code: 310, opaque: 7, flag: 2, remark: 'héllo', extFields: { a: 'G', b: 'Topic', g: '123' },
        body: Buffer.from('body'), serializeType,
      });
      const frames: Buffer[] = [];
      new FrameDecoder((p) => frames.push(p)).push(cmd.encode());
      const back = RemotingCommand.decode(frames[0]);
      expect(back).to.include({ code: 310, opaque: 7, flag: 2, remark: 'héllo', serializeType, language: 'JAVA' });
      expect(back.isOneway).to.equal(true);
      expect(back.extFields).to.deep.equal({ a: 'G', b: 'Topic', g: '123' });
      expect(String(back.body)).to.equal('body');
    }
  });

  it('rejects header lengths beyond the frame and unknown serialize types', () => {
    const p = Buffer.alloc(8);
    p.writeInt32BE(100, 0);
    expect(() => RemotingCommand.decode(p)).to.throw(ProtocolError, /header length/);
    p.writeInt32BE((5 << 24) | 2, 0);
    expect(() => RemotingCommand.decode(p)).to.throw(ProtocolError, /serialize type/);
  });

  it('decodes every frame captured from Java 4.9.8 / 5.3.3 and re-encodes it to the same values', () => {
    let count = 0;
    for (const scenario of scenarios()) {
      for (const entry of frameIndex(scenario)) {
        const cmd = RemotingCommand.decodeFrame(readFrame(scenario, entry.file));
        expect(cmd.serializeType, entry.file).to.equal(entry.serializeType === 'JSON' ? 0 : 1);
        expect(cmd.code, entry.file).to.equal(entry.header.code);
        expect(cmd.opaque, entry.file).to.equal(entry.header.opaque);
        expect(cmd.body ? cmd.body.length : 0, entry.file).to.equal(entry.bodyLength);
        const again = RemotingCommand.decodeFrame(cmd.encode());
        expect(again.extFields ?? {}, entry.file).to.deep.equal(cmd.extFields ?? {});
        expect(again.remark, entry.file).to.equal(cmd.remark);
        count++;
      }
    }
    expect(count).to.be.greaterThan(100);
  });
});
