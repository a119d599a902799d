import { expect } from 'chai';
import { ConsumeMessageConcurrentlyService } from '../../../lib/consumer/consume-message-concurrently-service';
import type { ConsumeServiceHost } from '../../../lib/consumer/consume-service';
import { ConsumeConcurrentlyStatus } from '../../../lib/consumer/listener';
import { ProcessQueue } from '../../../lib/consumer/process-queue';
import { OffsetTable, type OffsetStore } from '../../../lib/consumer/offset/offset-store';
import type { MessageModel } from '../../../protocol/body/heartbeat-data';
import type { MessageExt } from '../../../protocol/message/message';
import type { MessageQueue } from '../../../protocol/message/message-queue';
import { msgAt } from './process-queue.test';
import { waitFor } from '../../helpers/cluster';

const mq: MessageQueue = { topic: 'T', brokerName: 'b', queueId: 0 };

function fakeStore(): OffsetStore & { table: OffsetTable } {
  const table = new OffsetTable();
  return {
    table,
    load: async () => undefined,
    updateOffset: (q, o, inc) => table.update(q, o, inc),
    readOffset: async (q) => table.get(q) ?? -1,
    persistAll: async () => undefined,
    persist: async () => undefined,
    removeOffset: (q) => table.delete(q),
    cloneOffsetTable: (t) => table.clone(t),
    updateConsumeOffsetToBroker: async () => undefined,
  };
}

function host(model: MessageModel, over: Partial<ConsumeServiceHost> = {}): ConsumeServiceHost & { sentBack: MessageExt[]; store: ReturnType<typeof fakeStore> } {
  const store = fakeStore();
  const sentBack: MessageExt[] = [];
  return {
    consumerGroup: 'G', messageModel: () => model, offsetStore: store, store, sentBack,
    consumeThreadMax: 2, consumeMessageBatchMaxSize: 1, consumeTimeout: 15, suspendCurrentQueueTimeMillis: 1000, maxReconsumeTimes: -1,
    sendMessageBack: async (m) => { sentBack.push(m); },
    sendRetryMessageForOrderly: async () => true,
    lockOneMQ: async () => true,
    withoutNamespace: (s) => s,
    processQueues: () => [],
    ...over,
  };
}

describe('lib/consumer/ConsumeMessageConcurrentlyService', () => {
  it('runs at most consumeThreadMax listener calls at once and commits the smallest offset in flight', async () => {
    const h = host('CLUSTERING');
    let running = 0;
    let maxRunning = 0;
    const release: Array<() => void> = [];
    const svc = new ConsumeMessageConcurrentlyService(h, async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      await new Promise<void>((r) => release.push(r));
      running--;
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    });
    svc.start();
    const pq = new ProcessQueue();
    const msgs = [msgAt(0), msgAt(1), msgAt(2), msgAt(3)];
    pq.putMessage(msgs);
    svc.submitConsumeRequest(msgs, pq, mq, true);
    await new Promise((r) => setImmediate(r));
    expect(maxRunning).to.equal(2);
    release[1]();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(h.store.table.get(mq)).to.equal(0);
    release[0]();
    for (let i = 0; i < 100 && release.length < 4; i++) await new Promise((r) => setImmediate(r));
    expect(release).to.have.length(4);
    release[2]();
    release[3]();
    await svc.shutdown(1000);
    expect(h.store.table.get(mq)).to.equal(4);
    expect(maxRunning).to.equal(2);
  });

  it('RECONSUME_LATER or a throw sends the messages back in clustering; ackIndex keeps the acknowledged ones', async () => {
    const h = host('CLUSTERING', { consumeMessageBatchMaxSize: 3 });
    let call = 0;
    const svc = new ConsumeMessageConcurrentlyService(h, (batch, ctx) => {
      call++;
      if (call === 1) {
        ctx.ackIndex = 0;
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
      }
      throw new Error('boom');
    });
    svc.start();
    const pq = new ProcessQueue();
    const msgs = [msgAt(0), msgAt(1), msgAt(2), msgAt(3)];
    pq.putMessage(msgs);
    svc.submitConsumeRequest(msgs, pq, mq, true);
    await svc.shutdown(1000);
    expect(h.sentBack.map((m) => m.queueOffset).sort()).to.deep.equal([1, 2, 3]);
    expect(h.store.table.get(mq)).to.equal(4);
  });

  it('broadcasting never sends back; a failed send-back is retried locally with reconsumeTimes + 1', async () => {
    const b = host('BROADCASTING');
    const svc = new ConsumeMessageConcurrentlyService(b, () => ConsumeConcurrentlyStatus.RECONSUME_LATER);
    svc.start();
    const pq = new ProcessQueue();
    pq.putMessage([msgAt(0)]);
    svc.submitConsumeRequest([...pq.msgTreeMap.values()], pq, mq, true);
    await svc.shutdown(1000);
    expect(b.sentBack).to.have.length(0);
    expect(b.store.table.get(mq)).to.equal(1);

    const c = host('CLUSTERING', { sendMessageBack: async () => { throw new Error('broker down'); } });
    const svc2 = new ConsumeMessageConcurrentlyService(c, () => ConsumeConcurrentlyStatus.RECONSUME_LATER);
    svc2.start();
    const pq2 = new ProcessQueue();
    const m = msgAt(5);
    pq2.putMessage([m]);
    svc2.submitConsumeRequest([m], pq2, mq, true);
    // the listener ran and the send-back failed (not a fixed 20 ms later: this machine may be slower)
    await waitFor(() => m.reconsumeTimes > 0, 10_000, 'the failed send-back');
    expect(m.reconsumeTimes).to.equal(1);
    expect(pq2.msgCount).to.equal(1);
    // the failed message stays in flight: the committed offset does not pass it
    expect(c.store.table.get(mq)).to.equal(5);
    await svc2.shutdown(0);
  });
});
