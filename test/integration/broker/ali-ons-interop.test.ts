/**
 * Interop: ali-ons (a third-party pure-JS RocketMQ client) produces to and consumes from our broker through our
 * name server. ali-ons runs in a child process (test/helpers/ali-ons-child.ts): it leaves timers behind after close().
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { newTopicConfig } from '../../../protocol/body/topic-config';
import { getCluster, randomName, type TestCluster } from '../../helpers/cluster';

describe('interop: ali-ons against our broker and name server', function () {
  this.timeout(60000);
  let tc: TestCluster;

  before(async () => {
    tc = await getCluster();
  });
  after(async () => {
    await tc.stop();
  });

  it('produces and consumes', async () => {
    const topic = randomName('ONS');
    // ali-ons does not fall back to TBW102 for an unknown topic: create it first, as an operator would
    if (tc.cluster) {
      const broker = tc.cluster.brokers[0];
      broker.topicConfigManager.updateTopicConfig(newTopicConfig(topic, { readQueueNums: 4, writeQueueNums: 4 }));
      await broker.registerBrokerAll(true, false, true);
    }
    const child = path.join(__dirname, '..', '..', 'helpers', 'ali-ons-child.js');
    const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) => {
      execFile(process.execPath, [child, tc.namesrvAddr, topic, '10'], { timeout: 50_000 }, (err, out, errOut) => {
        if (err) reject(new Error(`ali-ons child failed: ${err.message}\n${errOut}\n${out}`));
        else resolve({ stdout: out });
      });
    });
    const result = JSON.parse(stdout.trim().split('\n').pop()!) as { sent: string[]; received: string[]; errors: string[] };
    expect(result.sent).to.have.length(10);
    expect(result.received).to.deep.equal([...result.sent].sort());
  });
});
