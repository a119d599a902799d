import { expect } from 'chai';
import { ResponseCode } from '../../../protocol/code/response-code';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RemotingSendRequestError, RemotingTooMuchRequestError } from '../../../lib/errors';
import { RequestQueue } from '../../../lib/transport/request-queue';
import { RemotingClient, type RequestInfo } from '../../../lib/transport/remoting-client';
import { RemotingServer } from '../../../lib/transport/remoting-server';
import { ECHO, expectNoLeaks, tcpHandles, waitFor } from './helpers';

const HELD = 1100;

describe('lib/transport RequestQueue', () => {
  it('counts without a cap and never queues', () => {
    const q = new RequestQueue(0);
    for (let i = 0; i < 5; i++) expect(q.acquire(10)).to.equal(null);
    expect(q.inflight).to.equal(5);
    for (let i = 0; i < 5; i++) q.release();
    expect(q.inflight).to.equal(0);
  });

  it('queues over the cap in FIFO order, reports the queue size, and hands a released slot on', async () => {
    const sizes: number[] = [];
    const q = new RequestQueue(1, (n) => sizes.push(n));
    expect(q.acquire(5000)).to.equal(null);
    const order: number[] = [];
    const a = q.acquire(5000)!.then(() => order.push(1));
    const b = q.acquire(5000)!.then(() => order.push(2));
    expect(q.queued).to.equal(2);
    q.release();
    await a;
    q.release();
    await b;
    expect(order).to.deep.equal([1, 2]);
    expect(sizes).to.deep.equal([1, 2, 1, 0]);
    expect(q.inflight).to.equal(1);
    q.release();
    expect(q.inflight).to.equal(0);
  });

  it('fails a request that waited its whole timeout for a slot with RemotingTooMuchRequestError', async () => {
    const q = new RequestQueue(1);
    q.acquire(10);
    const err = await q.acquire(5)!.then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(RemotingTooMuchRequestError);
    expect(q.queued).to.equal(0);
    q.release();
    expect(q.inflight).to.equal(0);
  });

  it('drain resolves true once idle, false at its timeout', async () => {
    const q = new RequestQueue(0);
    expect(await q.drain(10)).to.equal(true);
    q.acquire(10);
    const drained = q.drain(5000);
    q.release();
    expect(await drained).to.equal(true);
    q.acquire(10);
    expect(await q.drain(5)).to.equal(false);
    q.release();
  });
});

describe('lib/transport RemotingClient: in-flight cap, network.request, shutdown drain', () => {
  let baseline: number;
  let server: RemotingServer;
  let addr: string;
  let held: Array<() => void> = [];
  let concurrent = 0;
  let maxConcurrent = 0;

  beforeEach(async () => {
    baseline = tcpHandles();
    held = [];
    concurrent = 0;
    maxConcurrent = 0;
    server = new RemotingServer({ bindAddress: '127.0.0.1', listenPort: 0 });
    server.registerProcessor(ECHO, (req) => RemotingCommand.createResponse(req, ResponseCode.SUCCESS, null, null, req.body));
    server.registerProcessor(HELD, (req) => new Promise<RemotingCommand>((resolve) => {
      concurrent++;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      held.push(() => {
        concurrent--;
        resolve(RemotingCommand.createResponse(req, ResponseCode.SUCCESS));
      });
    }));
    addr = `127.0.0.1:${await server.listen()}`;
  });

  afterEach(async () => {
    for (const h of held.splice(0)) h();
    await server.shutdown();
    await expectNoLeaks(baseline);
  });

  it('maxInflightRequests keeps the rest queued until an answer frees a slot', async () => {
    const queueSizes: number[] = [];
    const client = new RemotingClient({
      maxInflightRequests: 1,
      observer: { hasListeners: () => true, emit: (type: string, p: unknown) => { if (type === 'network.request_queue_size') queueSizes.push((p as { size: number }).size); } },
    });
    try {
      const all = [0, 1, 2].map(() => client.invoke(addr, RemotingCommand.createRequest(HELD), 10_000));
      await waitFor(() => held.length === 1);
      expect(client.inflightRequests).to.deep.equal({ inflight: 1, queued: 2 });
      // one at a time: the next request reaches the server only once the one before it was answered
      for (let i = 0; i < 3; i++) {
        await waitFor(() => held.length === i + 1);
        expect(concurrent).to.equal(1);
        held[i]();
      }
      const answers = await Promise.all(all);
      expect(answers.map((r) => r.code)).to.deep.equal([0, 0, 0]);
      expect(maxConcurrent).to.equal(1);
      expect(queueSizes).to.deep.equal([1, 2, 1, 0]);
    } finally {
      await client.shutdown();
    }
  });

  it('reports network.request with code, address, size and response code', async () => {
    const seen: RequestInfo[] = [];
    const client = new RemotingClient({
      observer: { hasListeners: (t) => t === 'network.request', emit: (_t: string, p: unknown) => seen.push(p as RequestInfo) },
    });
    try {
      const req = RemotingCommand.createRequest(ECHO, { k: 'v' }, Buffer.from('12345'));
      await client.invoke(addr, req, 3000);
      expect(seen).to.have.length(1);
      expect(seen[0]).to.include({ addr, code: ECHO, responseCode: ResponseCode.SUCCESS, size: req.encode().length, responseSize: 5 });
      expect(seen[0].durationMs).to.be.at.least(0);
      expect(seen[0].error).to.equal(undefined);
      const failed = await client.invoke('127.0.0.1:1', RemotingCommand.createRequest(ECHO), 3000).then(() => null, (e: unknown) => e);
      expect(failed).to.be.instanceOf(Error);
      expect(seen[1]).to.include({ addr: '127.0.0.1:1', code: ECHO, responseCode: null, size: 0 });
      expect(seen[1].error).to.equal(failed);
    } finally {
      await client.shutdown();
    }
  });

  it('shutdown({ drainMillis }) waits for the answer in flight and refuses new requests meanwhile', async () => {
    const client = new RemotingClient();
    const pending = client.invoke(addr, RemotingCommand.createRequest(HELD), 10_000);
    await waitFor(() => held.length === 1);
    const closing = client.shutdown({ drainMillis: 10_000 });
    const refused = await client.invoke(addr, RemotingCommand.createRequest(ECHO), 3000).then(() => null, (e: unknown) => e);
    expect(refused).to.be.instanceOf(RemotingSendRequestError);
    held[0]();
    expect((await pending).code).to.equal(ResponseCode.SUCCESS);
    await closing;
    expect(client.connectedAddresses).to.deep.equal([]);
  });

  it('shutdown() without a drain rejects what is pending, as before', async () => {
    const client = new RemotingClient();
    const pending = client.invoke(addr, RemotingCommand.createRequest(HELD), 10_000).then(() => null, (e: unknown) => e);
    await waitFor(() => held.length === 1);
    await client.shutdown();
    expect(await pending).to.be.instanceOf(RemotingSendRequestError);
  });
});
