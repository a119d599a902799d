import { expect } from 'chai';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DefaultMessageStore } from '../../../lib/store/message-store';
import { GetMessageStatus } from '../../../lib/store/store-status';
import { goldenPath } from '../../helpers/golden';
import { SMALL, copyDir, decodeRecord, tempDir } from './store-test-util';

interface Recv { topic: string; queueId: number; queueOffset: number; msgId: string; bodyLength: number }

function readExpected(file: string): Recv[] {
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith('RECV ')).map((l) => {
    const f = l.split(' ');
    return { topic: f[1], queueId: Number(f[2]), queueOffset: Number(f[3]), msgId: f[4], bodyLength: Number(f[f.length - 2]) };
  });
}

async function checkAll(store: DefaultMessageStore, expected: Recv[]): Promise<void> {
  for (const e of expected) {
    const r = await store.getMessage('G', e.topic, e.queueId, e.queueOffset, 1);
    expect(r.status, `${e.topic}/${e.queueId}@${e.queueOffset}`).to.equal(GetMessageStatus.FOUND);
    const rec = decodeRecord(r.messages[0]);
    expect(rec.topic).to.equal(e.topic);
    expect(rec.queueId).to.equal(e.queueId);
    expect(rec.queueOffset).to.equal(e.queueOffset);
    expect(rec.properties.UNIQ_KEY).to.equal(e.msgId);
    const cl = await store.getCommitLogOffsetInQueue(e.topic, e.queueId, e.queueOffset);
    expect(rec.physicalOffset).to.equal(cl);
    const looked = await store.lookMessageByOffset(cl);
    expect(looked!.equals(r.messages[0])).to.equal(true);
  }
}

describe('store: Java 4.9.8 golden stores', function () {
  this.timeout(60000);
  let dir: string;
  let store: DefaultMessageStore | null = null;

  afterEach(async () => {
    await store?.shutdown();
    store = null;
    await fsp.rm(dir, { recursive: true, force: true });
  });

  it('opens the cleanly shut down store and reads every message back at its queue and commit-log offsets', async () => {
    dir = await tempDir();
    await copyDir(goldenPath('store-4.9.8', 'store'), dir);
    store = new DefaultMessageStore({ ...SMALL, storePathRootDir: dir });
    await store.load();
    expect(store.lastExitOK).to.equal(true);
    await store.start();
    const viewDir = goldenPath('store-4.9.8', 'java-view');
    let total = 0;
    for (const f of fs.readdirSync(viewDir).filter((n) => /^expected-[A-Za-z]+Topic\.txt$/.test(n) && !n.includes('topicStatus'))) {
      const expected = readExpected(path.join(viewDir, f));
      total += expected.length;
      await checkAll(store, expected);
    }
    expect(total).to.be.greaterThan(20);
    // mqadmin topicStatus of CapTopic: max offsets 9, 3, 4, 4, min 0.
    expect([0, 1, 2, 3].map((q) => store!.getMaxOffsetInQueue('CapTopic', q))).to.deep.equal([9, 3, 4, 4]);
    expect([0, 1, 2, 3].map((q) => store!.getMinOffsetInQueue('CapTopic', q))).to.deep.equal([0, 0, 0, 0]);
    // The Java index answers a key query.
    const cap = readExpected(path.join(viewDir, 'expected-CapTopic.txt'))[0];
    const q = await store.queryMessage('CapTopic', cap.msgId, 32, 0, Date.now() + 1e12);
    expect(q.messages.map((m) => decodeRecord(m).properties.UNIQ_KEY)).to.include(cap.msgId);
    // New appends continue the Java sequence.
    const before = store.getMaxOffsetInQueue('CapTopic', 1);
    const put = await store.putMessage({
      topic: 'CapTopic', queueId: 1, flag: 0, body: Buffer.from('after'), propertiesString: 'TAGS\u0001TagA\u0002',
      bornTimestamp: Date.now(), bornHost: { host: '127.0.0.1', port: 1 }, sysFlag: 0, reconsumeTimes: 0, preparedTransactionOffset: 0,
    });
    expect(put.putMessageStatus).to.equal('PUT_OK');
    expect(put.appendMessageResult!.logicsOffset).to.equal(before);
  });

  it('recovers the store a killed Java broker left: all 2,000 CrashTopic messages', async () => {
    dir = await tempDir();
    await copyDir(goldenPath('store-4.9.8-crashed', 'store'), dir);
    store = new DefaultMessageStore({ ...SMALL, storePathRootDir: dir });
    await store.load();
    expect(store.lastExitOK).to.equal(false);
    await store.start();
    const expected = readExpected(goldenPath('store-4.9.8-crashed', 'java-view', 'expected-CrashTopic.txt'));
    expect(expected).to.have.length(2000);
    await checkAll(store, expected);
    let sum = 0;
    for (let q = 0; q < 4; q++) sum += store.getMaxOffsetInQueue('CrashTopic', q);
    expect(sum).to.equal(2000);
    const keyed = await store.queryMessage('CrashTopic', 'c1999', 32, 0, Date.now() + 1e12);
    expect(keyed.messages.map((m) => decodeRecord(m).properties.KEYS)).to.include('c1999');
  });
});
