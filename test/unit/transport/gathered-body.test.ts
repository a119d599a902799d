import net from 'node:net';
import { expect } from 'chai';
import { ResponseCode } from '../../../protocol/code/response-code';
import { RemotingCommand, SerializeType } from '../../../protocol/remoting-command';
import { RemotingClient } from '../../../lib/transport/remoting-client';
import { RemotingServer } from '../../../lib/transport/remoting-server';
import { setPullBody } from '../../../lib/broker/processor/pull-message-processor';
import { expectNoLeaks, tcpHandles } from './helpers';

const GATHER = 1100;

function parts(sizes: number[]): Buffer[] {
  // separate allocations, so no two parts are adjacent in memory
  return sizes.map((n, k) => Buffer.alloc(n, 65 + (k % 26)));
}

describe('lib/transport gathered bodies (RemotingCommand.bodyParts)', () => {
  it('encodes the same frame as the joined body, in both serialize types', () => {
    for (const serializeType of Object.values(SerializeType)) {
      const p = parts([3, 0, 70, 1]);
      const a = new RemotingCommand({ code: 11, serializeType, extFields: { x: '1' } }).setBodyParts(p);
      const b = new RemotingCommand({ code: 11, serializeType, extFields: { x: '1' }, body: Buffer.concat(p) });
      expect(a.body).to.equal(null);
      expect(a.bodyLength).to.equal(74);
      expect(a.encode().equals(b.encode())).to.equal(true);
      expect(a.encodeHeaderFrame().equals(b.encodeHeaderFrame())).to.equal(true);
      expect(a.joinedBody()!.equals(b.body!)).to.equal(true);
    }
    const empty = RemotingCommand.createRequest(1).setBodyParts([]);
    expect(empty.bodyParts).to.equal(null);
    expect(empty.encode().equals(RemotingCommand.createRequest(1).encode())).to.equal(true);
  });

  describe('over a socket', () => {
    let baseline: number;
    let server: RemotingServer;
    let client: RemotingClient;
    let addr: string;
    let served: Buffer[][] = [];
    const realWrite = net.Socket.prototype.write;
    let written: unknown[] = [];

    beforeEach(async () => {
      baseline = tcpHandles();
      served = [];
      written = [];
      server = new RemotingServer({ bindAddress: '127.0.0.1', listenPort: 0 });
      server.registerProcessor(GATHER, (req) => {
        const sizes = (req.extFields?.sizes ?? '').split(',').map(Number);
        const p = parts(sizes);
        served.push(p);
        return RemotingCommand.createResponse(req, ResponseCode.SUCCESS, null, { n: String(sizes.length) }).setBodyParts(p);
      });
      addr = `127.0.0.1:${await server.listen()}`;
      client = new RemotingClient();
      net.Socket.prototype.write = function (this: net.Socket, ...args: unknown[]) {
        written.push(args[0]);
        return (realWrite as (...a: unknown[]) => boolean).apply(this, args);
      } as typeof realWrite;
    });

    afterEach(async () => {
      net.Socket.prototype.write = realWrite;
      await client.shutdown();
      await server.shutdown();
      await expectNoLeaks(baseline);
    });

    it('writes every part as it is (no copy) and the peer reads their concatenation', async () => {
      const resp = await client.invoke(addr, RemotingCommand.createRequest(GATHER, { sizes: '10,200,3,4096' }), 3000);
      expect(resp.code).to.equal(ResponseCode.SUCCESS);
      expect(resp.extFields).to.deep.equal({ n: '4' });
      expect(resp.body!.equals(Buffer.concat(served[0]))).to.equal(true);
      for (const p of served[0]) expect(written.includes(p), 'the part itself reached socket.write').to.equal(true);
    });

    it('keeps frames whole and in order under backpressure (large parts, many responses at once)', async () => {
      const sizes = ['1048576,3,524288', '1,2,3', '2097152,65536'];
      const answers = await Promise.all(sizes.map((s) => client.invoke(addr, RemotingCommand.createRequest(GATHER, { sizes: s }), 10000)));
      answers.forEach((r, k) => {
        const expected = served.find((p) => p.map((b) => b.length).join(',') === sizes[k])!;
        expect(r.body!.equals(Buffer.concat(expected))).to.equal(true);
      });
    });
  });

  describe('setPullBody (pull responses)', () => {
    it('adjacent records become one view over the same memory', () => {
      const store = Buffer.from('aaaabbbbcccc');
      const r = RemotingCommand.createRequest(1);
      setPullBody(r, [store.subarray(0, 4), store.subarray(4, 8), store.subarray(8, 12)]);
      expect(r.bodyParts).to.equal(null);
      expect(r.body!.toString()).to.equal('aaaabbbbcccc');
      r.body![0] = 0x7a;
      expect(store[0]).to.equal(0x7a);
    });

    it('records from different buffers are kept as parts, not joined', () => {
      const p = parts([5, 6]);
      const r = RemotingCommand.createRequest(1);
      setPullBody(r, p);
      expect(r.body).to.equal(null);
      expect(r.bodyParts).to.have.length(2);
      expect(r.bodyParts![0]).to.equal(p[0]);
      expect(r.bodyParts![1]).to.equal(p[1]);
      const none = RemotingCommand.createRequest(1);
      setPullBody(none, []);
      expect(none.body).to.equal(null);
      expect(none.bodyParts).to.equal(null);
    });

    it('each run of adjacent records becomes one view, the rest stay parts, in order', () => {
      const store = Buffer.from('aaaabbbbccccddddeeee');
      const other = parts([3])[0];
      const r = RemotingCommand.createRequest(1);
      // a, b adjacent; then another buffer; then d (c skipped, as a filtered record); then e adjacent to d
      setPullBody(r, [store.subarray(0, 4), store.subarray(4, 8), other, store.subarray(12, 16), store.subarray(16, 20)]);
      expect(r.body).to.equal(null);
      expect(r.bodyParts!.map((b) => b.toString())).to.deep.equal(['aaaabbbb', 'AAA', 'ddddeeee']);
      expect(r.bodyParts![1]).to.equal(other);
      // views, not copies
      r.bodyParts![2][0] = 0x7a;
      expect(store[12]).to.equal(0x7a);
      expect(r.bodyLength).to.equal(19);
    });
  });
});
