/**
 * The slave's side of registration, against the Java 4.9.8 capture of scenario 09-master-slave: the slave sends
 * REGISTER_BROKER with Java's fields (brokerId 1, its HA address), and the name server's answer (masterAddr,
 * haServerAddr, as the Java name server wrote it) points its HA client and SlaveSynchronize at the master.
 */
import { expect } from 'chai';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BrokerController } from '../../../lib/broker/broker-controller';
import { TEST_STORE_CONFIG } from '../../../lib/cluster';
import { RemotingServer } from '../../../lib/transport/remoting-server';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { frameIndex, readFrame } from '../../helpers/golden';

describe('ha: slave registration against the Java 4.9.8 capture (09-master-slave)', function () {
  this.timeout(30000);
  const idx = frameIndex('09-master-slave');
  const javaSlaveRequest = idx.find((e) => e.file === '19876-49020/0000-c2s-req103.bin')!;
  const javaAnswer = RemotingCommand.decode(readFrame('09-master-slave', '19876-49020/0000-s2c-resp0.bin').subarray(4));

  it('sends Java\'s fields and follows the answer\'s masterAddr and haServerAddr', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'rmq-reg-'));
    const namesrv = new RemotingServer({ listenPort: 0, bindAddress: '127.0.0.1' });
    const requests: RemotingCommand[] = [];
    namesrv.registerProcessor(RequestCode.REGISTER_BROKER, async (req) => {
      requests.push(req);
      return RemotingCommand.createResponse(req, javaAnswer.code, javaAnswer.remark, { ...javaAnswer.extFields });
    });
    namesrv.registerProcessor(RequestCode.UNREGISTER_BROKER, async (req) => RemotingCommand.createResponse(req, 0));
    const port = await namesrv.listen();
    const slave = new BrokerController({
      brokerConfig: { brokerName: 'broker-ha', brokerId: 1, brokerIP1: '127.0.0.1', namesrvAddr: `127.0.0.1:${port}`, listenPort: 0, storePathRootDir: dir },
      messageStoreConfig: { ...TEST_STORE_CONFIG, brokerRole: 'SLAVE', storePathRootDir: dir },
      remotingServerConfig: { bindAddress: '127.0.0.1', listenPort: 0 },
      replication: { slaveSyncInitialDelayMillis: 600000 },
    });
    try {
      await slave.start();
      expect(requests.length).to.be.at.least(1);
      const f = requests[0].extFields!;
      expect(Object.keys(f).sort()).to.deep.equal(Object.keys(javaSlaveRequest.header.extFields as object).sort());
      expect(f.brokerId).to.equal('1');
      expect(f.brokerName).to.equal('broker-ha');
      expect(f.haServerAddr).to.equal(`127.0.0.1:${slave.replication.haListenPort}`);
      expect(slave.replication.haService.haClient.masterAddress).to.equal('127.0.0.1:20912');
      expect(slave.replication.slaveSynchronize.masterAddr).to.equal('127.0.0.1:20911');
    } finally {
      await slave.shutdown();
      await namesrv.shutdown();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
