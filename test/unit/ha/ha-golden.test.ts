import { expect } from 'chai';
import fs from 'node:fs';
import net from 'node:net';
import { BrokerRole } from '../../../lib/store/message-store-config';
import { HATransferDecoder, encodeHASlaveReport } from '../../../protocol/ha/ha-codec';
import { goldenPath } from '../../helpers/golden';
import { waitFor } from '../../helpers/cluster';
import { type HANode, commitLogBytes, rmDir, startNode } from './ha-test-util';

const m2s = fs.readFileSync(goldenPath('ha', 'master-to-slave.bin'));
const s2m = fs.readFileSync(goldenPath('ha', 'slave-to-master.bin'));
const transfers = new HATransferDecoder().push(m2s).map((t) => ({ phyOffset: t.phyOffset, data: Buffer.from(t.data) }));
const javaLog = Buffer.concat(transfers.map((t) => t.data));

describe('ha: the Java 4.9.8 master/slave streams replayed both ways', function () {
  this.timeout(30000);
  const nodes: HANode[] = [];
  const sockets: net.Socket[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    for (const n of nodes.splice(0)) {
      await n.stop();
      await rmDir(n.dir);
    }
  });

  it('our slave accepts the Java master\'s stream: same commit log, same reports, queues dispatched', async () => {
    const slave = await startNode({ brokerRole: BrokerRole.SLAVE });
    nodes.push(slave);
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const fromSlave: Buffer[] = [];
    server.on('connection', (sock) => {
      sockets.push(sock);
      let sent = false;
      sock.on('data', (c: Buffer) => {
        fromSlave.push(c);
        if (!sent) {
          sent = true;
          // In odd-sized pieces, so transfers and headers arrive split.
          for (let i = 0; i < m2s.length; i += 333) sock.write(m2s.subarray(i, i + 333));
        }
      });
    });
    try {
      slave.ha.updateMasterAddress(`127.0.0.1:${(server.address() as net.AddressInfo).port}`);
      await waitFor(() => Buffer.concat(fromSlave).length >= s2m.length, 10000, 'slave reports');
      expect(Buffer.concat(fromSlave).equals(s2m)).to.equal(true);
      expect((await commitLogBytes(slave.store)).equals(javaLog)).to.equal(true);
      await slave.store.waitReput();
      let n = 0;
      for (let q = 0; q < 8; q++) n += slave.store.getMaxOffsetInQueue('HaTopic', q);
      expect(n).to.equal(25); // the first transfer held two records
    } finally {
      for (const s of sockets.splice(0)) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('our master writes Java\'s bytes for the same commit log appended in the same steps', async () => {
    let now = 1_000_000;
    const master = await startNode({ brokerRole: BrokerRole.ASYNC_MASTER }, { now: () => now });
    nodes.push(master);
    const socket = net.connect({ host: '127.0.0.1', port: master.ha.listenPort });
    sockets.push(socket);
    await new Promise<void>((r) => socket.once('connect', () => r()));
    const got: Buffer[] = [];
    socket.on('data', (c: Buffer) => got.push(c));
    const length = () => got.reduce((s, b) => s + b.length, 0);
    await waitFor(() => master.ha.connectionCount === 1, 5000, 'accepted');
    // The Java slave reported only after a heartbeat interval, so the master's first write was a heartbeat.
    now += 10_000;
    socket.write(encodeHASlaveReport(0));
    await waitFor(() => length() >= 12, 5000, 'heartbeat');
    let expected = 12;
    for (const t of transfers.slice(1)) {
      expect(await master.store.appendToCommitLog(t.phyOffset, t.data)).to.equal(true);
      expected += 12 + t.data.length;
      await waitFor(() => length() >= expected, 5000, `transfer at ${t.phyOffset}`);
    }
    expect(Buffer.concat(got).equals(m2s)).to.equal(true);
  });
});
