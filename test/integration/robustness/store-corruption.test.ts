/**
 * The broker restarts over corrupt store files and keeps what the commit log holds: a consume-queue file full
 * of garbage or cut mid-entry, a truncated index file, a checkpoint file of the wrong size, and config JSON files
 * (topics.json, consumerOffset.json, subscriptionGroup.json, delayOffset.json) that are not JSON, where Java's
 * ConfigManager falls back to the `.bak` (and refuses to start, here with a ConfigError, when the `.bak` is
 * corrupt too). Seeded garbage: replay with ROBUSTNESS_SEED=<seed>.
 */
import { expect } from 'chai';
import fs from 'node:fs/promises';
import path from 'node:path';
import { startCluster, type Cluster, ConfigError } from '../../../lib/server';
import { registerLeftover } from '../../helpers/root-hooks';
import { randomName } from '../../helpers/cluster';
import { sendHeader, sendRequest } from '../broker/broker-helpers';
import { RemotingClient } from '../../../lib/transport/remoting-client';
import { ResponseCode } from '../../../protocol/code/response-code';
import { SendMessageResponseHeader } from '../../../protocol/header/send-message-response-header';
import { decodeMessages } from '../../../protocol/message/message-decoder';
import { randomBytes, seededRandom, sweepSeed } from './bad-input-helpers';

describe('robustness: the broker survives corrupt store files', function () {
  this.timeout(60000);
  const seed = sweepSeed('store corruption');
  const rand = seededRandom(seed);
  let cluster: Cluster | null = null;
  let removeLeftover: (() => void) | null = null;
  let client: RemotingClient;
  let topic: string;
  let root: string;
  let acked: { queueId: number; queueOffset: number; body: string }[];

  beforeEach(async () => {
    cluster = await startCluster();
    const c = cluster;
    removeLeftover = registerLeftover(() => c.stop());
    client = new RemotingClient();
    topic = randomName('CORRUPT');
    root = cluster.brokers[0].messageStoreConfig.storePathRootDir;
    acked = [];
    for (let i = 0; i < 24; i++) {
      const body = `kept-${i}`;
      const res = await client.invoke(cluster.brokers[0].brokerAddr, sendRequest('V2', sendHeader(topic, { KEYS: `key${i}` }, i % 4), Buffer.from(body)), 5000);
      expect(res.code, res.remark ?? '').to.equal(ResponseCode.SUCCESS);
      const h = SendMessageResponseHeader.decode(res.extFields);
      acked.push({ queueId: h.queueId, queueOffset: h.queueOffset, body });
    }
    // persist the config files twice so each has a .bak
    const b = cluster.brokers[0];
    for (let i = 0; i < 2; i++) {
      await b.topicConfigManager.persistNow();
      await b.consumerOffsetManager.persistNow();
      await b.subscriptionGroupManager.persistNow();
      await b.scheduleMessageService.persist();
    }
    await b.shutdown();
  });

  afterEach(async () => {
    await client.shutdown();
    removeLeftover?.();
    await cluster?.stop();
    cluster = null;
  });

  /** Every acknowledged message, read from the store (by queue) after the restart. */
  async function expectAllKept(): Promise<void> {
    const store = cluster!.brokers[0].messageStore;
    for (let q = 0; q < 4; q++) {
      const expected = acked.filter((a) => a.queueId === q);
      const r = await store.getMessage('G', topic, q, 0, 64);
      const bodies = r.messages.flatMap((m) => decodeMessages(m)).map((m) => m.body.toString());
      for (const a of expected) expect(bodies[a.queueOffset], `queue ${q} offset ${a.queueOffset} (status ${r.status})`).to.equal(a.body);
    }
  }

  function cqFile(queueId: number): string {
    return path.join(root, 'consumequeue', topic, String(queueId), '00000000000000000000');
  }
  const configFile = (name: string) => path.join(root, 'config', name);
  /** The files under `dir` this process holds open (/proc/self/fd). */
  const openFilesUnder = async (dir: string): Promise<string[]> => {
    const out: string[] = [];
    for (const fd of await fs.readdir('/proc/self/fd')) {
      const target = await fs.readlink(path.join('/proc/self/fd', fd)).catch(() => '');
      if (target.startsWith(dir + path.sep)) out.push(target);
    }
    return out;
  };

  // The damaged queue's lost entries are rebuilt from the commit log on start (Java 4.9.8 leaves them lost).
  it('rebuilds a consume queue full of garbage from the commit log', async () => {
    const f = cqFile(0);
    const size = (await fs.stat(f)).size;
    await fs.writeFile(f, randomBytes(rand, size));
    await cluster!.restartBroker(0);
    await expectAllKept();
  });

  it('recovers a consume queue cut in the middle of an entry, and one that is empty', async () => {
    await fs.truncate(cqFile(1), 3 * 20 + 7);
    await fs.truncate(cqFile(2), 0);
    await cluster!.restartBroker(0);
    await expectAllKept();
  });

  it('starts with a truncated index file', async () => {
    const dir = path.join(root, 'index');
    const files = await fs.readdir(dir);
    expect(files.length).to.be.greaterThan(0);
    for (const f of files) await fs.truncate(path.join(dir, f), 30);
    await cluster!.restartBroker(0);
    await expectAllKept();
  });

  for (const size of [0, 10, 23, 100000]) {
    it(`starts with a checkpoint file of ${size} bytes, after a clean and an abnormal exit`, async () => {
      const cp = path.join(root, 'checkpoint');
      const bytes = randomBytes(rand, size);
      await fs.writeFile(cp, bytes);
      await cluster!.restartBroker(0);
      await expectAllKept();
      await cluster!.brokers[0].shutdown();
      await fs.writeFile(cp, bytes);
      await fs.writeFile(path.join(root, 'abort'), '');
      await cluster!.restartBroker(0);
      await expectAllKept();
    });
  }

  const CONFIGS = ['topics.json', 'consumerOffset.json', 'subscriptionGroup.json', 'delayOffset.json'];
  for (const name of CONFIGS) {
    it(`falls back to ${name}.bak when ${name} is not JSON`, async () => {
      await fs.writeFile(configFile(name), '{"this is": not json');
      const b = await cluster!.restartBroker(0);
      await expectAllKept();
      if (name === 'topics.json') expect(b.topicConfigManager.selectTopicConfig(topic), 'topic config from the .bak').to.not.equal(undefined);
    });

    it(`starts with an empty table when ${name} is not JSON and there is no .bak`, async () => {
      await fs.writeFile(configFile(name), Buffer.from([0xff, 0x00, 0x7b, 0x22]));
      await fs.rm(configFile(`${name}.bak`), { force: true });
      await cluster!.restartBroker(0);
      await expectAllKept();
    });

    it(`refuses to start with a ConfigError when ${name} and its .bak are both corrupt, and starts once repaired`, async () => {
      const good = await fs.readFile(configFile(name));
      await fs.writeFile(configFile(name), '[1,2,');
      await fs.writeFile(configFile(`${name}.bak`), '{"offsetTable":');
      let err: unknown = null;
      try {
        await cluster!.restartBroker(0);
      } catch (e) {
        err = e;
      }
      expect(err, 'restart must fail').to.be.instanceOf(ConfigError);
      expect((err as Error).message).to.match(/config|corrupt/i);
      // the refused start left no file of the store open (it used to leave every commit-log and queue file open)
      expect(await openFilesUnder(root), 'files the refused start left open').to.deep.equal([]);
      // and the corrupt files are as they were, for a person to repair
      expect(await fs.readFile(configFile(name), 'utf8')).to.equal('[1,2,');
      await fs.writeFile(configFile(name), good);
      await cluster!.restartBroker(0);
      await expectAllKept();
    });
  }
});
