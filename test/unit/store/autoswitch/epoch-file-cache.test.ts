import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EPOCH_OPEN_END, EpochFileCache, decodeEpochCheckpoint, encodeEpochCheckpoint } from '../../../../lib/store/autoswitch/epoch-file-cache';
import { BrokerMetadata } from '../../../../lib/store/autoswitch/broker-metadata';
import { MessageStoreError } from '../../../../lib/errors';
import { goldenPath } from '../../../helpers/golden';

describe('store/autoswitch: epochFileCheckpoint (EpochFileCache)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'epoch-file-'));
  });
  afterEach(async () => {
    await fs.promises.rm(dir, { recursive: true, force: true });
  });

  it('reads the files a Java 5.3.3 master and slave wrote, and writes the same bytes', async () => {
    for (const role of ['master', 'slave']) {
      const golden = await fs.promises.readFile(goldenPath('ha-autoswitch-5.3.3', role, 'epochFileCheckpoint'));
      expect(decodeEpochCheckpoint(golden.toString('utf8'))).to.deep.equal([{ epoch: 1, startOffset: 0 }]);
      expect(Buffer.from(encodeEpochCheckpoint([{ epoch: 1, startOffset: 0 }]), 'utf8')).to.deep.equal(golden);
      const cache = new EpochFileCache(goldenPath('ha-autoswitch-5.3.3', role, 'epochFileCheckpoint'));
      await cache.initCacheFromFile();
      expect(cache.getAllEntries()).to.deep.equal([{ epoch: 1, startOffset: 0, endOffset: EPOCH_OPEN_END }]);
      expect(cache.lastEpoch()).to.equal(1);
    }
    // and the brokerIdentity files beside them
    const id = new BrokerMetadata(goldenPath('ha-autoswitch-5.3.3', 'slave', 'brokerIdentity'));
    await id.readFromFile();
    expect([id.clusterName, id.brokerName, id.brokerId]).to.deep.equal(['CC', 'cap', 2]);
    const ours = new BrokerMetadata(path.join(dir, 'brokerIdentity'));
    await ours.updateAndPersist('CC', 'cap', 2);
    expect(await fs.promises.readFile(path.join(dir, 'brokerIdentity'))).to.deep.equal(await fs.promises.readFile(goldenPath('ha-autoswitch-5.3.3', 'slave', 'brokerIdentity')));
  });

  it('appends epochs (each above the last), closes the previous entry, and persists with a .bak of the previous file', async () => {
    const file = path.join(dir, 'epochFileCheckpoint');
    const c = new EpochFileCache(file);
    await c.initCacheFromFile();
    expect(c.lastEpoch()).to.equal(-1);
    expect(await c.appendEntry({ epoch: 1, startOffset: 0 })).to.equal(true);
    expect(fs.existsSync(`${file}.bak`)).to.equal(false);
    expect(await c.appendEntry({ epoch: 3, startOffset: 1000 })).to.equal(true);
    expect(await c.appendEntry({ epoch: 2, startOffset: 2000 })).to.equal(false);
    expect(await c.appendEntry({ epoch: 4, startOffset: 1000 })).to.equal(false);
    // ours: an epoch that wrote nothing (starts where the new one starts) is replaced by the new one
    const d = new EpochFileCache();
    await d.appendEntry({ epoch: 1, startOffset: 0 });
    await d.appendEntry({ epoch: 3, startOffset: 1000 });
    expect(await d.appendEntryOverEmpty({ epoch: 2, startOffset: 2000 })).to.equal(false);
    expect(await d.appendEntryOverEmpty({ epoch: 4, startOffset: 1000 })).to.equal(true);
    expect(d.getAllEntries().map((e) => [e.epoch, e.startOffset, e.endOffset])).to.deep.equal([[1, 0, 1000], [4, 1000, EPOCH_OPEN_END]]);
    expect(c.getAllEntries()).to.deep.equal([{ epoch: 1, startOffset: 0, endOffset: 1000 }, { epoch: 3, startOffset: 1000, endOffset: EPOCH_OPEN_END }]);
    expect(await fs.promises.readFile(file, 'utf8')).to.equal(encodeEpochCheckpoint([{ epoch: 1, startOffset: 0 }, { epoch: 3, startOffset: 1000 }]));
    expect(await fs.promises.readFile(`${file}.bak`, 'utf8')).to.equal(encodeEpochCheckpoint([{ epoch: 1, startOffset: 0 }]));
    expect(c.findEpochEntryByOffset(999)?.epoch).to.equal(1);
    expect(c.findEpochEntryByOffset(1000)?.epoch).to.equal(3);
    expect(c.nextEntry(1)?.epoch).to.equal(3);
    const back = new EpochFileCache(file);
    await back.initCacheFromFile();
    expect(back.getAllEntries()).to.deep.equal(c.getAllEntries());
  });

  it('changes made at once (an HA client\'s truncation beside a change to master) are written one after the other, the last state on disk', async () => {
    const file = path.join(dir, 'epochFileCheckpoint');
    const c = new EpochFileCache(file);
    await c.appendEntry({ epoch: 1, startOffset: 0 });
    await c.appendEntry({ epoch: 2, startOffset: 500 });
    await Promise.all([c.truncateSuffixByOffset(500), c.truncateSuffixByEpoch(3), c.appendEntry({ epoch: 3, startOffset: 800 })]);
    expect(await fs.promises.readFile(file, 'utf8')).to.equal(encodeEpochCheckpoint([{ epoch: 1, startOffset: 0 }, { epoch: 3, startOffset: 800 }]));
    expect(fs.existsSync(`${file}.tmp`)).to.equal(false);
  });

  it('a damaged file (count or CRC) is refused and the .bak is read instead', async () => {
    const file = path.join(dir, 'epochFileCheckpoint');
    const c = new EpochFileCache(file);
    await c.appendEntry({ epoch: 1, startOffset: 0 });
    await c.appendEntry({ epoch: 2, startOffset: 500 });
    const text = await fs.promises.readFile(file, 'utf8');
    expect(() => decodeEpochCheckpoint(text.replace('2-500', '2-501'))).to.throw(MessageStoreError, /crc32/);
    expect(() => decodeEpochCheckpoint(text.replace(/^2\n/, '3\n'))).to.throw(MessageStoreError, /expect 3 entries/);
    await fs.promises.writeFile(file, text.replace('2-500', '2-501'));
    const back = new EpochFileCache(file);
    await back.initCacheFromFile();
    expect(back.getAllEntries().map((e) => e.epoch)).to.deep.equal([1]);
    // CRC 0 is not checked (Java's NOT_CHECK_CRC_MAGIC_CODE)
    expect(decodeEpochCheckpoint('1\n0\n5-77\n')).to.deep.equal([{ epoch: 5, startOffset: 77 }]);
  });

  it('finds the consistent point between two replicas and truncates suffix and prefix', async () => {
    const master = new EpochFileCache();
    await master.initCacheFromEntries([{ epoch: 1, startOffset: 0 }, { epoch: 2, startOffset: 100 }, { epoch: 4, startOffset: 300 }]);
    const slave = new EpochFileCache();
    // the slave was master at epoch 3 (which the master never saw) and wrote from 250
    await slave.initCacheFromEntries([{ epoch: 1, startOffset: 0 }, { epoch: 2, startOffset: 100 }, { epoch: 3, startOffset: 250 }]);
    slave.setLastEpochEntryEndOffset(400);
    expect(slave.findConsistentPoint(master)).to.equal(250);
    expect(master.findConsistentPoint(slave)).to.equal(250);
    const stranger = new EpochFileCache();
    await stranger.initCacheFromEntries([{ epoch: 9, startOffset: 0 }]);
    expect(stranger.findConsistentPoint(master)).to.equal(-1);
    await slave.truncateSuffixByOffset(250);
    expect(slave.getAllEntries()).to.deep.equal([{ epoch: 1, startOffset: 0, endOffset: 100 }, { epoch: 2, startOffset: 100, endOffset: EPOCH_OPEN_END }]);
    await master.truncateSuffixByEpoch(4);
    expect(master.lastEpoch()).to.equal(2);
    await master.truncatePrefixByOffset(100);
    expect(master.getAllEntries().map((e) => e.epoch)).to.deep.equal([2]);
  });
});
