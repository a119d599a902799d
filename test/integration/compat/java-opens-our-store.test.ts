/**
 * Our broker's store opened by the Java 4.9.8 broker: the commit log written through memory maps (the default; its
 * files carry zeros reserved ahead of the write position and a blank filler at each file's end), the consume queues
 * and the config files. Java serves every message, after a clean shutdown and after a crash (the abort file left in
 * place, so Java recovers the files abnormally).
 */
import { expect } from 'chai';
import fs from 'node:fs/promises';
import path from 'node:path';
import { BrokerController } from '../../../lib/broker/broker-controller';
import { DefaultLitePullConsumer, DefaultMQProducer } from '../../../lib/index';
import { createMessage } from '../../../protocol/message/message';
import { StorePath } from '../../../lib/store/message-store-config';
import { randomName, startTestNamesrv } from '../../helpers/cluster';
import { makeRunDir, skipWithoutJava, startJavaBroker } from '../../helpers/javaref';

/** Small files, so the messages span several commit-log files (each ended by a blank filler). */
const COMMIT_LOG_FILE = 1024 * 1024;
const CONSUME_QUEUE_FILE = 300 * 20;

describe('compat: the Java 4.9.8 broker opens the store our broker wrote', function () {
  this.timeout(300_000);
  skipWithoutJava('4.9.8');
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  const namesrv = (): Promise<string> => startTestNamesrv(cleanups, 'ourstore-ns-');

  /** What our broker stored, as Java's consumer must see it: body → tags and keys. */
  async function writeWithOurs(namesrvAddr: string, storeDir: string, topic: string): Promise<Map<string, string>> {
    const b = new BrokerController({
      brokerConfig: { brokerName: 'ours-a', brokerClusterName: 'DefaultCluster', brokerIP1: '127.0.0.1', namesrvAddr, storePathRootDir: storeDir },
      messageStoreConfig: { storePathRootDir: storeDir, mappedFileSizeCommitLog: COMMIT_LOG_FILE, mappedFileSizeConsumeQueue: CONSUME_QUEUE_FILE },
      remotingServerConfig: { bindAddress: '127.0.0.1', listenPort: 0 },
    });
    await b.start();
    cleanups.push(() => b.shutdown());
    expect(b.messageStore.commitLog.writeMode).to.equal('mapped');
    // the topic is created by the first send (autoCreateTopicEnable, as in Java)
    const p = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr, instanceName: randomName('p'), pollNameServerInterval: 200 });
    await p.start();
    const sent = new Map<string, string>();
    try {
      for (let i = 0; i < 600; i++) {
        const body = `m${i}-${'x'.repeat(1000 + (i % 5) * 700)}`;
        const r = await p.send(createMessage(topic, body, { tags: `t${i % 3}`, keys: `k${i}` }));
        expect(r.sendStatus).to.equal('SEND_OK');
        sent.set(body, `t${i % 3}/k${i}`);
      }
    } finally {
      await p.shutdown();
    }
    // 1 MiB files: the 600 messages (about 1.6 MB) span more than one
    expect(b.messageStore.commitLog.mappedFileQueue.files.length).to.be.greaterThan(1);
    await b.shutdown();
    return sent;
  }

  async function readWithJavaBroker(namesrvAddr: string, runDir: string, storeDir: string, topic: string, n: number): Promise<Map<string, string>> {
    const j = await startJavaBroker('4.9.8', {
      namesrvAddr, runDir, storeDir, brokerName: 'ours-a',
      conf: { mappedFileSizeCommitLog: COMMIT_LOG_FILE, mappedFileSizeConsumeQueue: CONSUME_QUEUE_FILE },
    });
    cleanups.push(() => j.stop());
    const c = new DefaultLitePullConsumer({ consumerGroup: randomName('CG'), namesrvAddr, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: randomName('c'), pollNameServerInterval: 200 });
    c.subscribe(topic, '*');
    await c.start();
    const got = new Map<string, string>();
    try {
      const deadline = Date.now() + 60_000;
      while (got.size < n && Date.now() < deadline) {
        for (const m of await c.poll(500)) got.set(m.body!.toString(), `${m.properties.TAGS}/${m.properties.KEYS}`);
      }
    } finally {
      await c.shutdown();
    }
    return got;
  }

  for (const exit of ['a clean shutdown', 'a crash (abort file left)'] as const) {
    it(`serves every message after ${exit}`, async () => {
      const ns = await namesrv();
      const runDir = makeRunDir('ourstore-');
      cleanups.push(() => fs.rm(runDir, { recursive: true, force: true }));
      const storeDir = path.join(runDir, 'store');
      const topic = randomName('OURS');
      const sent = await writeWithOurs(ns, storeDir, topic);
      if (exit === 'a crash (abort file left)') await fs.writeFile(StorePath.abort(storeDir), '');
      const got = await readWithJavaBroker(ns, runDir, storeDir, topic, sent.size);
      expect(got.size).to.equal(sent.size);
      for (const [body, tagsKeys] of sent) expect(got.get(body), body.slice(0, 6)).to.equal(tagsKeys);
    });
  }
});
