import { expect } from 'chai';
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalFileOffsetStore, decodeOffsetFile, encodeOffsetFile } from '../../../../lib/consumer/offset/local-file-offset-store';
import { ReadOffsetType } from '../../../../lib/consumer/offset/offset-store';

describe('lib/consumer/offset/LocalFileOffsetStore', () => {
  let dir: string;
  beforeEach(async () => { dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'rmq-offsets-')); });
  afterEach(async () => { await fsp.rm(dir, { recursive: true, force: true }); });

  const q0 = { topic: 'T', brokerName: 'broker-a', queueId: 0 };
  const q1 = { topic: 'T', brokerName: 'broker-a', queueId: 1 };

  it('writes <dir>/<clientId>/<group>/offsets.json and reads it back after a restart', async () => {
    const s = new LocalFileOffsetStore('10.0.0.1@c1', 'G', dir);
    await s.load();
    s.updateOffset(q0, 5, false);
    s.updateOffset(q1, 7, false);
    s.updateOffset(q1, 3, true);
    await s.persistAll([q0, q1]);
    const file = path.join(dir, '10.0.0.1@c1', 'G', 'offsets.json');
    const text = await fsp.readFile(file, 'utf8');
    expect(text).to.equal('{"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:5,{"brokerName":"broker-a","queueId":1,"topic":"T"}:7}}');
    const s2 = new LocalFileOffsetStore('10.0.0.1@c1', 'G', dir);
    await s2.load();
    expect(await s2.readOffset(q1, ReadOffsetType.READ_FROM_MEMORY)).to.equal(7);
    expect(await s2.readOffset({ ...q0, queueId: 9 }, ReadOffsetType.READ_FROM_STORE)).to.equal(-1);
    s.updateOffset(q0, 6, false);
    await s.persistAll([q0, q1]);
    expect(await fsp.readFile(`${file}.bak`, 'utf8')).to.equal(text);
  });

  it('reads Java\'s pretty-printed file and falls back to .bak when the file is broken', async () => {
    const javaText = '{\n\t"offsetTable":{{\n\t\t\t"brokerName":"broker-a",\n\t\t\t"queueId":1,\n\t\t\t"topic":"T"\n\t\t}:42\n\t}\n}';
    expect(decodeOffsetFile(javaText)).to.deep.equal([[q1, 42]]);
    const s = new LocalFileOffsetStore('cid', 'G', dir);
    await fsp.mkdir(path.dirname(s.storePath), { recursive: true });
    await fsp.writeFile(s.storePath, '{broken');
    await fsp.writeFile(`${s.storePath}.bak`, encodeOffsetFile([[q0, 11]]));
    await s.load();
    expect(await s.readOffset(q0, ReadOffsetType.READ_FROM_MEMORY)).to.equal(11);
  });
});
