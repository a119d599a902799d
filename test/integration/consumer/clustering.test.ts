/**
 * DefaultMQPushConsumer in clustering mode against the in-process cluster: a group of three sharing 8 queues, members
 * joining and leaving (rebalanced on NOTIFY_CONSUMER_IDS_CHANGED), restart from the committed offset, start points of
 * a new group, tag filters, and a broker restart under a running consumer.
 */
import { expect } from 'chai';
import { MQClientManager } from '../../../lib/client/mq-client-manager';
import { ConsumeConcurrentlyStatus } from '../../../lib/consumer/listener';
import type { DefaultMQPushConsumer } from '../../../lib/consumer/push-consumer';
import { type OffsetStore, OffsetTable, ReadOffsetType } from '../../../lib/consumer/offset/offset-store';
import type { MessageQueue } from '../../../protocol/message/message-queue';
import { randomName, skipWhenExternal, waitFor } from '../../helpers/cluster';
import { type ConsumerEnv, consumerEnv, expectAll, isBalanced } from './consumer-helpers';

/** An offset store that knows nothing at first, as a broker answering QUERY_NOT_FOUND for a new group. */
class MemoryOffsetStore implements OffsetStore {
  readonly table = new OffsetTable();
  async load(): Promise<void> { /* nothing to load */ }
  updateOffset(mq: MessageQueue, offset: number, increaseOnly: boolean): void { this.table.update(mq, offset, increaseOnly); }
  async readOffset(mq: MessageQueue, _type: ReadOffsetType): Promise<number> { return this.table.get(mq) ?? -1; }
  async persistAll(): Promise<void> { /* in memory */ }
  async persist(): Promise<void> { /* in memory */ }
  removeOffset(mq: MessageQueue): void { this.table.delete(mq); }
  cloneOffsetTable(topic?: string): Array<[MessageQueue, number]> { return this.table.clone(topic); }
  async updateConsumeOffsetToBroker(mq: MessageQueue, offset: number): Promise<void> { this.table.update(mq, offset, false); }
}

/**
 * Creates `c`'s client instance (the consumer shares it when it starts) with a rebalance period longer than the test:
 * every rebalance it then makes comes from its start or a broker notification. Returns the release.
 */
function withoutPeriodicRebalance(c: DefaultMQPushConsumer): () => Promise<void> {
  const manager = MQClientManager.getInstance();
  const instance = manager.acquire(c.clientConfig, { rebalanceIntervalMillis: 3_600_000 });
  return () => manager.release(instance);
}

function counting(c: DefaultMQPushConsumer, seen: Map<string, number>, onMessage?: () => void): void {
  c.registerMessageListener((msgs) => {
    for (const m of msgs) {
      const k = m.body.toString();
      seen.set(k, (seen.get(k) ?? 0) + 1);
    }
    onMessage?.();
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
  });
}

describe('consumer: clustering end to end', function () {
  this.timeout(60_000);
  let env: ConsumerEnv;

  before(async function () {
    env = await consumerEnv();
    skipWhenExternal(this, 'the tests restart the in-process broker and read its rebalance state');
    if (!env.tc.cluster) this.skip();
  });
  after(async () => {
    await env?.stop();
  });
  const releases: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(releases.splice(0).map((release) => release()));
  });

  it('three consumers of one group share 8 queues: 10,000 messages, none lost, no duplicates without a rebalance', async () => {
    const topic = randomName('T8');
    const group = randomName('G');
    await env.createTopic(topic, 8);
    const seen = new Map<string, number>();
    const cs = [0, 1, 2].map(() => env.consumer(group, { pullBatchSize: 32 }));
    for (const c of cs) {
      c.subscribe(topic, '*');
      counting(c, seen);
    }
    await Promise.all(cs.map((c) => c.start()));
    await waitFor(() => isBalanced(cs, topic, 8), 10_000, '8 queues divided among 3');
    await env.sendMany(topic, 10_000);
    await waitFor(() => seen.size === 10_000, 40_000, '10,000 messages');
    const { duplicates } = expectAll(seen, 'm', 10_000);
    console.log(`      3 consumers x 8 queues: 10000 consumed, ${duplicates} duplicates`);
    expect(duplicates).to.equal(0);
    await Promise.all(cs.map((c) => c.shutdown()));
  });

  it('a member joins and one leaves: the others rebalance on the notification, long before the 20 s timer', async () => {
    const topic = randomName('T8');
    const group = randomName('G');
    await env.createTopic(topic, 8);
    const seen = new Map<string, number>();
    const a = env.consumer(group);
    const b = env.consumer(group);
    // No periodic rebalance (Java's is every 20 s): the members can only rebalance on the broker's notification.
    releases.push(...[a, b].map(withoutPeriodicRebalance));
    for (const c of [a, b]) {
      c.subscribe(topic, '*');
      counting(c, seen);
    }
    await a.start();
    await b.start();
    await waitFor(() => isBalanced([a, b], topic, 8), 10_000, 'two members balanced');
    let sent = 0;
    let sending = true;
    const producing = (async () => {
      while (sending) {
        await env.sendMany(topic, 50, `j${sent / 50}_`);
        sent += 50;
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const c3 = env.consumer(group);
    releases.push(withoutPeriodicRebalance(c3));
    c3.subscribe(topic, '*');
    counting(c3, seen);
    let t0 = Date.now();
    await c3.start();
    await waitFor(() => isBalanced([a, b, c3], topic, 8), 20_000, 'three members balanced after a join');
    const joinMs = Date.now() - t0;
    await new Promise((r) => setTimeout(r, 1000));
    t0 = Date.now();
    await a.shutdown();
    await waitFor(() => isBalanced([b, c3], topic, 8), 20_000, 'two members balanced after a leave');
    const leaveMs = Date.now() - t0;
    await new Promise((r) => setTimeout(r, 1000));
    sending = false;
    await producing;
    const total = sent;
    await waitFor(() => {
      let n = 0;
      for (let i = 0; i < total / 50; i++) for (let j = 0; j < 50; j++) if (seen.has(`j${i}_${j}`)) n++;
      return n === total;
    }, 20_000, `${total} messages`);
    let duplicates = 0;
    for (const v of seen.values()) duplicates += v - 1;
    console.log(`      rebalanced ${joinMs} ms after a join, ${leaveMs} ms after a leave; ${total} messages, ${duplicates} duplicates around the rebalances`);
    // before the 20 s timer would have fired, had it been running
    expect(joinMs).to.be.below(20_000);
    expect(leaveMs).to.be.below(20_000);
    await Promise.all([b.shutdown(), c3.shutdown()]);
  });

  /** A consumer of `group` on `topic`, started, counting what it consumes into `seen`. */
  async function startCounting(group: string, topic: string, seen: Map<string, number>): Promise<DefaultMQPushConsumer> {
    const c = env.consumer(group);
    c.subscribe(topic, '*');
    counting(c, seen);
    await c.start();
    return c;
  }

  it('a restarted consumer resumes from the committed offset', async () => {
    const topic = randomName('T');
    const group = randomName('G');
    await env.createTopic(topic, 4);
    await env.sendMany(topic, 40, 'first');
    const seen = new Map<string, number>();
    const c1 = await startCounting(group, topic, seen);
    await waitFor(() => seen.size === 40, 15_000, 'first 40');
    await c1.shutdown();
    await env.sendMany(topic, 30, 'second');
    const again = new Map<string, number>();
    const c2 = await startCounting(group, topic, again);
    await waitFor(() => again.size === 30, 15_000, 'second 30');
    await new Promise((r) => setTimeout(r, 300));
    expect([...again.keys()].filter((k) => !k.startsWith('second'))).to.deep.equal([]);
    expectAll(again, 'second', 30);
    await c2.shutdown();
  });

  it('the same consumer object shut down and started again resumes from the committed offset', async () => {
    const topic = randomName('T');
    const group = randomName('G');
    await env.createTopic(topic, 4);
    await env.sendMany(topic, 20, 'first');
    const seen = new Map<string, number>();
    const c = await startCounting(group, topic, seen);
    await waitFor(() => seen.size === 20, 15_000, 'first 20');
    // its client instance closes with it (its only user); the second run needs an offset store on the new one
    await c.shutdown();
    await env.sendMany(topic, 20, 'second');
    await c.start();
    await waitFor(() => [...seen.keys()].filter((k) => k.startsWith('second')).length === 20, 15_000, 'second 20 after the restart');
    expectAll(seen, 'second', 20);
    await c.shutdown();
  });

  it('an offset store that fails at shutdown: the failure is logged, the consumer still leaves its client instance', async () => {
    const topic = randomName('T');
    const group = randomName('G');
    await env.createTopic(topic, 2);
    const c = env.consumer(group);
    c.subscribe(topic, '*');
    counting(c, new Map());
    await c.start();
    const clientId = c.clientConfig.buildMQClientId();
    expect(MQClientManager.getInstance().get(clientId), 'the instance while running').to.not.equal(undefined);
    c.getOffsetStore()!.persistAll = async () => { throw new Error('the offset store failed'); };
    await c.shutdown();
    expect(MQClientManager.getInstance().get(clientId), 'the instance after shutdown').to.equal(undefined);
  });

  it('start points of a new group: FIRST_OFFSET, LAST_OFFSET and TIMESTAMP', async () => {
    const topic = randomName('T');
    await env.createTopic(topic, 2);
    await env.sendMany(topic, 20, 'old', { batch: 10 }); // both queues hold old and mid messages
    // The broker answers the queue offset whose store time is nearest the stamp, which has whole seconds: the stamp
    // is a whole second at least 2 s after the old messages and the mid ones are sent right at it, so they are the
    // nearest unless sending them takes this machine 2 s.
    const stampAt = Math.ceil((Date.now() + 2000) / 1000) * 1000;
    await new Promise((r) => setTimeout(r, stampAt - Date.now()));
    const middle = new Date(stampAt);
    await env.sendMany(topic, 20, 'mid', { batch: 10 });
    const p = (n: number): string => String(n).padStart(2, '0');
    const stamp = `${middle.getFullYear()}${p(middle.getMonth() + 1)}${p(middle.getDate())}${p(middle.getHours())}${p(middle.getMinutes())}${p(middle.getSeconds())}`;

    // FIRST_OFFSET with the broker's store: everything
    const first = new Map<string, number>();
    const cf = env.consumer(randomName('G'), { consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    cf.subscribe(topic, '*');
    counting(cf, first);
    // LAST_OFFSET / TIMESTAMP on a store that knows no offset (a broker answering QUERY_NOT_FOUND)
    const last = new Map<string, number>();
    const cl = env.consumer(randomName('G'), { consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET', offsetStore: new MemoryOffsetStore() });
    cl.subscribe(topic, '*');
    counting(cl, last);
    const ts = new Map<string, number>();
    const ct = env.consumer(randomName('G'), { consumeFromWhere: 'CONSUME_FROM_TIMESTAMP', consumeTimestamp: stamp, offsetStore: new MemoryOffsetStore() });
    ct.subscribe(topic, '*');
    counting(ct, ts);
    await Promise.all([cf.start(), cl.start(), ct.start()]);
    await waitFor(() => first.size === 40 && ts.size === 20, 15_000, 'FIRST 40 and TIMESTAMP 20').catch((e: Error) => { throw new Error(`${e.message}: first ${first.size} ts ${ts.size} ${[...ts.keys()].slice(0, 5).join()}`); });
    await new Promise((r) => setTimeout(r, 500));
    expect(last.size, 'LAST_OFFSET consumed old messages').to.equal(0);
    await env.sendMany(topic, 10, 'new');
    await waitFor(() => last.size === 10 && ts.size === 30, 15_000, 'LAST 10 new');
    expect([...last.keys()].every((k) => k.startsWith('new'))).to.equal(true);
    expect([...ts.keys()].every((k) => !k.startsWith('old'))).to.equal(true);
    await Promise.all([cf.shutdown(), cl.shutdown(), ct.shutdown()]);
  });

  it('tag filters: "b || c" gets b and c only, "*" everything', async () => {
    const topic = randomName('T');
    await env.createTopic(topic, 4);
    await env.sendMany(topic, 20, 'a', { tags: 'a' });
    await env.sendMany(topic, 20, 'b', { tags: 'b' });
    await env.sendMany(topic, 20, 'c', { tags: 'c' });
    const tags: string[] = [];
    const c = env.consumer(randomName('G'));
    c.subscribe(topic, 'b || c');
    c.registerMessageListener((msgs) => {
      for (const m of msgs) tags.push(m.properties.TAGS);
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    });
    const all = new Map<string, number>();
    const star = env.consumer(randomName('G'));
    star.subscribe(topic, '*');
    counting(star, all);
    await Promise.all([c.start(), star.start()]);
    await waitFor(() => tags.length === 40 && all.size === 60, 15_000, '40 tagged, 60 in all');
    await new Promise((r) => setTimeout(r, 300));
    expect(tags.length).to.equal(40);
    expect(new Set(tags)).to.deep.equal(new Set(['b', 'c']));
    await Promise.all([c.shutdown(), star.shutdown()]);
  });

  it('the broker restarted under a running consumer: consumption goes on, nothing lost', async () => {
    const topic = randomName('T');
    await env.createTopic(topic, 4);
    const seen = new Map<string, number>();
    // The restarted broker knows the group again at the consumer's next heartbeat (its pulls are refused until
    // then): a 1 s interval instead of the default 30 s, so the wait below is not a race with that timer.
    const c = env.consumer(randomName('G'), { heartbeatBrokerInterval: 1000 });
    c.subscribe(topic, '*');
    counting(c, seen);
    await c.start();
    await env.sendMany(topic, 100, 'before');
    await waitFor(() => seen.size === 100, 15_000, '100 before the restart');
    await env.tc.cluster!.restartBroker(0);
    await waitFor(async () => {
      try {
        await env.sendMany(topic, 100, 'after');
        return true;
      } catch {
        return false;
      }
    }, 15_000, 'sending after the restart');
    await waitFor(() => seen.size === 200, 30_000, '100 after the restart');
    expectAll(seen, 'after', 100);
    await c.shutdown();
  });
});
