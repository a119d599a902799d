/**
 * Scenario 09-master-slave, the consumer's side: our slave is fed the Java 4.9.8 master's HA stream (so it holds the
 * Java slave's commit log), then the Java consumer's requests to the Java slave are replayed into it. Our answers
 * match Java's: codes, offsets, the suggested broker, and the pulled records byte for byte.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { BrokerController } from '../../../lib/broker/broker-controller';
import { TEST_STORE_CONFIG } from '../../../lib/cluster';
import { RemotingClient } from '../../../lib/transport/remoting-client';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { newTopicConfig } from '../../../protocol/body/topic-config';
import { frameIndex, goldenPath, readFrame } from '../../helpers/golden';
import { waitFor } from '../../helpers/cluster';

const SCENARIO = '09-master-slave';
const CONN = '20931-50574';

describe('ha: pulls served by our slave match the Java 4.9.8 slave (09-master-slave)', function () {
  this.timeout(60000);

  it('answers the Java consumer\'s requests as the Java slave did, pulled records byte for byte', async () => {
    const m2s = fs.readFileSync(goldenPath('ha', 'master-to-slave.bin'));
    const server = net.createServer();
    const sockets: net.Socket[] = [];
    server.on('connection', (sock) => {
      sockets.push(sock);
      sock.once('data', () => sock.write(m2s));
      sock.on('error', () => undefined);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'rmq-slave-pull-'));
    const slave = new BrokerController({
      brokerConfig: { brokerName: 'broker-ha', brokerId: 1, brokerIP1: '127.0.0.1', namesrvAddr: '', listenPort: 0, storePathRootDir: dir },
      messageStoreConfig: {
        ...TEST_STORE_CONFIG, brokerRole: 'SLAVE', storePathRootDir: dir,
        haMasterAddress: `127.0.0.1:${(server.address() as net.AddressInfo).port}`,
      },
      remotingServerConfig: { bindAddress: '127.0.0.1', listenPort: 0 },
      replication: { slaveSyncInitialDelayMillis: 600000 },
    });
    const rc = new RemotingClient({});
    try {
      await slave.start();
      await waitFor(() => slave.messageStore.getMaxPhyOffset() === 5185, 10000, 'the Java stream stored');
      await slave.messageStore.waitReput();
      // The Java slave had the topic from its master (SlaveSynchronize).
      slave.topicConfigManager.updateTopicConfig(newTopicConfig('HaTopic', { readQueueNums: 4, writeQueueNums: 4 }));
      const idx = frameIndex(SCENARIO).filter((e) => e.file.startsWith(`${CONN}/`));
      const responses = new Map<number, RemotingCommand>();
      for (const e of idx.filter((x) => x.dir === 's2c')) {
        const cmd = RemotingCommand.decodeFrame(readFrame(SCENARIO, e.file));
        if (cmd.isResponse) responses.set(cmd.opaque, cmd);
      }
      let compared = 0;
      let pulls = 0;
      for (const e of idx.filter((x) => x.dir === 'c2s')) {
        const req = RemotingCommand.decodeFrame(readFrame(SCENARIO, e.file));
        const java = responses.get(req.opaque);
        if (req.isOneway) {
          await rc.invokeOneway(slave.brokerAddr, RemotingCommand.createRequest(req.code, { ...req.extFields }, req.body), 3000);
          continue;
        }
        if (!java) continue; // a held pull the consumer left when it stopped
        const ours = await rc.invoke(slave.brokerAddr, RemotingCommand.createRequest(req.code, { ...req.extFields }, req.body), 10000);
        expect(ours.code, e.file).to.equal(java.code);
        if (req.code === RequestCode.PULL_MESSAGE || req.code === RequestCode.QUERY_CONSUMER_OFFSET) {
          expect(ours.extFields, e.file).to.deep.equal(java.extFields);
          expect(ours.remark ?? null, e.file).to.equal(java.remark ?? null);
        }
        if (req.code === RequestCode.PULL_MESSAGE) {
          expect(ours.body && java.body && Buffer.compare(ours.body, java.body), e.file).to.equal(0);
          pulls++;
        }
        compared++;
      }
      expect(pulls).to.equal(4);
      expect(compared).to.be.at.least(10);
      // The consumer's oneway UPDATE_CONSUMER_OFFSET reached the slave's offset table.
      await waitFor(() => slave.consumerOffsetManager.queryOffset('CG_HA_SLAVE', 'HaTopic', 2) === 8, 5000, 'offsets on the slave');
    } finally {
      await rc.shutdown();
      await slave.shutdown();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
      await fsp.rm(dir, { recursive: true, force: true });
    }
  });
});
