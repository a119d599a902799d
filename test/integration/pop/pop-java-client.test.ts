/**
 * The Java 5.3.3 client's own POP code (MQClientAPIImpl popMessageAsync / ackMessageAsync / changeInvisibleTimeAsync
 * and processPopResponse, run from test/java/PopClient.java) against our broker: it pops every message,
 * changes the invisible time of one, acks all but one, and sees that one again from the retry topic.
 */
import { expect } from 'chai';
import { startCluster, type Cluster } from '../../../lib/server';
import { DefaultMQProducer } from '../../../lib/producer/default-mq-producer';
import { createMessage } from '../../../protocol/message/message';
import { randomName } from '../../helpers/cluster';
import { javaSkipReason, runJavaSource } from '../../helpers/javaref';
import { registerLeftover } from '../../helpers/root-hooks';
import { createTopicAndWait } from './pop-scenario';

describe('compat: the Java 5.3.3 client popping from our broker', function () {
  this.timeout(180_000);
  let cluster: Cluster | undefined;
  let remove: (() => void) | undefined;

  before(function () {
    const skip = javaSkipReason('5.3.3');
    if (skip) {
      process.stderr.write(`      ${skip}\n`);
      this.skip();
    }
  });
  after(async () => {
    remove?.();
    await cluster?.stop();
  });

  it('pops, changes the invisible time, acks; the unacked message comes back with reconsumeTimes 1', async () => {
    cluster = await startCluster();
    const c = cluster;
    remove = registerLeftover(() => c.stop());
    const topic = randomName('POPJ');
    const group = randomName('GJ');
    await createTopicAndWait(cluster.namesrvAddr, topic, 2);
    const producer = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: cluster.namesrvAddr, instanceName: randomName('p') });
    await producer.start();
    try {
      for (let i = 0; i < 4; i++) await producer.send(createMessage(topic, `j${i}`, { tags: 'A' }));
    } finally {
      await producer.shutdown();
    }
    const src = 'PopClient.java';
    const r = await runJavaSource('5.3.3', src, [cluster.namesrvAddr, topic, group, '4', '2000'], { timeoutMs: 150_000 });
    const lines = r.stdout.split('\n').filter((l) => /^(POP|ACK|CHANGE|AGAIN|DONE|FAIL)\b/.test(l));
    expect(lines, r.stdout.slice(-3000) + r.stderr.slice(-2000)).to.include('DONE');
    const pops = lines.filter((l) => l.startsWith('POP '));
    expect(pops).to.have.length(4);
    for (const p of pops) expect(p).to.match(/^POP j\d 0 \d+ \d+ 2000 \d+ 0 \S+ \d \d+$/);
    expect(lines.filter((l) => l.startsWith('ACK ')).every((l) => l.endsWith(' OK'))).to.equal(true);
    expect(lines.find((l) => l.startsWith('CHANGE '))).to.match(/^CHANGE j\d OK \d+ \d+ 60000 \d+ 0 \S+ \d \d+$/);
    const again = lines.filter((l) => l.startsWith('AGAIN '));
    expect(again.map((l) => l.split(' ')[2])).to.deep.equal(['1']);
  });
});
