/**
 * lib/consumer/consumer-core.ts, run for both consumers that extend it: the start order (register, load the
 * offsets, then run), what a failed start undoes, the logger option reaching the parts the core builds, and the
 * MQConsumerInner answers the core gives.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import pino from 'pino';
import { ConsumeFromWhere, MessageModel } from '../../../protocol/body/heartbeat-data';
import { DefaultLitePullConsumer, type LitePullConsumerClient } from '../../../lib/consumer/lite-pull-consumer';
import { DefaultMQPushConsumer } from '../../../lib/consumer/push-consumer';
import { ConsumeConcurrentlyStatus } from '../../../lib/consumer/listener';
import type { OffsetStore } from '../../../lib/consumer/offset/offset-store';
import { LocalFileOffsetStore } from '../../../lib/consumer/offset/local-file-offset-store';

/** A fake client that records the calls the core makes, in order. */
function fakeClient(log: string[], options: { register?: boolean } = {}): LitePullConsumerClient {
  return {
    clientId: 'fake@1',
    api: {} as LitePullConsumerClient['api'],
    findBrokerAddressInSubscribe: () => undefined,
    findBrokerAddressInPublish: () => undefined,
    updateTopicRouteInfoFromNameServer: async (topic: string) => { log.push(`route ${topic}`); return false; },
    findConsumerIdList: async () => ['fake@1'],
    registerConsumer: (group: string) => { log.push(`register ${group}`); return options.register ?? true; },
    unregisterConsumer: async (group: string) => { log.push(`unregister ${group}`); },
    sendHeartbeatToAllBrokerWithLock: async () => { log.push('heartbeat'); },
    rebalanceImmediately: () => { log.push('rebalanceImmediately'); },
    checkClientInBroker: async () => { log.push('checkClientInBroker'); },
  } as unknown as LitePullConsumerClient;
}

function recordingStore(log: string[], failLoad = false): OffsetStore {
  return {
    load: async () => { log.push('load'); if (failLoad) throw new Error('disk gone'); },
    updateOffset: () => undefined,
    readOffset: async () => 0,
    persistAll: async () => { log.push('persistAll'); },
    persist: async () => undefined,
    removeOffset: () => undefined,
    cloneOffsetTable: () => [],
    updateConsumeOffsetToBroker: async () => undefined,
  };
}

function memoryLogger(): { logger: pino.Logger; lines: Array<Record<string, unknown>>; raw: string[] } {
  const lines: Array<Record<string, unknown>> = [];
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      for (const l of chunk.toString().split('\n')) {
        if (!l) continue;
        raw.push(l);
        lines.push(JSON.parse(l) as Record<string, unknown>);
      }
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines, raw };
}

type Kind = 'push' | 'lite';
type Options = { client: LitePullConsumerClient; offsetStore?: OffsetStore; logger?: pino.Logger; messageModel?: MessageModel; localOffsetStoreDir?: string };

function make(kind: Kind, o: Options): DefaultMQPushConsumer | DefaultLitePullConsumer {
  if (kind === 'lite') {
    const c = new DefaultLitePullConsumer({ consumerGroup: 'G', ...o });
    c.subscribe('T', '*');
    return c;
  }
  const c = new DefaultMQPushConsumer({ consumerGroup: 'G', ...o });
  c.subscribe('T', '*');
  c.registerMessageListener(async () => ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
  return c;
}

for (const kind of ['push', 'lite'] as const) {
  describe(`lib/consumer/consumer-core (${kind})`, () => {
    it('starts in one order: register the group, load the offsets, then routes, heartbeat and a rebalance', async () => {
      const log: string[] = [];
      const c = make(kind, { client: fakeClient(log), offsetStore: recordingStore(log) });
      await c.start();
      try {
        const expected = kind === 'push'
          ? ['register G', 'load', 'route T', 'route %RETRY%G', 'checkClientInBroker', 'heartbeat', 'rebalanceImmediately']
          : ['register G', 'load', 'route T', 'heartbeat', 'rebalanceImmediately'];
        expect(log).to.deep.equal(expected);
      } finally {
        await c.shutdown();
      }
      expect(log.slice(-2)).to.deep.equal(['persistAll', 'unregister G']);
    });

    it('a group registered twice fails before anything is loaded', async () => {
      const log: string[] = [];
      const c = make(kind, { client: fakeClient(log, { register: false }), offsetStore: recordingStore(log) });
      let err: Error | undefined;
      await c.start().catch((e: Error) => { err = e; });
      expect(err?.message).to.match(/The consumer group\[G\] has been created before/);
      expect(log).to.deep.equal(['register G']);
    });

    it('a failed offset load unregisters the group again, and the error reaches the caller', async () => {
      const log: string[] = [];
      const c = make(kind, { client: fakeClient(log), offsetStore: recordingStore(log, true) });
      let err: Error | undefined;
      await c.start().catch((e: Error) => { err = e; });
      expect(err?.message).to.equal('disk gone');
      expect(log).to.deep.equal(['register G', 'load', 'unregister G']);
      await c.shutdown();
      expect(log).to.have.length(3);
    });

    it('the logger option reaches the offset store the core builds (broadcasting, unreadable offsets file)', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), `core-logger-${kind}-`));
      try {
        const file = new LocalFileOffsetStore('fake@1', 'G', dir).storePath;
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, '{ not json');
        const { logger, lines, raw } = memoryLogger();
        const c = make(kind, { client: fakeClient([]), logger, messageModel: MessageModel.BROADCASTING, localOffsetStoreDir: dir });
        await c.start();
        await c.shutdown();
        const warning = lines.find((l) => l.component === 'offset-store');
        expect(warning, JSON.stringify(lines)).to.include({ group: 'G', msg: 'offsets file unreadable, trying the .bak file' });
        expect(lines.some((l) => l.msg === 'the consumer started' && l.group === 'G')).to.equal(true);
        // the parts write the group themselves: no line carries it twice
        for (const l of raw) expect(l.split('"group":').length - 1, l).to.be.at.most(1);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it('answers the MQConsumerInner questions from its options and subscriptions', async () => {
      const c = make(kind, { client: fakeClient([]), offsetStore: recordingStore([]) });
      expect(c.groupName()).to.equal('G');
      expect(c.messageModel()).to.equal(MessageModel.CLUSTERING);
      expect(c.consumeFromWhere()).to.equal(ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET);
      expect(c.subscriptions().map((s) => s.topic)).to.deep.equal(['T']);
      expect(c.isSubscribeTopicNeedUpdate('T')).to.equal(false);
      expect(c.getOffsetStore()).to.not.equal(undefined);
      await c.start();
      try {
        expect(c.subscriptions().map((s) => s.topic).sort()).to.deep.equal(kind === 'push' ? ['%RETRY%G', 'T'] : ['T']);
        expect(c.isSubscribeTopicNeedUpdate('T')).to.equal(true);
        c.updateTopicSubscribeInfo('T', [{ topic: 'T', brokerName: 'b', queueId: 0 }]);
        expect(c.isSubscribeTopicNeedUpdate('T')).to.equal(false);
        expect(c.consumerRunningInfo().properties.get('consumerGroup')).to.equal('G');
      } finally {
        await c.shutdown();
      }
    });
  });
}
