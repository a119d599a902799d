import net from 'node:net';
import { expect } from 'chai';
import { ResponseCode } from '../../../protocol/code/response-code';
import { RemotingCommand, SerializeType } from '../../../protocol/remoting-command';
import { RemotingConnectError, RemotingSendRequestError, RemotingTimeoutError } from '../../../lib/errors';
import { type Channel, Connection, transportResources } from '../../../lib/transport/connection';
import { RemotingClient } from '../../../lib/transport/remoting-client';
import { RemotingServer } from '../../../lib/transport/remoting-server';
import { ECHO, NEVER_ANSWER, RawPeer, THROWS, expectNoLeaks, memoryLogger, tcpHandles, waitFor } from './helpers';

function echoResponse(request: RemotingCommand): RemotingCommand {
  return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, 'echo', { ...(request.extFields ?? {}) }, request.body);
}

describe('lib/transport RemotingClient and RemotingServer', () => {
  let baseline: number;
  let server: RemotingServer;
  let client: RemotingClient;
  let addr: string;
  const cleanups: (() => unknown)[] = [];

  beforeEach(async () => {
    baseline = tcpHandles();
    server = new RemotingServer({ bindAddress: '127.0.0.1', listenPort: 0 });
    server.registerProcessor(ECHO, (req) => echoResponse(req));
    server.registerProcessor(NEVER_ANSWER, () => new Promise<null>(() => undefined));
    server.registerProcessor(THROWS, async () => {
      throw new Error('boom in processor');
    });
    const port = await server.listen();
    addr = `127.0.0.1:${port}`;
    client = new RemotingClient();
  });

  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
    await client.shutdown();
    await server.shutdown();
    await expectNoLeaks(baseline);
  });

  it('answers with the request\'s opaque, serialize type and the response flag without changing the processor\'s command', async () => {
    // One command answers two requests: the opaque, flag and serialize type of each answer go to the encoder.
    const shared = new RemotingCommand({ code: ResponseCode.SUCCESS, remark: 'shared' });
    server.registerProcessor(ECHO + 20, () => shared);
    const c = new RemotingClient({ serializeType: SerializeType.ROCKETMQ });
    cleanups.push(() => c.shutdown());
    const a = RemotingCommand.createRequest(ECHO + 20, { n: '1' });
    const b = RemotingCommand.createRequest(ECHO + 20, { n: '2' });
    const [ra, rb] = await Promise.all([c.invoke(addr, a, 3000), c.invoke(addr, b, 3000)]);
    expect([ra.opaque, rb.opaque]).to.deep.equal([a.opaque, b.opaque]);
    expect(ra.isResponse && rb.isResponse).to.equal(true);
    expect([ra.serializeType, rb.serializeType]).to.deep.equal([SerializeType.ROCKETMQ, SerializeType.ROCKETMQ]);
    expect(ra.remark).to.equal('shared');
    expect({ opaque: shared.opaque, flag: shared.flag, serializeType: shared.serializeType })
      .to.deep.equal({ opaque: 0, flag: 0, serializeType: SerializeType.JSON });
  });

  for (const [name, type] of Object.entries(SerializeType)) {
    it(`answers a request in its serialize type (${name})`, async () => {
      let seenType = -1;
      server.registerProcessor(ECHO + 10, (req) => {
        seenType = req.serializeType;
        return echoResponse(req);
      });
      const c = new RemotingClient({ serializeType: type });
      cleanups.push(() => c.shutdown());
      const req = RemotingCommand.createRequest(ECHO + 10, { topic: 'T', n: '7' }, Buffer.from('hello'));
      const resp = await c.invoke(addr, req, 3000);
      expect(seenType).to.equal(type);
      expect(resp.serializeType).to.equal(type);
      expect(resp.isResponse).to.equal(true);
      expect(resp.opaque).to.equal(req.opaque);
      expect(resp.code).to.equal(ResponseCode.SUCCESS);
      expect(resp.remark).to.equal('echo');
      expect(resp.extFields).to.deep.equal({ topic: 'T', n: '7' });
      expect(resp.body?.toString()).to.equal('hello');
    });
  }

  it('gives increasing process-wide opaques and reuses one connection per address', async () => {
    let connects = 0;
    server.on('connect', () => connects++);
    const a = RemotingCommand.createRequest(ECHO);
    const b = RemotingCommand.createRequest(ECHO);
    await Promise.all(Array.from({ length: 10 }, () => client.invoke(addr, RemotingCommand.createRequest(ECHO), 3000)));
    await client.invoke(addr, a, 3000);
    await client.invoke(addr, b, 3000);
    expect(b.opaque).to.equal((a.opaque + 1) | 0);
    expect(connects).to.equal(1);
    expect(client.connectedAddresses).to.deep.equal([addr]);
  });

  it('delivers a oneway request and never answers it', async () => {
    const got: RemotingCommand[] = [];
    server.registerProcessor(ECHO + 1, (req) => {
      got.push(req);
      return echoResponse(req); // must not be written for a oneway request
    });
    await client.invokeOneway(addr, RemotingCommand.createRequest(ECHO + 1, { k: 'v' }), 3000);
    await waitFor(() => got.length === 1);
    expect(got[0].isOneway).to.equal(true);
    expect(got[0].extFields).to.deep.equal({ k: 'v' });

    // On a raw socket: the only frame back is the answer to the normal request sent after the oneway one.
    const peer = await RawPeer.connect(server.port);
    cleanups.push(() => peer.destroy());
    const oneway = new RemotingCommand({ code: ECHO + 1, opaque: 5 }).markOneway();
    const normal = new RemotingCommand({ code: ECHO, opaque: 6 });
    peer.write(Buffer.concat([oneway.encode(), normal.encode()]));
    await waitFor(() => peer.received.length >= 1 && got.length === 2);
    await new Promise((r) => setTimeout(r, 20));
    expect(peer.received.map((c) => c.opaque)).to.deep.equal([6]);
  });

  it('closes the connection on a timeout by default (Java clientCloseSocketIfTimeout=true) and connects again', async () => {
    const conns: Channel[] = [];
    client.on('connect', (_a, ch) => conns.push(ch));
    await client.invoke(addr, RemotingCommand.createRequest(ECHO), 3000);
    const err = await client.invoke(addr, RemotingCommand.createRequest(NEVER_ANSWER), 200).then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(RemotingTimeoutError);
    expect(conns).to.have.length(1);
    expect((conns[0] as Connection).isActive).to.equal(false);
    const response = await client.invoke(addr, RemotingCommand.createRequest(ECHO), 3000);
    expect(response.code).to.equal(ResponseCode.SUCCESS);
    expect(conns).to.have.length(2);
  });

  it('closes a connection whose request timed out with a reset, not a FIN (a FIN and the stale request would reach the peer after a healed partition)', async () => {
    // A raw peer that reads and never answers: it sees how the client closes.
    const seen: string[] = [];
    const raw = net.createServer((sock) => {
      sock.on('data', () => undefined);
      sock.on('end', () => seen.push('end'));
      sock.on('error', (e: NodeJS.ErrnoException) => seen.push(e.code ?? e.message));
      sock.on('close', () => seen.push('close'));
    });
    await new Promise<void>((r) => raw.listen(0, '127.0.0.1', () => r()));
    cleanups.push(() => new Promise<void>((r) => raw.close(() => r())));
    const rawAddr = `127.0.0.1:${(raw.address() as net.AddressInfo).port}`;
    const err = await client.invoke(rawAddr, RemotingCommand.createRequest(ECHO), 200).then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(RemotingTimeoutError);
    await waitFor(() => seen.includes('close'));
    expect(seen).to.deep.equal(['ECONNRESET', 'close']);
  });

  it('keeps the connection when a request times out while the peer answers others (a busy broker, not a silent one)', async () => {
    const conns: Channel[] = [];
    client.on('connect', (_a, ch) => conns.push(ch));
    await client.invoke(addr, RemotingCommand.createRequest(ECHO), 3000);
    const slow = client.invoke(addr, RemotingCommand.createRequest(NEVER_ANSWER), 300).then(() => null, (e: unknown) => e);
    // answered while the slow one waits: the connection is alive
    expect((await client.invoke(addr, RemotingCommand.createRequest(ECHO), 3000)).code).to.equal(ResponseCode.SUCCESS);
    expect(await slow).to.be.instanceOf(RemotingTimeoutError);
    expect(conns).to.have.length(1);
    expect((conns[0] as Connection).isActive).to.equal(true);
  });

  it('rejects with RemotingTimeoutError after the deadline and forgets the request', async () => {
    await client.shutdown();
    client = new RemotingClient({ clientCloseSocketIfTimeout: false });
    let conn: Channel | undefined;
    client.on('connect', (_a, ch) => (conn = ch));
    await client.invoke(addr, RemotingCommand.createRequest(ECHO), 3000);
    const begin = Date.now();
    const err = await client.invoke(addr, RemotingCommand.createRequest(NEVER_ANSWER), 100).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(RemotingTimeoutError);
    expect((err as RemotingTimeoutError).retriable).to.equal(true);
    expect((err as RemotingTimeoutError).timeoutMillis).to.equal(100);
    expect(Date.now() - begin).to.be.at.least(99);
    expect(conn).to.be.instanceOf(Connection);
    expect((conn as Connection).pendingCount).to.equal(0);
    expect((conn as Connection).isActive).to.equal(true);
    // Mixed deadlines: each expires on its own, the connection keeps working.
    const results = await Promise.allSettled([
      client.invoke(addr, RemotingCommand.createRequest(NEVER_ANSWER), 300),
      client.invoke(addr, RemotingCommand.createRequest(NEVER_ANSWER), 50),
      client.invoke(addr, RemotingCommand.createRequest(ECHO), 1000),
    ]);
    expect(results.map((r) => r.status)).to.deep.equal(['rejected', 'rejected', 'fulfilled']);
    expect((conn as Connection).pendingCount).to.equal(0);
    expect(transportResources().timers).to.equal(0);
  });

  it('answers a request the server sends over the client connection with a client processor', async () => {
    const CHECK_TRANSACTION_STATE = 39;
    client.registerProcessor(CHECK_TRANSACTION_STATE, (req, ctx) => {
      expect(ctx.remoteAddress).to.equal(addr);
      return RemotingCommand.createResponse(req, ResponseCode.SUCCESS, `checked ${req.extFields?.msgId}`);
    });
    const channels: Channel[] = [];
    server.on('connect', (_a, ch) => channels.push(ch));
    await client.invoke(addr, RemotingCommand.createRequest(ECHO), 3000);
    expect(channels).to.have.length(1);
    const ch = channels[0];
    expect(ch.isActive).to.equal(true);
    expect(ch.remoteAddress).to.match(/^127\.0\.0\.1:\d+$/);
    expect(ch.localAddress).to.equal(addr);
    const resp = await server.invoke(ch, RemotingCommand.createRequest(CHECK_TRANSACTION_STATE, { msgId: 'M1' }), 3000);
    expect(resp.code).to.equal(ResponseCode.SUCCESS);
    expect(resp.remark).to.equal('checked M1');

    const unknown = await server.invoke(ch, RemotingCommand.createRequest(777), 3000);
    expect(unknown.code).to.equal(ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
    expect(unknown.remark).to.equal(' request type 777 not supported');

    const got: RemotingCommand[] = [];
    client.registerProcessor(40, (req) => {
      got.push(req);
      return null;
    });
    await server.invokeOneway(ch, RemotingCommand.createRequest(40, { consumerGroup: 'G' }));
    await waitFor(() => got.length === 1);
    expect(got[0].extFields).to.deep.equal({ consumerGroup: 'G' });
  });

  it('rejects pending requests with RemotingSendRequestError when the server closes, then reconnects', async () => {
    const channels: Channel[] = [];
    server.on('connect', (_a, ch) => channels.push(ch));
    const closes: string[] = [];
    client.on('close', (a) => closes.push(a));
    await client.invoke(addr, RemotingCommand.createRequest(ECHO), 3000);
    const pending = client.invoke(addr, RemotingCommand.createRequest(NEVER_ANSWER), 5000).then(
      () => null,
      (e: unknown) => e,
    );
    await waitFor(() => server.channels.length === 1 && (server.channels[0] as Connection).inflight === 1);
    channels[0].close();
    expect(channels[0].isActive).to.equal(false);
    const err = await pending;
    expect(err).to.be.instanceOf(RemotingSendRequestError);
    expect((err as RemotingSendRequestError).retriable).to.equal(true);
    await waitFor(() => closes.length === 1);
    expect(closes).to.deep.equal([addr]);
    const resp = await client.invoke(addr, RemotingCommand.createRequest(ECHO, { again: '1' }), 3000);
    expect(resp.extFields).to.deep.equal({ again: '1' });
    expect(channels).to.have.length(2);
  });

  it('rejects with RemotingConnectError when nothing listens', async () => {
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const err = await client.invoke(`127.0.0.1:${port}`, RemotingCommand.createRequest(ECHO), 3000).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(RemotingConnectError);
    expect((err as RemotingConnectError).addr).to.equal(`127.0.0.1:${port}`);
    expect((err as RemotingConnectError).retriable).to.equal(true);
    const bad = await client.invoke('no-port', RemotingCommand.createRequest(ECHO), 3000).catch((e: unknown) => e);
    expect(bad).to.be.instanceOf(RemotingConnectError);
  });

  it('answers an unknown code with REQUEST_CODE_NOT_SUPPORTED and a throwing processor with SYSTEM_ERROR', async () => {
    const unknown = await client.invoke(addr, RemotingCommand.createRequest(4242), 3000);
    expect(unknown.code).to.equal(ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
    expect(unknown.remark).to.equal(' request type 4242 not supported');
    const failed = await client.invoke(addr, RemotingCommand.createRequest(THROWS), 3000);
    expect(failed.code).to.equal(ResponseCode.SYSTEM_ERROR);
    expect(failed.remark).to.equal('Error: boom in processor');
    const ok = await client.invoke(addr, RemotingCommand.createRequest(ECHO), 3000);
    expect(ok.code).to.equal(ResponseCode.SUCCESS);
  });

  it('sends unknown codes to the default processor when one is registered', async () => {
    server.registerDefaultProcessor((req) => RemotingCommand.createResponse(req, ResponseCode.SUCCESS, `default ${req.code}`));
    const resp = await client.invoke(addr, RemotingCommand.createRequest(4242), 3000);
    expect(resp.remark).to.equal('default 4242');
  });

  it('runs RPC hooks around requests on both sides; a server hook that throws yields SYSTEM_ERROR', async () => {
    const after: string[] = [];
    client.registerRPCHook({
      doBeforeRequest(_a, req) {
        req.extFields = { ...(req.extFields ?? {}), AccessKey: 'ak' };
      },
      doAfterResponse(a, req, resp) {
        after.push(`${a} ${req.code} ${resp?.code}`);
      },
    });
    server.registerRPCHook({
      doBeforeRequest(_a, req) {
        if (req.extFields?.AccessKey !== 'ak') throw new Error('AclException: no access key');
      },
      doAfterResponse() {
        /* nothing */
      },
    });
    const resp = await client.invoke(addr, RemotingCommand.createRequest(ECHO), 3000);
    expect(resp.extFields).to.deep.equal({ AccessKey: 'ak' });
    expect(after).to.deep.equal([`${addr} ${ECHO} 0`]);
    const other = new RemotingClient();
    cleanups.push(() => other.shutdown());
    const denied = await other.invoke(addr, RemotingCommand.createRequest(ECHO), 3000);
    expect(denied.code).to.equal(ResponseCode.SYSTEM_ERROR);
    expect(denied.remark).to.contain('AclException');
  });

  describe('a peer sending garbage loses only its own connection', () => {
    const cases: [string, Buffer][] = [
      ['an oversized length', Buffer.from([0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0])],
      ['a negative length', Buffer.from([0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 0])],
      ['a bad JSON header', (() => {
        const header = Buffer.from('{not json');
        const b = Buffer.alloc(8 + header.length);
        b.writeInt32BE(4 + header.length, 0);
        b.writeInt32BE(header.length, 4);
        header.copy(b, 8);
        return b;
      })()],
      ['a header length beyond the frame', Buffer.from([0, 0, 0, 8, 0, 0, 0, 100, 1, 2, 3, 4])],
      ['an unknown serialize type', Buffer.from([0, 0, 0, 6, 9, 0, 0, 2, 0x7b, 0x7d])],
    ];
    for (const [name, bytes] of cases) {
      it(name, async () => {
        const { logger, records } = memoryLogger();
        const s = new RemotingServer({ bindAddress: '127.0.0.1', listenPort: 0, logger });
        cleanups.push(() => s.shutdown());
        s.registerProcessor(ECHO, (req) => echoResponse(req));
        const port = await s.listen();
        const good = new RemotingClient();
        cleanups.push(() => good.shutdown());
        await good.invoke(`127.0.0.1:${port}`, RemotingCommand.createRequest(ECHO), 3000);
        const peer = await RawPeer.connect(port);
        cleanups.push(() => peer.destroy());
        const peerAddr = `127.0.0.1:${peer.socket.localPort}`;
        const exceptions: Error[] = [];
        s.on('exception', (_a, _ch, err) => exceptions.push(err));
        peer.write(bytes);
        await waitFor(() => peer.closed, 3000, 'the bad peer to be closed');
        expect(exceptions).to.have.length(1);
        expect(exceptions[0].name).to.equal('ProtocolError');
        const logged = records.find((r) => r.msg === 'malformed frame, closing channel');
        expect(logged, 'an error log naming the peer').to.not.equal(undefined);
        expect(logged?.remoteAddr).to.equal(peerAddr);
        expect(logged?.level).to.equal(50);
        const resp = await good.invoke(`127.0.0.1:${port}`, RemotingCommand.createRequest(ECHO, { still: 'ok' }), 3000);
        expect(resp.extFields).to.deep.equal({ still: 'ok' });
        expect(s.channels).to.have.length(1);
      });
    }

    it('a client receiving garbage rejects its pending requests with RemotingSendRequestError', async () => {
      const raw = net.createServer((socket) => {
        socket.once('data', () => socket.write(Buffer.from([0x7f, 0xff, 0xff, 0xff])));
        socket.on('error', () => undefined);
      });
      await new Promise<void>((r) => raw.listen(0, '127.0.0.1', () => r()));
      cleanups.push(() => new Promise<void>((r) => raw.close(() => r())));
      const port = (raw.address() as net.AddressInfo).port;
      const err = await client.invoke(`127.0.0.1:${port}`, RemotingCommand.createRequest(ECHO), 3000).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(RemotingSendRequestError);
      expect((err as RemotingSendRequestError).cause).to.have.property('name', 'ProtocolError');
    });
  });

  it('answers SYSTEM_BUSY beyond serverMaxInflight requests of one channel', async () => {
    const s = new RemotingServer({ bindAddress: '127.0.0.1', listenPort: 0, serverMaxInflight: 2 });
    cleanups.push(() => s.shutdown());
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    s.registerProcessor(ECHO, async (req) => {
      await gate;
      return echoResponse(req);
    });
    const port = await s.listen();
    const all = Array.from({ length: 5 }, (_, i) =>
      client.invoke(`127.0.0.1:${port}`, RemotingCommand.createRequest(ECHO, { i: String(i) }), 3000),
    );
    const busy = await Promise.all(all.slice(2));
    for (const r of busy) {
      expect(r.code).to.equal(ResponseCode.SYSTEM_BUSY);
      expect(r.remark).to.equal('[OVERLOAD]system busy, start flow control for a while');
    }
    open();
    const done = await Promise.all(all.slice(0, 2));
    expect(done.map((r) => [r.code, r.extFields?.i])).to.deep.equal([[0, '0'], [0, '1']]);
    // The slots are free again.
    const again = await client.invoke(`127.0.0.1:${port}`, RemotingCommand.createRequest(ECHO), 3000);
    expect(again.code).to.equal(ResponseCode.SUCCESS);
  });

  it('answers 2,000 concurrent requests correctly, with frames coalesced into few writes', async () => {
    let chunks = 0;
    // A plain server that never answers counts the TCP chunks carrying 2,000 pipelined requests.
    const countingServer = net.createServer((socket) => socket.on('data', () => chunks++));
    await new Promise<void>((r) => countingServer.listen(0, '127.0.0.1', () => r()));
    cleanups.push(() => new Promise<void>((r) => countingServer.close(() => r())));
    const countingPort = (countingServer.address() as net.AddressInfo).port;
    const c = new RemotingClient();
    cleanups.push(() => c.shutdown());
    await c.invokeOneway(`127.0.0.1:${countingPort}`, RemotingCommand.createRequest(ECHO), 3000);
    await waitFor(() => chunks === 1);
    const unanswered = Array.from({ length: 2000 }, (_, i) =>
      c.invoke(`127.0.0.1:${countingPort}`, RemotingCommand.createRequest(ECHO, { i: String(i) }), 1000).catch(() => null),
    );
    await waitFor(() => chunks > 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(chunks - 1, 'chunks for 2000 frames').to.be.below(200);
    await c.shutdown();
    await Promise.all(unanswered);

    const results = await Promise.all(
      Array.from({ length: 2000 }, (_, i) =>
        client.invoke(addr, RemotingCommand.createRequest(ECHO, { i: String(i) }, Buffer.from(`body-${i}`)), 10000),
      ),
    );
    results.forEach((r, i) => {
      expect(r.code).to.equal(ResponseCode.SUCCESS);
      expect(r.extFields?.i).to.equal(String(i));
      expect(r.body?.toString()).to.equal(`body-${i}`);
    });
  });

  it('round-trips an 8 MiB body (written without copying by the server)', async () => {
    const body = Buffer.alloc(8 * 1024 * 1024);
    for (let i = 0; i < body.length; i += 4096) body.writeUInt32BE(i, i);
    let served: Buffer | null = null;
    server.registerProcessor(ECHO + 2, (req) => {
      served = Buffer.from(req.body!); // a copy, to return a body that is not a view into the read buffer
      return RemotingCommand.createResponse(req, ResponseCode.SUCCESS, null, null, served);
    });
    const resp = await client.invoke(addr, RemotingCommand.createRequest(ECHO + 2, null, body), 10000);
    expect(resp.body?.length).to.equal(body.length);
    expect(resp.body!.equals(body)).to.equal(true);
    expect(served!.equals(body)).to.equal(true);
  });

  it('closes idle channels on both sides with an idle event', async () => {
    const s = new RemotingServer({ bindAddress: '127.0.0.1', listenPort: 0, serverChannelMaxIdleTimeSeconds: 0.15 });
    cleanups.push(() => s.shutdown());
    s.registerProcessor(ECHO, (req) => echoResponse(req));
    const port = await s.listen();
    const events: string[] = [];
    s.on('idle', () => events.push('server idle'));
    s.on('close', () => events.push('server close'));
    client.on('close', () => events.push('client close'));
    await client.invoke(`127.0.0.1:${port}`, RemotingCommand.createRequest(ECHO), 3000);
    await waitFor(() => events.length === 3, 3000, 'idle close');
    expect(events[0]).to.equal('server idle');
    expect(events).to.include.members(['server close', 'client close']);
    expect(client.connectedAddresses).to.deep.equal([]);
  });

  it('shutdown is idempotent, rejects what is pending and leaves no sockets or timers', async () => {
    const before = tcpHandles();
    expect(before).to.be.at.least(1); // the listening server
    const pending = client.invoke(addr, RemotingCommand.createRequest(NEVER_ANSWER), 10000).catch((e: unknown) => e);
    await waitFor(() => server.channels.length === 1);
    expect(transportResources().connections).to.equal(2);
    expect(transportResources().timers).to.be.at.least(1);
    await Promise.all([client.shutdown(), client.shutdown()]);
    expect(await pending).to.be.instanceOf(RemotingSendRequestError);
    const after = await client.invoke(addr, RemotingCommand.createRequest(ECHO), 1000).catch((e: unknown) => e);
    expect(after).to.be.instanceOf(RemotingSendRequestError);
    expect((after as RemotingSendRequestError).retriable).to.equal(false);
    await Promise.all([server.shutdown(), server.shutdown()]);
    await server.shutdown();
    await expectNoLeaks(baseline);
    expect(server.channels).to.deep.equal([]);
  });
});
