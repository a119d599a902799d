import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BrokerMetadata, TempBrokerMetadata } from '../../../../lib/store/autoswitch/broker-metadata';
import { MessageStoreError } from '../../../../lib/errors';

describe('store/autoswitch: brokerIdentity and brokerIdentity-temp files', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'broker-metadata-'));
  });
  afterEach(async () => {
    await fs.promises.rm(dir, { recursive: true, force: true });
  });

  it('writes Java\'s bytes: cluster#brokerName#id, no line end, and reads them back', async () => {
    const file = path.join(dir, 'brokerIdentity');
    const m = new BrokerMetadata(file);
    await m.updateAndPersist('DefaultCluster', 'broker-a', 3);
    expect(await fs.promises.readFile(file)).to.deep.equal(Buffer.from('DefaultCluster#broker-a#3', 'utf8'));
    expect(fs.existsSync(`${file}.tmp`)).to.equal(false);
    const back = new BrokerMetadata(file);
    await back.readFromFile();
    expect(back.isLoaded()).to.equal(true);
    expect([back.clusterName, back.brokerName, back.brokerId]).to.deep.equal(['DefaultCluster', 'broker-a', 3]);
  });

  it('the temp file adds the register check code (<address>;<ms>) and is loaded only with it', async () => {
    const file = path.join(dir, 'brokerIdentity-temp');
    const t = new TempBrokerMetadata(file);
    await t.updateAndPersistTemp('C', 'b', 1, '127.0.0.1:10911;1764777600000');
    expect(await fs.promises.readFile(file, 'utf8')).to.equal('C#b#1#127.0.0.1:10911;1764777600000');
    const back = new TempBrokerMetadata(file);
    await back.readFromFile();
    expect(back.isLoaded()).to.equal(true);
    expect(back.registerCheckCode).to.equal('127.0.0.1:10911;1764777600000');
    // a plain identity file read as a temp one lacks the code
    await fs.promises.writeFile(file, 'C#b#1');
    const partial = new TempBrokerMetadata(file);
    let err: unknown = null;
    try {
      await partial.readFromFile();
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(MessageStoreError);
    expect(partial.isLoaded()).to.equal(false);
  });

  it('a missing file leaves it unloaded; clear() deletes the file', async () => {
    const file = path.join(dir, 'sub', 'brokerIdentity');
    const m = new BrokerMetadata(file);
    await m.readFromFile();
    expect(m.isLoaded()).to.equal(false);
    await m.updateAndPersist('C', 'b', 2);
    expect(m.fileExists()).to.equal(true);
    await m.clear();
    expect(m.fileExists()).to.equal(false);
    expect(m.isLoaded()).to.equal(false);
  });
});
