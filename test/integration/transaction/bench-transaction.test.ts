import { Writable } from 'node:stream';
import { expect } from 'chai';
import { getCluster, randomName, waitFor, type TestCluster } from '../../helpers/cluster';
import { newClient, pullRequest } from '../broker/broker-helpers';
import type { RemotingClient } from '../../../lib/transport/remoting-client';
import { benchProduce } from '../../../lib/cli/bench-produce';
import { ResponseCode } from '../../../protocol/code/response-code';
import { decodeMessages } from '../../../protocol/message/message-decoder';
import { buildHalfTopic } from '../../../lib/broker/transaction/transactional-message-util';

describe('rocketmq-ts bench produce --mode transaction', function () {
  this.timeout(60000);
  let tc: TestCluster;
  let client: RemotingClient;
  const sink = new Writable({ write: (_c, _e, cb) => cb() });

  before(async function () {
    if (process.env.ROCKETMQ_NAMESRV_ADDR) this.skip();
    // No periodic check (see transaction.test.ts): the check test runs its pass once the producer can answer it.
    // transactionTimeOut 0: a pass checks every half message not ended yet.
    tc = await getCluster({ brokerConfig: { transactionCheckInterval: 60_000, transactionTimeOut: 0 } });
    await tc.cluster!.brokers[0].transactionalMessageCheckService.shutdown();
    client = newClient();
  });
  after(async () => {
    await client?.shutdown();
    await tc?.stop();
  });

  async function count(topic: string): Promise<number> {
    let n = 0;
    for (let q = 0; q < 4; q++) {
      const r = await client.invoke(tc.cluster!.brokers[0].brokerAddr, pullRequest('CG_BENCH_TX', topic, q, 0), 5000);
      if (r.code === ResponseCode.SUCCESS && r.body) n += decodeMessages(r.body).length;
    }
    return n;
  }

  it('--local commit delivers every message, --local rollback none', async () => {
    const t1 = randomName('BenchTx');
    const t2 = randomName('BenchTx');
    expect(await benchProduce(['--namesrv', tc.namesrvAddr, '--topic', t1, '--mode', 'transaction', '--count', '5', '--local', 'commit', '--quiet'], sink)).to.equal(0);
    expect(await benchProduce(['--namesrv', tc.namesrvAddr, '--topic', t2, '--mode', 'transaction', '--count', '5', '--local', 'rollback', '--quiet'], sink)).to.equal(0);
    await waitFor(async () => (await count(t1)) === 5, 15_000, 'five committed');
    expect(await count(t2)).to.equal(0);
  });

  it('--local unknown --check commit: delivered through the check while the producer lingers', async () => {
    const t = randomName('BenchTx');
    const group = randomName('PG');
    const broker = tc.cluster!.brokers[0];
    const halfTopic = buildHalfTopic();
    const halfBefore = broker.messageStore.getMaxOffsetInQueue(halfTopic, 0);
    const run = benchProduce(['--namesrv', tc.namesrvAddr, '--topic', t, '--mode', 'transaction', '--count', '3', '--local', 'unknown',
      '--check', 'commit', '--linger', '8', '--group', group, '--quiet'], sink);
    // once the 3 half messages are stored and the lingering producer is registered, one check pass asks it
    await waitFor(() => broker.messageStore.getMaxOffsetInQueue(halfTopic, 0) >= halfBefore + 3 && broker.producerManager.getAvailableChannel(group) !== null,
      15_000, 'three half messages and the producer registered');
    await new Promise((r) => setTimeout(r, 2)); // a pass leaves half messages stored in its own millisecond to the next
    await broker.transactionalMessageCheckService.onWaitEnd();
    await waitFor(async () => (await count(t)) === 3, 15_000, 'three committed by check');
    expect(await run).to.equal(0);
  });

  it('refuses a bad --local', async () => {
    const err = process.stderr.write;
    process.stderr.write = () => true;
    try {
      expect(await benchProduce(['--namesrv', tc.namesrvAddr, '--topic', 'x', '--mode', 'transaction', '--local', 'maybe'], sink)).to.equal(2);
    } finally {
      process.stderr.write = err;
    }
  });
});
