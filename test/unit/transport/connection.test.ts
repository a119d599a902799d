import net from 'node:net';
import { expect } from 'chai';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RemotingTimeoutError } from '../../../lib/errors';
import { Connection, formatAddress, nextOpaque, transportResources } from '../../../lib/transport/connection';
import { memoryLogger, expectNoLeaks, tcpHandles, waitFor } from './helpers';

/** A connected pair of Connections over loopback. */
async function pair(
  onServerRequest: (c: Connection, r: RemotingCommand) => void = () => undefined, clientNow?: () => number,
  serverOptions: { requestsPerTurn?: number; maxDeferredRequests?: number; maxDeferredBytes?: number } = {},
) {
  const { logger } = memoryLogger();
  let serverConn!: Connection;
  let serverSocket!: net.Socket;
  const server = net.createServer((s) => {
    serverSocket = s;
    serverConn = new Connection(s, { logger, onRequest: onServerRequest, ...serverOptions });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as net.AddressInfo).port;
  const socket = await new Promise<net.Socket>((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => resolve(s));
  });
  const client = new Connection(socket, { logger, onRequest: () => undefined, now: clientNow });
  await waitFor(() => serverConn !== undefined);
  const close = async () => {
    client.close();
    serverConn.close();
    await new Promise<void>((r) => server.close(() => r()));
  };
  return { client, serverConn, serverSocket, socket, close };
}

describe('lib/transport Connection', () => {
  let baseline: number;
  beforeEach(() => {
    baseline = tcpHandles();
  });
  afterEach(async () => {
    await expectNoLeaks(baseline);
  });

  it('formats addresses as ip:port and hands out wrapping process-wide opaques', () => {
    expect(formatAddress('::ffff:10.0.0.1', 10911)).to.equal('10.0.0.1:10911');
    expect(formatAddress('127.0.0.1', 9876)).to.equal('127.0.0.1:9876');
    const a = nextOpaque();
    expect(nextOpaque()).to.equal((a + 1) | 0);
  });

  it('writes a body as its own buffer (no copy) and corks many frames into one flush', async () => {
    const received: RemotingCommand[] = [];
    const p = await pair((c, r) => {
      received.push(r);
    });
    try {
      const writes: Buffer[] = [];
      const corks: number[] = [];
      const realWrite = p.socket.write.bind(p.socket);
      const realCork = p.socket.cork.bind(p.socket);
      p.socket.cork = () => {
        corks.push(writes.length);
        realCork();
      };
      p.socket.write = ((chunk: Buffer, ...rest: never[]) => {
        writes.push(chunk);
        return realWrite(chunk, ...rest);
      }) as typeof p.socket.write;
      const body = Buffer.alloc(1024 * 1024, 7);
      const cmds = Array.from({ length: 50 }, (_, i) => RemotingCommand.createRequest(1, { i: String(i) }));
      cmds.push(RemotingCommand.createRequest(2, null, body));
      await Promise.all(cmds.map((c) => p.client.oneway(c)));
      expect(corks, 'one corked flush for frames queued in one tick').to.deep.equal([0]);
      expect(writes).to.have.length(52); // 50 header-only frames, then header + body
      expect(writes[51]).to.equal(body); // the very same Buffer: not copied
      await waitFor(() => received.length === 51);
      expect(received.map((r) => r.extFields?.i ?? 'big')).to.deep.equal([...cmds.slice(0, 50).map((_, i) => String(i)), 'big']);
      expect(received[50].body!.equals(body)).to.equal(true);
    } finally {
      await p.close();
    }
  });

  it('uses one timer for all pending requests, armed for the earliest deadline', async () => {
    // Deadlines on a fake clock moved by the test: a sweep sees only the deadlines the test has reached, so a busy
    // machine firing the timer late cannot expire the 200 ms request together with the 60 ms ones.
    let clock = 1_000_000;
    const p = await pair(undefined, () => clock);
    try {
      const results = [500, 60, 200, 60].map((t) =>
        p.client.request(RemotingCommand.createRequest(1), t).then(
          () => 'ok',
          (e: unknown) => (e instanceof RemotingTimeoutError ? `timeout ${e.timeoutMillis}` : String(e)),
        ),
      );
      expect(transportResources().timers).to.be.at.most(2); // the timeout timer, maybe the flush immediate
      expect(p.client.pendingCount).to.equal(4);
      const settled: string[] = [];
      results.forEach((r) => r.then((s) => settled.push(s)));
      clock += 60;
      await waitFor(() => settled.length === 2);
      expect(settled).to.deep.equal(['timeout 60', 'timeout 60']);
      expect(p.client.pendingCount).to.equal(2);
      clock += 140;
      await waitFor(() => settled.length === 3);
      expect(p.client.pendingCount).to.equal(1);
      clock += 300;
      expect(await Promise.all(results)).to.deep.equal(['timeout 500', 'timeout 60', 'timeout 200', 'timeout 60']);
      expect(settled).to.deep.equal(['timeout 60', 'timeout 60', 'timeout 200', 'timeout 500']);
      expect(p.client.pendingCount).to.equal(0);
      expect(transportResources().timers).to.equal(0);
    } finally {
      await p.close();
    }
  });

  it('keeps one timeout timer across requests and lets it lapse once nothing is pending', async () => {
    const p = await pair((c, r) => {
      c.send(RemotingCommand.createResponse(r, 0));
    });
    try {
      for (let i = 0; i < 5; i++) {
        const resp = await p.client.request(RemotingCommand.createRequest(1), 200);
        expect(resp.code).to.equal(0);
        expect(p.client.pendingCount).to.equal(0);
        // no timer per request: the one armed by the first request is reused
        expect(transportResources().timers).to.equal(1);
      }
      await waitFor(() => transportResources().timers === 0, 2000);
    } finally {
      await p.close();
    }
  });

  describe('requestsPerTurn', () => {
    /** Sends `n` requests in one socket write (one read on the server, as a client with many in flight does). */
    async function sendInOneWrite(p: Awaited<ReturnType<typeof pair>>, n: number): Promise<RemotingCommand[]> {
      p.socket.cork();
      const answers = Array.from({ length: n }, (_, i) => p.client.request(RemotingCommand.createRequest(100 + i), 3000));
      // the connection flushes its queue on the next turn, into the corked socket: one write
      await new Promise<void>((r) => setImmediate(r));
      p.socket.uncork();
      return Promise.all(answers);
    }

    it('hands over requestsPerTurn requests of a read in its turn, then the larger of that and half of what waits per turn, in order', async () => {
      let turn = 0;
      let ticking = true;
      const tick = (): void => {
        turn++;
        if (ticking) setImmediate(tick);
      };
      setImmediate(tick);
      const seen: Array<{ code: number; turn: number }> = [];
      const p = await pair((c, r) => {
        seen.push({ code: r.code, turn });
        c.send(RemotingCommand.createResponse(r, 0));
      }, undefined, { requestsPerTurn: 2 });
      try {
        const answers = await sendInOneWrite(p, 12);
        expect(answers.map((a) => a.code)).to.deep.equal(new Array(12).fill(0));
        expect(seen.map((s) => s.code)).to.deep.equal(Array.from({ length: 12 }, (_, i) => 100 + i));
        // 12 in one read, 2 per turn at least: 2 now, then 5 (half of 10), 3 (half of 5), 2; each group in a later turn
        const groups: number[] = [];
        for (let i = 0; i < seen.length; i++) {
          if (i === 0 || seen[i].turn !== seen[i - 1].turn) {
            if (i > 0) expect(seen[i].turn).to.be.greaterThan(seen[i - 1].turn);
            groups.push(1);
          } else groups[groups.length - 1]++;
        }
        expect(groups).to.deep.equal([2, 5, 3, 2]);
      } finally {
        ticking = false;
        await p.close();
      }
    });

    it('keeps requests that arrive while others wait behind them, and drops the waiting ones when the connection closes', async () => {
      const seen: number[] = [];
      let closeAfter = -1;
      const p = await pair((c, r) => {
        seen.push(r.code);
        if (seen.length === closeAfter) c.close();
        else c.send(RemotingCommand.createResponse(r, 0));
      }, undefined, { requestsPerTurn: 2 });
      try {
        // two reads: the second arrives while part of the first still waits; the order holds across both
        const first = sendInOneWrite(p, 5);
        const second = p.client.request(RemotingCommand.createRequest(200), 3000);
        await Promise.all([first, second]);
        expect(seen).to.deep.equal([100, 101, 102, 103, 104, 200]);
        seen.length = 0;
        closeAfter = 3;
        const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => p.client.request(RemotingCommand.createRequest(300 + i), 3000)));
        // closed by the third while three waited: those are never handed over, and the deferred turn is cleared
        // (expectNoLeaks); the first two were answered in their turn
        expect(seen).to.deep.equal([300, 301, 302]);
        expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'fulfilled', 'rejected', 'rejected', 'rejected', 'rejected']);
      } finally {
        await p.close();
      }
    });

    it('still hands over what a peer sent before closing its side (oneway sends kept), and tells the close after the last', async () => {
      const seen: number[] = [];
      const p = await pair((_c, r) => {
        seen.push(r.code);
      }, undefined, { requestsPerTurn: 2 });
      try {
        let seenAtClose = -1;
        const closed = new Promise<void>((resolve) => p.serverConn.once('close', () => {
          seenAtClose = seen.length;
          resolve();
        }));
        p.socket.cork();
        const sent = Array.from({ length: 7 }, (_, i) => p.client.oneway(RemotingCommand.createRequest(400 + i)));
        await new Promise<void>((r) => setImmediate(r));
        // seven oneway requests and the end of the stream in one write: one read, then 'end', on the server
        p.socket.end();
        p.socket.uncork();
        await Promise.allSettled(sent);
        await closed;
        expect(seen).to.deep.equal(Array.from({ length: 7 }, (_, i) => 400 + i));
        expect(seenAtClose).to.equal(7);
        expect(p.serverConn.isActive).to.equal(false);
      } finally {
        await p.close();
      }
    });

    it('stops reading while more requests or request bytes wait than allowed, and reads again once they are processed', async () => {
      for (const limits of [{ maxDeferredRequests: 3 }, { maxDeferredBytes: 3000 }]) {
        const seen: number[] = [];
        const pausedAt: boolean[] = [];
        const p: Awaited<ReturnType<typeof pair>> = await pair((c, r) => {
          seen.push(r.code);
          pausedAt.push(p.serverSocket.isPaused());
          c.send(RemotingCommand.createResponse(r, 0));
        }, undefined, { requestsPerTurn: 1, ...limits });
        try {
          p.socket.cork();
          const answers = Array.from({ length: 10 }, (_, i) => {
            const req = RemotingCommand.createRequest(100 + i);
            req.body = Buffer.alloc(1000, i);
            return p.client.request(req, 3000);
          });
          await new Promise<void>((r) => setImmediate(r));
          p.socket.uncork();
          await Promise.all(answers);
          expect(seen).to.deep.equal(Array.from({ length: 10 }, (_, i) => 100 + i));
          // paused while the deferred ones were handed over, reading again after
          expect(pausedAt.slice(1, 4)).to.deep.equal([true, true, true]);
          expect(p.serverSocket.isPaused()).to.equal(false);
          const again = await p.client.request(RemotingCommand.createRequest(7), 3000);
          expect(again.code).to.equal(0);
        } finally {
          await p.close();
        }
      }
    });
  });
});
