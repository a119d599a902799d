import { expect } from 'chai';
import { ClientConfig } from '../../../../lib/client/client-config';
import { MQClientManager } from '../../../../lib/client/mq-client-manager';
import { AsyncTraceDispatcher } from '../../../../lib/client/trace/async-trace-dispatcher';
import { TraceType, newTraceBean, newTraceContext } from '../../../../protocol/trace/trace-data-encoder';

interface Sent { topic: string; data: string; keys: string[] }

/** A dispatcher whose trace producer records what it would send (no network, never started). */
function dispatcher(traceTopic?: string): { d: AsyncTraceDispatcher; sent: Sent[]; next(): Promise<Sent> } {
  const d = new AsyncTraceDispatcher('G', 'PRODUCE', traceTopic, { clientConfig: new ClientConfig({ namesrvAddr: '127.0.0.1:1' }), clientManager: new MQClientManager() });
  const sent: Sent[] = [];
  const waiters: Array<(s: Sent) => void> = [];
  d.producer.send = async (topic: string, data: string, keys: Iterable<string>) => {
    const s = { topic, data, keys: [...keys] };
    sent.push(s);
    for (const w of waiters.splice(0)) w(s);
  };
  return { d, sent, next: () => new Promise<Sent>((r) => { waiters.push(r); }) };
}

function pub(msgId: string, keys: string | null, bodyLength = 1) {
  const c = newTraceContext(TraceType.Pub, { timeStamp: 1, regionId: 'R', groupName: 'G' });
  c.traceBeans.push(newTraceBean('h', { topic: 'T', msgId, keys, bodyLength, msgType: 0, offsetMsgId: 'O' }));
  return c;
}

describe('lib/client/trace/async-trace-dispatcher (Java AsyncTraceDispatcher)', () => {
  it('contexts appended together go out as one trace message: records back to back, KEYS the msgIds and keys', async () => {
    const { d, next } = dispatcher();
    const got = next();
    d.append(pub('A', 'k1 k2'));
    d.append(pub('B', null));
    d.append(pub('C', 'k1'));
    const s = await got; // after the 500 ms threshold
    expect(s.topic).to.equal('RMQ_SYS_TRACE_TOPIC');
    expect(s.data.split('\u0002').filter((x) => x).map((r) => r.split('\u0001')[5])).to.deep.equal(['A', 'B', 'C']);
    expect(s.keys).to.deep.equal(['A', 'k1', 'k2', 'B', 'C']);
    await d.shutdown();
  });

  it('a segment reaching maxMsgSize − 10,000 characters is sent at once; flush() sends the rest', async () => {
    const { d, sent } = dispatcher('MyTrace');
    const bigKeys = 'x'.repeat(30_000);
    for (let i = 0; i < 5; i++) d.append(pub(`M${i}`, bigKeys));
    await d.flush();
    expect(sent.map((s) => s.topic)).to.deep.equal(['MyTrace', 'MyTrace']);
    // 4 records of ~30,000 characters pass 118,000: the fifth waits for the flush
    expect(sent.map((s) => s.data.split('\u0002').filter((x) => x).length)).to.deep.equal([4, 1]);
    await d.shutdown();
  });

  it('drops contexts beyond the queue capacity (1024) and counts them; nothing is appended after shutdown', async () => {
    const { d } = dispatcher();
    let accepted = 0;
    for (let i = 0; i < 1030; i++) if (d.append(pub(`M${i}`, null))) accepted++;
    expect(accepted).to.equal(1024);
    expect(d.discardCount).to.equal(6);
    await d.shutdown();
    expect(d.append(pub('late', null))).to.equal(false);
  });

  it('a context appended while the shutdown flush waits for its sends goes out before shutdown() resolves, under no timer', async () => {
    const { d, sent } = dispatcher();
    d.producer.start = async () => undefined;
    d.producer.shutdown = async () => undefined;
    await d.start();
    const send = d.producer.send;
    let appendedDuringFlush = false;
    d.producer.send = async (topic: string, data: string, keys: Iterable<string>) => {
      // the traced client's send that ends while the first flush waits (its trace context comes now)
      if (!appendedDuringFlush) {
        appendedDuringFlush = true;
        expect(d.append(pub('during', null))).to.equal(true);
      }
      await new Promise((r) => setImmediate(r));
      return send(topic, data, keys);
    };
    d.append(pub('before', null));
    await d.shutdown();
    const ids = sent.flatMap((s) => s.data.split('\u0002').filter((x) => x).map((r) => r.split('\u0001')[5]));
    expect(ids).to.deep.equal(['before', 'during']);
    expect(d.append(pub('after', null))).to.equal(false);
  });
});
