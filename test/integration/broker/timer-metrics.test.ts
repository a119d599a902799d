/**
 * GET_TIMER_METRICS (61) on our broker, as a Java 5.x slave or an admin tool asks it: Java's TimerMetrics JSON (the
 * timer messages waiting per real topic); without timerWheelEnable SYSTEM_ERROR "The timer message store is null",
 * as Java 5.3.3's AdminBrokerProcessor.
 */
import { expect } from 'chai';
import { type Cluster, startCluster } from '../../../lib/cluster';
import { DefaultMQProducer } from '../../../lib/index';
import { SendStatus } from '../../../lib/client/send-result';
import { RemotingClient } from '../../../lib/transport/remoting-client';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { decodeTimerMetrics } from '../../../protocol/body/timer-metrics';
import { createMessage, setDelayTimeMs } from '../../../protocol/message/message';
import { randomName } from '../../helpers/cluster';
import { waitFor } from '../../helpers/wait-for';

describe('broker: GET_TIMER_METRICS (61)', function () {
  this.timeout(60_000);
  const rc = new RemotingClient();
  let cluster: Cluster | null = null;
  let producer: DefaultMQProducer | null = null;

  afterEach(async () => {
    await producer?.shutdown();
    producer = null;
    await cluster?.stop();
    cluster = null;
  });

  after(() => rc.shutdown());

  const ask = (addr: string) => rc.invoke(addr, RemotingCommand.createRequest(RequestCode.GET_TIMER_METRICS, null), 3000);

  it('answers the timer messages waiting per real topic, with a data version that moves', async () => {
    cluster = await startCluster();
    const addr = cluster.brokers[0].brokerAddr;
    const first = await ask(addr);
    expect(first.code).to.equal(ResponseCode.SUCCESS);
    const before = decodeTimerMetrics(first.body!);
    expect(before.dataVersion.stateVersion).to.equal(0);
    const topic = randomName('TMT');
    producer = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: cluster.namesrvAddr, instanceName: randomName('p') });
    await producer.start();
    for (let i = 0; i < 2; i++) {
      const m = createMessage(topic, `t${i}`);
      setDelayTimeMs(m, 600_000);
      expect((await producer.send(m)).sendStatus).to.equal(SendStatus.SEND_OK);
    }
    await waitFor(async () => decodeTimerMetrics((await ask(addr)).body!).timingCount.get(topic)?.count === 2, 20_000, 'two timer messages counted', 100);
    const after = decodeTimerMetrics((await ask(addr)).body!);
    expect(after.dataVersion.counter).to.be.at.least(before.dataVersion.counter + 2);
  });

  it('without timerWheelEnable: SYSTEM_ERROR "The timer message store is null"', async () => {
    cluster = await startCluster({ storeConfig: { timerWheelEnable: false } });
    const res = await ask(cluster.brokers[0].brokerAddr);
    expect(res.code).to.equal(ResponseCode.SYSTEM_ERROR);
    expect(res.remark).to.equal('The timer message store is null');
  });
});
