import net from 'node:net';
import { expect } from 'chai';
import { ResponseCode } from '../../../protocol/code/response-code';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { FrameDecoder } from '../../../protocol/frame';
import type { Connection } from '../../../lib/transport/connection';
import { RemotingClient } from '../../../lib/transport/remoting-client';
import { RemotingServer } from '../../../lib/transport/remoting-server';
import { RequestExecutor } from '../../../lib/transport/request-executor';
import { OVERLOAD_REMARK, REJECTREQUEST_REMARK } from '../../../lib/transport/processor';
import { ECHO, waitFor } from './helpers';

/** A raw client that writes `n` ECHO requests and does not read until told to. */
async function rawFlood(port: number, n: number): Promise<{ socket: net.Socket; responses: () => number }> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((r) => socket.once('connect', () => r()));
  socket.pause();
  let responses = 0;
  const decoder = new FrameDecoder(() => responses++);
  socket.on('data', (c: Buffer) => decoder.push(c));
  const frames: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    const cmd = RemotingCommand.createRequest(ECHO, { i: String(i) });
    cmd.opaque = i + 1;
    frames.push(cmd.encode());
  }
  socket.write(Buffer.concat(frames));
  return { socket, responses: () => responses };
}

describe('transport flow control: bounded requests and bytes', function () {
  this.timeout(20000);
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });

  function server(options: ConstructorParameters<typeof RemotingServer>[0]): RemotingServer {
    const s = new RemotingServer({ bindAddress: '127.0.0.1', listenPort: 0, ...options });
    cleanups.push(() => s.shutdown());
    return s;
  }
  function client(): RemotingClient {
    const c = new RemotingClient();
    cleanups.push(() => c.shutdown());
    return c;
  }

  it('bounds request body bytes in flight per channel and over the server (SYSTEM_BUSY [OVERLOAD] beyond)', async () => {
    const s = server({ serverChannelMaxInflightBytes: 10 * 1024, serverMaxInflightBytes: 14 * 1024 });
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    s.registerProcessor(ECHO, async (req) => {
      await gate;
      return RemotingCommand.createResponse(req, ResponseCode.SUCCESS, null);
    });
    const port = await s.listen();
    const addr = `127.0.0.1:${port}`;
    const a = client();
    const b = client();
    const body = Buffer.alloc(4 * 1024);
    // a: 4 + 4 KiB admitted, the third would make 12 KiB > 10 KiB on the channel.
    const fromA = [0, 1, 2].map(() => a.invoke(addr, RemotingCommand.createRequest(ECHO, {}, body), 5000));
    expect((await fromA[2]).remark).to.equal(OVERLOAD_REMARK);
    expect(s.inflightBytes).to.equal(8 * 1024);
    // b: 4 KiB fits the server's 14 KiB? 8 + 4 = 12: yes; the next one (16) does not.
    const b1 = b.invoke(addr, RemotingCommand.createRequest(ECHO, {}, body), 5000);
    await waitFor(() => s.inflightBytes === 12 * 1024);
    const b2 = await b.invoke(addr, RemotingCommand.createRequest(ECHO, {}, body), 5000);
    expect(b2.code).to.equal(ResponseCode.SYSTEM_BUSY);
    expect(b2.remark).to.equal(OVERLOAD_REMARK);
    open();
    expect((await Promise.all([fromA[0], fromA[1], b1])).map((r) => r.code)).to.deep.equal([0, 0, 0]);
    await waitFor(() => s.inflightBytes === 0);
  });

  it('a request executor bounds a family over every channel; rejectRequest answers [REJECTREQUEST]', async () => {
    const s = server({});
    const executor = new RequestExecutor({ name: 'echo', capacity: 3 });
    let reject = false;
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    s.registerProcessor(ECHO, async (req) => {
      await gate;
      return RemotingCommand.createResponse(req, ResponseCode.SUCCESS, null);
    }, { executor, rejectRequest: () => reject });
    const port = await s.listen();
    const addr = `127.0.0.1:${port}`;
    const clients = [client(), client(), client()];
    const all = clients.flatMap((c) => [c.invoke(addr, RemotingCommand.createRequest(ECHO), 5000), c.invoke(addr, RemotingCommand.createRequest(ECHO), 5000)]);
    await waitFor(() => executor.size + executor.rejectedCount === 6);
    expect(executor.size).to.equal(3);
    expect(executor.rejectedCount).to.equal(3);
    reject = true;
    const r = await clients[0].invoke(addr, RemotingCommand.createRequest(ECHO), 5000);
    expect(r.code).to.equal(ResponseCode.SYSTEM_BUSY);
    expect(r.remark).to.equal(REJECTREQUEST_REMARK);
    open();
    const codes = (await Promise.all(all)).map((x) => x.code);
    expect(codes.filter((c) => c === ResponseCode.SUCCESS)).to.have.length(3);
    expect(codes.filter((c) => c === ResponseCode.SYSTEM_BUSY)).to.have.length(3);
    expect(executor.size).to.equal(0);
  });

  it('an executor that is not ready queues; cleanExpired / cleanAll answer the waiting ones', () => {
    let t = 1000;
    let ready = false;
    const ex = new RequestExecutor({ name: 'send', capacity: 10, ready: () => ready, now: () => t });
    const log: string[] = [];
    const task = (name: string) => ({
      createTimestamp: t, run: () => log.push(`run ${name}`), reject: (remark: string) => log.push(`${name}: ${remark}`),
    });
    ex.submit(task('a'));
    t += 100;
    ex.submit(task('b'));
    ex.submit(task('c'));
    expect(ex.queueSize).to.equal(3);
    t += 150;
    expect(ex.cleanExpired(200, (behind, size) => `${behind} ${size}`)).to.equal(1);
    ready = true;
    ex.drain();
    expect(log).to.deep.equal(['a: 250 2', 'run b', 'run c']);
    ready = false;
    ex.submit(task('d'));
    expect(ex.cleanAll((behind, size) => `all ${behind} ${size}`)).to.equal(1);
    expect(log.at(-1)).to.equal('d: all 0 0');
    expect(ex.size).to.equal(2);
    ex.done();
    ex.done();
    expect(ex.size).to.equal(0);
  });

  it('stops reading a channel whose peer does not read its answers, and reads again once they are taken', async () => {
    const s = server({ writeBufferHighWaterMark: 256 * 1024, writeBufferLowWaterMark: 64 * 1024, serverChannelMaxWriteBacklogBytes: 0 });
    const big = Buffer.alloc(64 * 1024, 1);
    s.registerProcessor(ECHO, (req) => RemotingCommand.createResponse(req, ResponseCode.SUCCESS, null).setBodyParts([big]));
    const events: boolean[] = [];
    let conn: Connection | null = null;
    s.on('connect', (_a, c) => {
      conn = c as Connection;
      conn.on('backpressure', (_c, paused) => events.push(paused));
    });
    const port = await s.listen();
    const n = 400; // 25 MiB of answers: more than the kernel's socket buffers hold
    const flood = await rawFlood(port, n);
    cleanups.push(() => flood.socket.destroy());
    await waitFor(() => events.length > 0, 10000, 'reading paused');
    expect(events[0]).to.equal(true);
    expect(conn!.readPaused).to.equal(true);
    expect(conn!.writeBacklogBytes).to.be.above(256 * 1024);
    flood.socket.resume();
    await waitFor(() => flood.responses() === n, 15000, 'every answer');
    expect(events.at(-1)).to.equal(false);
    expect(conn!.readPaused).to.equal(false);
    expect(conn!.isActive).to.equal(true);
  });

  it('closes a channel whose write backlog passes serverChannelMaxWriteBacklogBytes', async () => {
    const s = server({ writeBufferHighWaterMark: 0, serverChannelMaxWriteBacklogBytes: 4 * 1024 * 1024 });
    const big = Buffer.alloc(1024 * 1024, 1);
    s.registerProcessor(ECHO, (req) => RemotingCommand.createResponse(req, ResponseCode.SUCCESS, null).setBodyParts([big]));
    let closed = false;
    s.on('close', () => { closed = true; });
    const port = await s.listen();
    const flood = await rawFlood(port, 64);
    cleanups.push(() => flood.socket.destroy());
    await waitFor(() => closed, 10000, 'channel closed');
    expect(s.channels).to.have.length(0);
    expect(s.writeBacklogBytes).to.equal(0);
    expect(flood.responses()).to.be.below(64);
  });

  it('one answer larger than serverChannelMaxWriteBacklogBytes alone is delivered (the limit counts what was left unread before it)', async () => {
    const s = server({ writeBufferHighWaterMark: 0, serverChannelMaxWriteBacklogBytes: 1024 * 1024 });
    const big = Buffer.alloc(3 * 1024 * 1024, 2);
    s.registerProcessor(ECHO, (req) => RemotingCommand.createResponse(req, ResponseCode.SUCCESS, null).setBodyParts([big]));
    const port = await s.listen();
    const r = await client().invoke(`127.0.0.1:${port}`, RemotingCommand.createRequest(ECHO), 10000);
    expect(r.code).to.equal(ResponseCode.SUCCESS);
    expect(r.body!.length).to.equal(big.length);
    expect(s.channels).to.have.length(1);
  });
});
