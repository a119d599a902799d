import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { resolveBrokerConfig } from '../../../lib/broker/broker-config';
import { ConsumerOffsetManager } from '../../../lib/broker/offset/consumer-offset-manager';

describe('ConsumerOffsetManager: the periodic persist writes only what moved', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'rmq-offsets-'));
  });
  afterEach(async () => {
    await fs.promises.rm(dir, { recursive: true, force: true });
  });

  it('skips the write while no offset moved, writes once one did, and the file holds it', async () => {
    const m = new ConsumerOffsetManager(resolveBrokerConfig({ storePathRootDir: dir }), pino({ level: 'silent' }));
    let writes = 0;
    const persist = m.persist.bind(m);
    m.persist = () => { writes++; return persist(); };
    for (let g = 0; g < 500; g++) m.commitOffset('127.0.0.1', `G${g}`, 'T', 0, 10);
    await m.persistIfChanged();
    expect(writes).to.equal(1);
    await m.persistIfChanged();
    m.commitOffset('127.0.0.1', 'G1', 'T', 0, 10); // a client committing the same offset again
    await m.persistIfChanged();
    expect(writes).to.equal(1);
    m.commitOffset('127.0.0.1', 'G1', 'T', 0, 11);
    await m.persistIfChanged();
    expect(writes).to.equal(2);
    m.removeOffset('G2');
    await m.persistIfChanged();
    expect(writes).to.equal(3);
    const again = new ConsumerOffsetManager(resolveBrokerConfig({ storePathRootDir: dir }), pino({ level: 'silent' }));
    await again.load();
    expect(again.queryOffset('G1', 'T', 0)).to.equal(11);
    expect(again.queryOffset('G2', 'T', 0)).to.equal(-1);
  });
});
