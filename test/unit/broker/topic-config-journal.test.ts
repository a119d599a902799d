import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { resolveBrokerConfig } from '../../../lib/broker/broker-config';
import { TopicConfigManager } from '../../../lib/broker/topic/topic-config-manager';
import { newTopicConfig } from '../../../protocol/body/topic-config';
import { decodeTopicConfigSerializeWrapper } from '../../../protocol/body/topic-config-serialize-wrapper';
import { dataVersionEquals } from '../../../protocol/body/data-version';

const logger = pino({ level: 'silent' });

describe('TopicConfigManager: topics.json with a journal', () => {
  let dir: string;
  const manager = () => new TopicConfigManager(resolveBrokerConfig({ storePathRootDir: dir, brokerName: 'b1' }), logger);
  const file = () => path.join(dir, 'config', 'topics.json');

  beforeEach(async () => {
    dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'rmq-topics-'));
  });
  afterEach(async () => {
    await fs.promises.rm(dir, { recursive: true, force: true });
  });

  it('journals each create: the whole file is written a number of times that grows with the log of the count', async () => {
    const m = manager();
    await m.load();
    const n = 5000;
    for (let i = 0; i < n; i++) await m.updateTopicConfig(newTopicConfig(`T${i}`, { readQueueNums: 8, writeQueueNums: 8 }));
    // Whole writes happen when the journal outgrows the file: doubling sizes, so about log2(5000 * line / 64 KiB).
    expect(m.compactions).to.be.greaterThan(0).and.lessThan(12);
    const again = manager();
    await again.load();
    for (const t of ['T0', 'T2500', `T${n - 1}`]) expect(again.selectTopicConfig(t)?.writeQueueNums).to.equal(8);
    expect(again.topicConfigTable.size).to.equal(m.topicConfigTable.size);
    expect(dataVersionEquals(again.dataVersion, m.dataVersion)).to.equal(true);
  });

  it('a burst of concurrent creates shares journal appends, every one replayed in order', async () => {
    const m = manager();
    await m.load();
    const n = 500;
    await Promise.all(Array.from({ length: n }, (_, i) => m.updateTopicConfig(newTopicConfig(`B${i}`, { readQueueNums: i % 16 + 1, writeQueueNums: 1 }))));
    // The first append goes alone; those made while it is on its way share the next ones.
    expect(m.journalAppends).to.be.greaterThan(0).and.lessThan(n / 10);
    await m.updateTopicConfig(newTopicConfig('B7', { readQueueNums: 99, writeQueueNums: 1 }));
    const again = manager();
    await again.load();
    expect(again.topicConfigTable.size).to.equal(m.topicConfigTable.size);
    expect(again.selectTopicConfig('B7')?.readQueueNums).to.equal(99);
    expect(again.selectTopicConfig(`B${n - 1}`)?.readQueueNums).to.equal((n - 1) % 16 + 1);
    expect(dataVersionEquals(again.dataVersion, m.dataVersion)).to.equal(true);
  });

  it('replays creates, updates and deletes after a crash (no clean shutdown), a cut last line ignored', async () => {
    const m = manager();
    await m.load();
    await m.persistNow();
    await m.updateTopicConfig(newTopicConfig('A', { readQueueNums: 4, writeQueueNums: 4 }));
    await m.updateTopicConfig(newTopicConfig('B'));
    await m.updateTopicConfig(newTopicConfig('A', { readQueueNums: 2, writeQueueNums: 2 }));
    m.deleteTopicConfig('B');
    await m.updateTopicConfig(newTopicConfig('C'));
    // The crash: the journal's last line cut in half.
    await fs.promises.appendFile(`${file()}.log`, '{"put":{"topicName":"D","readQ');
    const again = manager();
    await again.load();
    expect(again.selectTopicConfig('A')?.readQueueNums).to.equal(2);
    expect(again.selectTopicConfig('B')).to.equal(undefined);
    expect(again.selectTopicConfig('C')).to.not.equal(undefined);
    expect(again.selectTopicConfig('D')).to.equal(undefined);
    expect(dataVersionEquals(again.dataVersion, m.dataVersion)).to.equal(true);
    // Loading put the journal into the file: topics.json alone (what a Java broker reads) holds it all.
    expect(fs.existsSync(`${file()}.log`)).to.equal(false);
    const w = decodeTopicConfigSerializeWrapper(await fs.promises.readFile(file()));
    expect(w.topicConfigTable.get('A')?.readQueueNums).to.equal(2);
    expect(w.topicConfigTable.has('B')).to.equal(false);
  });

  it('a clean shutdown (persistNow) leaves topics.json complete and no journal', async () => {
    const m = manager();
    await m.load();
    for (let i = 0; i < 10; i++) await m.updateTopicConfig(newTopicConfig(`S${i}`));
    expect(fs.existsSync(`${file()}.log`)).to.equal(true);
    await m.persistNow();
    expect(fs.existsSync(`${file()}.log`)).to.equal(false);
    expect(fs.existsSync(`${file()}.log.old`)).to.equal(false);
    const w = decodeTopicConfigSerializeWrapper(await fs.promises.readFile(file()));
    for (let i = 0; i < 10; i++) expect(w.topicConfigTable.has(`S${i}`)).to.equal(true);
    expect(dataVersionEquals(w.dataVersion, m.dataVersion)).to.equal(true);
  });
});
