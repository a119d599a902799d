import { expect } from 'chai';
import { getCluster, randomName, waitFor, type TestCluster } from '../../helpers/cluster';
import { DefaultMQProducer } from '../../../lib/producer/default-mq-producer';
import { DefaultMQPushConsumer } from '../../../lib/consumer/push-consumer';
import { MessageSelector } from '../../../lib/consumer/message-selector';
import { ConsumeConcurrentlyStatus } from '../../../lib/consumer/listener';
import { MQClientError } from '../../../lib/errors';
import { ResponseCode } from '../../../protocol/code/response-code';
import { createMessage, putUserProperty } from '../../../protocol/message/message';

/** Message i carries a=i, s=x|y|z, b=true|false, tag A|B, and n=10*i except when i % 4 == 0 (then n is NULL). */
const N = 12;
interface Props { i: number; a: number; s: string; b: boolean; tag: string; n: number | null }
const MSGS: Props[] = Array.from({ length: N }, (_, i) => ({
  i, a: i, s: ['x', 'y', 'z'][i % 3], b: i % 2 === 0, tag: i % 2 === 0 ? 'A' : 'B', n: i % 4 === 0 ? null : 10 * i,
}));

/** Expression → which messages Java's broker delivers (TRUE only: NULL/unknown never matches). */
const CASES: Array<[string, (m: Props) => boolean]> = [
  ['a > 5', (m) => m.a > 5],
  ['a >= 5', (m) => m.a >= 5],
  ['a < 3', (m) => m.a < 3],
  ['a <= 3', (m) => m.a <= 3],
  ['a = 4', (m) => m.a === 4],
  ['a <> 4', (m) => m.a !== 4],
  ['a BETWEEN 2 AND 4', (m) => m.a >= 2 && m.a <= 4],
  ['a NOT BETWEEN 2 AND 9', (m) => m.a < 2 || m.a > 9],
  ["s = 'x'", (m) => m.s === 'x'],
  ["s <> 'x'", (m) => m.s !== 'x'],
  ["s IN ('x', 'z')", (m) => m.s === 'x' || m.s === 'z'],
  ["s NOT IN ('x')", (m) => m.s !== 'x'],
  ['b = TRUE', (m) => m.b],
  ['b = FALSE', (m) => !m.b],
  ['n IS NULL', (m) => m.n === null],
  ['n IS NOT NULL', (m) => m.n !== null],
  ['n > 0', (m) => m.n !== null],
  ['NOT (n > 50)', (m) => m.n !== null && m.n <= 50],
  ['nothing IS NULL AND a < 2', (m) => m.a < 2],
  ["a > 5 AND s = 'x'", (m) => m.a > 5 && m.s === 'x'],
  ["a < 2 OR s = 'z'", (m) => m.a < 2 || m.s === 'z'],
  ["a < 2 OR a > 9 AND s = 'z'", (m) => m.a < 2 || (m.a > 9 && m.s === 'z')],
  ["(a < 2 OR a > 9) AND s = 'z'", (m) => (m.a < 2 || m.a > 9) && m.s === 'z'],
  ["TAGS = 'A'", (m) => m.tag === 'A'],
  ["TAGS = 'A' AND a > 3", (m) => m.tag === 'A' && m.a > 3],
  ['a > 100', () => false],
];

describe('filter: SQL92 selectors end to end (broker with enablePropertyFilter, our push consumer)', function () {
  this.timeout(90000);
  let tc: TestCluster;
  let producer: DefaultMQProducer;
  const consumers: DefaultMQPushConsumer[] = [];
  const topic = randomName('SqlTopic');

  before(async function () {
    tc = await getCluster({ brokerConfig: { enablePropertyFilter: true } });
    if (!tc.cluster) {
      await tc.stop();
      this.skip();
    }
    producer = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: tc.namesrvAddr, instanceName: randomName('p'), sendMsgTimeout: 30_000 });
    await producer.start();
    for (const m of MSGS) {
      const msg = createMessage(topic, `m${m.i}`, { tags: m.tag });
      putUserProperty(msg, 'a', String(m.a));
      putUserProperty(msg, 's', m.s);
      putUserProperty(msg, 'b', String(m.b));
      if (m.n !== null) putUserProperty(msg, 'n', String(m.n));
      const r = await producer.send(msg);
      expect(r.sendStatus).to.equal('SEND_OK');
    }
  });
  after(async () => {
    await Promise.all(consumers.map((c) => c.shutdown()));
    await producer?.shutdown();
    await tc?.stop();
  });

  function consumer(group: string, namesrvAddr = tc.namesrvAddr): DefaultMQPushConsumer {
    const c = new DefaultMQPushConsumer({ consumerGroup: group, namesrvAddr, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: randomName('c') });
    consumers.push(c);
    return c;
  }

  it('each group gets exactly the messages its expression matches (every operator class, NULL semantics, TAGS as a property)', async () => {
    const received = CASES.map(() => [] as string[]);
    await Promise.all(CASES.map(async ([sql], k) => {
      const c = consumer(randomName('G'));
      c.subscribe(topic, MessageSelector.bySql(sql));
      c.registerMessageListener((msgs) => {
        for (const m of msgs) received[k].push(m.body.toString());
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
      });
      await c.start();
    }));
    const expected = CASES.map(([, f]) => MSGS.filter(f).map((m) => `m${m.i}`).sort());
    await waitFor(() => received.every((r, k) => r.length >= expected[k].length), 30000, 'every group\'s matches');
    // every queue has been pulled to its end by now for the groups with matches; give the others time too
    await new Promise((r) => setTimeout(r, 1500));
    for (let k = 0; k < CASES.length; k++) {
      expect(received[k].slice().sort(), CASES[k][0]).to.deep.equal(expected[k]);
    }
  });

  it('a tag-subscribed group beside SQL groups still filters by tag only', async () => {
    const got: string[] = [];
    const c = consumer(randomName('G'));
    c.subscribe(topic, 'B');
    c.registerMessageListener((msgs) => {
      for (const m of msgs) got.push(m.body.toString());
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    });
    await c.start();
    const expected = MSGS.filter((m) => m.tag === 'B').map((m) => `m${m.i}`).sort();
    await waitFor(() => got.length >= expected.length, 20000, 'tag B messages');
    await new Promise((r) => setTimeout(r, 300));
    expect(got.sort()).to.deep.equal(expected);
  });

  it('CHECK_CLIENT_CONFIG refuses a bad expression before the consumer starts: SUBSCRIPTION_PARSE_FAILED with Java\'s remark', async () => {
    const c = consumer(randomName('G'));
    c.subscribe(topic, MessageSelector.bySql('a > '));
    c.registerMessageListener(() => ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
    const err = await c.start().then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(MQClientError);
    expect((err as MQClientError).responseCode).to.equal(ResponseCode.SUBSCRIPTION_PARSE_FAILED);
    expect((err as MQClientError).message).to.contain('org.apache.rocketmq.filter.parser.ParseException: Encountered "<EOF>" at line 1, column 4.');
  });

  it('a broker without enablePropertyFilter refuses SQL92 subscriptions as Java does', async () => {
    const plain = await getCluster();
    try {
      const p = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: plain.namesrvAddr, instanceName: randomName('p') });
      await p.start();
      const t = randomName('T');
      await p.send(createMessage(t, 'x'));
      await p.shutdown();
      const c = consumer(randomName('G'), plain.namesrvAddr);
      c.subscribe(t, MessageSelector.bySql('a > 1'));
      c.registerMessageListener(() => ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
      const err = await c.start().then(() => null, (e: unknown) => e);
      expect(err).to.be.instanceOf(MQClientError);
      expect((err as MQClientError).responseCode).to.equal(ResponseCode.SYSTEM_ERROR);
      expect((err as MQClientError).message).to.contain('The broker does not support consumer to filter message by SQL92');
    } finally {
      await plain.stop();
    }
  });
});
