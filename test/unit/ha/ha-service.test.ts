import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import { PutMessageStatus } from '../../../lib/store/store-status';
import { BrokerRole } from '../../../lib/store/message-store-config';
import { encodeHASlaveReport, HATransferDecoder } from '../../../protocol/ha/ha-codec';
import { makeMessage } from '../store/store-test-util';
import { waitFor } from '../../helpers/cluster';
import { type HANode, commitLogBytes, haAddr, rmDir, startNode } from './ha-test-util';

/** A hand-driven slave: connects to a master's HA port, sends the reports it is told to, collects transfers. */
async function fakeSlave(port: number): Promise<{ socket: net.Socket; received: () => Buffer; report(o: number): void }> {
  const socket = net.connect({ host: '127.0.0.1', port });
  await new Promise<void>((r) => socket.once('connect', () => r()));
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.on('error', () => undefined);
  return { socket, received: () => Buffer.concat(chunks), report: (o) => socket.write(encodeHASlaveReport(o)) };
}

describe('ha: HAService / HAConnection / HAClient over real sockets and files', function () {
  this.timeout(60000);
  const nodes: HANode[] = [];
  const sockets: net.Socket[] = [];
  const node = async (...args: Parameters<typeof startNode>) => {
    const n = await startNode(...args);
    nodes.push(n);
    return n;
  };
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    for (const n of nodes.splice(0)) {
      await n.stop();
      await rmDir(n.dir);
    }
  });

  const put = (n: HANode, i: number, props: Record<string, string> = {}) =>
    n.store.putMessage(makeMessage('HaT', i % 4, Buffer.alloc(300 + (i % 7), i & 0xff), { TAGS: 'A', KEYS: `k${i}`, ...props }));

  it('ASYNC_MASTER: an empty slave copies the whole log (one file), then follows; its queues and index are built', async () => {
    const master = await node({ brokerRole: BrokerRole.ASYNC_MASTER });
    for (let i = 0; i < 40; i++) expect((await put(master, i)).putMessageStatus).to.equal(PutMessageStatus.PUT_OK);
    const slave = await node({ brokerRole: BrokerRole.SLAVE });
    slave.ha.updateMasterAddress(haAddr(master));
    await waitFor(() => slave.store.getMaxPhyOffset() === master.store.getMaxPhyOffset(), 20000, 'slave catch-up');
    for (let i = 40; i < 80; i++) await put(master, i);
    await waitFor(() => slave.store.getMaxPhyOffset() === master.store.getMaxPhyOffset(), 20000, 'slave follow');
    await waitFor(() => master.ha.push2SlaveMaxOffset === master.store.getMaxPhyOffset(), 20000, 'slave ack');
    expect((await commitLogBytes(slave.store)).equals(await commitLogBytes(master.store))).to.equal(true);
    await slave.store.waitReput();
    for (let q = 0; q < 4; q++) expect(slave.store.getMaxOffsetInQueue('HaT', q)).to.equal(20);
    const got = await slave.store.getMessage('g', 'HaT', 1, 0, 32);
    expect(got.messages.length).to.equal(20);
    const byKey = await slave.store.queryMessage('HaT', 'k41', 10, 0, Number.MAX_SAFE_INTEGER);
    expect(byKey.messages.length).to.equal(1);
    // Its checkpoint carries the replicated records' store time (what crash recovery starts from).
    await slave.stop();
    expect(slave.store.checkpoint.physicMsgTimestamp).to.be.greaterThan(0);
  });

  it('an empty slave starts at the master\'s last commit-log file, as Java does', async () => {
    const master = await node({ brokerRole: BrokerRole.ASYNC_MASTER, mappedFileSizeCommitLog: 16 * 1024 });
    for (let i = 0; i < 120; i++) await put(master, i);
    const files = master.store.commitLog.mappedFileQueue.files;
    expect(files.length).to.be.greaterThan(2);
    const slave = await node({ brokerRole: BrokerRole.SLAVE, mappedFileSizeCommitLog: 16 * 1024 });
    slave.ha.updateMasterAddress(haAddr(master));
    await waitFor(() => slave.store.getMaxPhyOffset() === master.store.getMaxPhyOffset(), 20000, 'slave catch-up');
    const lastStart = files[files.length - 1].fileFromOffset;
    expect(slave.store.getMinPhyOffset()).to.equal(lastStart);
    expect((await commitLogBytes(slave.store)).equals(await commitLogBytes(master.store, lastStart))).to.equal(true);
    // Its queues start where its log does (blank entries before), and serve what it has.
    await slave.store.waitReput();
    let queues = 0;
    for (let q = 0; q < 4; q++) {
      if (!slave.store.findConsumeQueue('HaT', q)) continue; // no record of this queue in the last file
      queues++;
      expect(slave.store.getMaxOffsetInQueue('HaT', q)).to.equal(master.store.getMaxOffsetInQueue('HaT', q));
      const min = slave.store.getMinOffsetInQueue('HaT', q);
      expect(min).to.be.greaterThan(0);
      const got = await slave.store.getMessage('g', 'HaT', q, min, 32);
      expect(got.status).to.equal('FOUND');
    }
    expect(queues).to.be.greaterThan(0);
  });

  it('SYNC_MASTER: every acknowledged put is on the slave; the logs are equal byte for byte across file ends', async () => {
    const master = await node({ brokerRole: BrokerRole.SYNC_MASTER, mappedFileSizeCommitLog: 16 * 1024 });
    const slave = await node({ brokerRole: BrokerRole.SLAVE, mappedFileSizeCommitLog: 16 * 1024 });
    slave.ha.updateMasterAddress(haAddr(master));
    await waitFor(() => master.ha.connectionCount === 1 && master.ha.connections.values().next().value!.slaveRequestOffset >= 0, 10000, 'slave connected');
    for (let i = 0; i < 150; i++) {
      const r = await put(master, i);
      expect(r.putMessageStatus).to.equal(PutMessageStatus.PUT_OK);
      const end = r.appendMessageResult!.wroteOffset + r.appendMessageResult!.wroteBytes;
      expect(slave.store.getMaxPhyOffset()).to.be.at.least(end);
    }
    expect(master.store.commitLog.mappedFileQueue.files.length).to.be.greaterThan(2);
    expect((await commitLogBytes(slave.store)).equals(await commitLogBytes(master.store))).to.equal(true);
  });

  it('SYNC_MASTER: no slave -> SLAVE_NOT_AVAILABLE at once; WAIT=false puts do not wait', async () => {
    const master = await node({ brokerRole: BrokerRole.SYNC_MASTER });
    const r = await put(master, 1);
    expect(r.putMessageStatus).to.equal(PutMessageStatus.SLAVE_NOT_AVAILABLE);
    expect(r.appendMessageResult).to.not.equal(null);
    expect((await put(master, 2, { WAIT: 'false' })).putMessageStatus).to.equal(PutMessageStatus.PUT_OK);
  });

  it('SYNC_MASTER: a slave that does not acknowledge -> FLUSH_SLAVE_TIMEOUT after syncFlushTimeout; one report releases many puts', async () => {
    const master = await node({ brokerRole: BrokerRole.SYNC_MASTER, syncFlushTimeout: 300 });
    const s = await fakeSlave(master.ha.listenPort);
    sockets.push(s.socket);
    s.report(0);
    await waitFor(() => [...master.ha.connections].some((c) => c.slaveRequestOffset === 0), 10000, 'slave request');
    const t0 = Date.now();
    const r = await put(master, 1);
    expect(r.putMessageStatus).to.equal(PutMessageStatus.FLUSH_SLAVE_TIMEOUT);
    expect(Date.now() - t0).to.be.at.least(250);
    // Group commit: 50 puts wait; one report of the last offset releases all of them.
    const puts = Array.from({ length: 50 }, (_, i) => put(master, i + 2));
    await waitFor(() => s.received().length >= 12 + master.store.getMaxPhyOffset(), 10000, 'transfers');
    s.report(master.store.getMaxPhyOffset());
    const results = await Promise.all(puts);
    expect(results.every((x) => x.putMessageStatus === PutMessageStatus.PUT_OK)).to.equal(true);
  });

  it('SYNC_MASTER: slave stopped -> SLAVE_NOT_AVAILABLE; slave restarted -> catches up from its own offset', async () => {
    const master = await node({ brokerRole: BrokerRole.SYNC_MASTER, haSendHeartbeatInterval: 200 });
    let slave = await node({ brokerRole: BrokerRole.SLAVE, haSendHeartbeatInterval: 200 });
    slave.ha.updateMasterAddress(haAddr(master));
    await waitFor(() => master.ha.connectionCount === 1, 10000, 'slave connected');
    for (let i = 0; i < 10; i++) expect((await put(master, i)).putMessageStatus).to.equal(PutMessageStatus.PUT_OK);
    const slaveOffset = slave.store.getMaxPhyOffset();
    await slave.stop();
    nodes.splice(nodes.indexOf(slave), 1);
    await waitFor(() => master.ha.connectionCount === 0, 10000, 'connection gone');
    expect((await put(master, 10)).putMessageStatus).to.equal(PutMessageStatus.SLAVE_NOT_AVAILABLE);
    for (let i = 11; i < 30; i++) await put(master, i, { WAIT: 'false' });
    slave = await node({ brokerRole: BrokerRole.SLAVE, haSendHeartbeatInterval: 200 }, {}, slave.dir);
    expect(slave.store.getMaxPhyOffset()).to.equal(slaveOffset);
    slave.ha.updateMasterAddress(haAddr(master));
    await waitFor(() => [...master.ha.connections].some((c) => c.slaveRequestOffset === slaveOffset), 10000, 'request from own offset');
    await waitFor(() => slave.store.getMaxPhyOffset() === master.store.getMaxPhyOffset(), 20000, 'catch-up');
    expect((await commitLogBytes(slave.store)).equals(await commitLogBytes(master.store))).to.equal(true);
    expect((await put(master, 31)).putMessageStatus).to.equal(PutMessageStatus.PUT_OK);
  });

  it('the master drops a slave that reports an offset beyond its log, and one silent for haHousekeepingInterval', async () => {
    const master = await node({ brokerRole: BrokerRole.ASYNC_MASTER, haHousekeepingInterval: 300 });
    await put(master, 1);
    const a = await fakeSlave(master.ha.listenPort);
    sockets.push(a.socket);
    a.report(0);
    await waitFor(() => master.ha.connectionCount === 1, 5000, 'connected');
    a.report(master.store.getMaxPhyOffset() + 1000);
    await waitFor(() => master.ha.connectionCount === 0, 5000, 'dropped');
    const b = await fakeSlave(master.ha.listenPort);
    sockets.push(b.socket);
    await waitFor(() => master.ha.connectionCount === 1, 5000, 'connected');
    await waitFor(() => master.ha.connectionCount === 0, 5000, 'expired');
  });

  it('a slave closes the connection when the master sends bytes that do not continue its log', async () => {
    const slave = await node({ brokerRole: BrokerRole.SLAVE });
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    let closed = false;
    server.on('connection', (sock) => {
      sockets.push(sock);
      sock.on('close', () => { closed = true; });
      sock.once('data', () => {
        // Non-zero start the empty slave accepts, then a gap.
        const h = Buffer.alloc(12 + 8);
        h.writeBigInt64BE(0n, 0); h.writeInt32BE(8, 8);
        h.writeInt32BE(8, 12); h.writeInt32BE(-875286124, 16);
        const gap = Buffer.alloc(12);
        gap.writeBigInt64BE(100n, 0);
        gap.writeInt32BE(0, 8);
        const gapData = Buffer.alloc(12 + 4);
        gapData.writeBigInt64BE(100n, 0); gapData.writeInt32BE(4, 8);
        sock.write(Buffer.concat([h, gapData]));
      });
    });
    try {
      slave.ha.updateMasterAddress(`127.0.0.1:${(server.address() as net.AddressInfo).port}`);
      await waitFor(() => closed, 10000, 'slave closes');
      expect(slave.store.getMaxPhyOffset()).to.equal(8);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('a slave drops a master it has read nothing from for haHousekeepingInterval, though its own reports still go out, and connects again', async () => {
    const slave = await node({ brokerRole: BrokerRole.SLAVE, haSendHeartbeatInterval: 100, haHousekeepingInterval: 400 });
    // A master that takes the connection and the reports and never answers (the link back to the slave is cut).
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const accepted: net.Socket[] = [];
    let reports = 0;
    server.on('connection', (sock) => {
      accepted.push(sock);
      sock.on('data', (d) => { reports += d.length / 8; });
    });
    try {
      slave.ha.updateMasterAddress(`127.0.0.1:${(server.address() as net.AddressInfo).port}`);
      await waitFor(() => accepted.length >= 2, 15000, 'the slave gives up on the silent master and connects again');
      expect(reports, 'reports sent meanwhile').to.be.at.least(2);
    } finally {
      const closed = new Promise<void>((r) => server.close(() => r()));
      for (const s of accepted) s.destroy();
      await closed;
    }
  });

  it('a connect to the master that hangs (its SYN unanswered) is given up after 5 s, as Java\'s, and made again', async function () {
    // A listener whose accept queue is full: the kernel drops further SYNs, so a connect hangs as on a cut link.
    const py = spawnSync('python3', ['--version']);
    if (py.status !== 0) {
      process.stdout.write('      skipped: python3 is not here (it holds a listener that never accepts)\n');
      this.skip();
    }
    const holder = spawn('python3', ['-c', 'import socket,sys,time\ns=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(0)\nprint(s.getsockname()[1], flush=True)\nsys.stdin.read()'], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      const port = await new Promise<number>((resolve) => holder.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
      // Fill the accept queue (a backlog of 0 holds one; a few more to be sure), then the slave's connect hangs.
      for (let i = 0; i < 4; i++) {
        const c = net.connect({ host: '127.0.0.1', port });
        c.on('error', () => undefined);
        sockets.push(c);
      }
      await new Promise((r) => setTimeout(r, 300));
      const slave = await node({ brokerRole: BrokerRole.SLAVE, haSendHeartbeatInterval: 100 });
      slave.ha.updateMasterAddress(`127.0.0.1:${port}`);
      await waitFor(() => slave.ha.haClient.connectTimeouts >= 2, 20000, 'two connect attempts given up');
      expect(slave.ha.haClient.connected).to.equal(false);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('HATransferDecoder sanity on what our master writes', async () => {
    const master = await node({ brokerRole: BrokerRole.ASYNC_MASTER });
    for (let i = 0; i < 5; i++) await put(master, i);
    const s = await fakeSlave(master.ha.listenPort);
    sockets.push(s.socket);
    s.report(0);
    await waitFor(() => s.received().length >= 12 + master.store.getMaxPhyOffset(), 10000, 'transfer');
    const ts = new HATransferDecoder().push(s.received());
    expect(ts[0].phyOffset).to.equal(0);
    expect(Buffer.concat(ts.map((t) => t.data)).equals(await commitLogBytes(master.store))).to.equal(true);
  });

  it('garbage on the HA port costs only that connection; a real slave is served beside it', async () => {
    const master = await node({ brokerRole: BrokerRole.SYNC_MASTER });
    const g = await fakeSlave(master.ha.listenPort);
    sockets.push(g.socket);
    g.socket.write(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    const neg = await fakeSlave(master.ha.listenPort);
    sockets.push(neg.socket);
    neg.report(-1);
    await waitFor(() => master.ha.connectionCount === 0, 10000, 'both dropped');
    expect(master.ha.push2SlaveMaxOffset).to.equal(0);
    expect((await put(master, 99)).putMessageStatus).to.equal(PutMessageStatus.SLAVE_NOT_AVAILABLE);
    const slave = await node({ brokerRole: BrokerRole.SLAVE });
    slave.ha.updateMasterAddress(haAddr(master));
    await waitFor(() => [...master.ha.connections].some((c) => c.slaveRequestOffset === 0), 10000, 'real slave');
    for (let i = 0; i < 5; i++) expect((await put(master, i)).putMessageStatus).to.equal(PutMessageStatus.PUT_OK);
    expect((await commitLogBytes(slave.store)).equals(await commitLogBytes(master.store))).to.equal(true);
  });
});
