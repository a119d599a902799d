/**
 * The broker's report of its optional native pieces (lib/broker/accelerators.ts): what it uses, what it falls back to,
 * how to install the faster path, in one line logged at start.
 */
import { expect } from 'chai';
import { ACCELERATOR_PACKAGES, acceleratorsLine, brokerAccelerators } from '../../../lib/broker/accelerators';
import { startCluster } from '../../../lib/server';
import { CompressionType, compressionImplementation, crc32Implementation, setCompressionCodecPackageForTest } from '../../../protocol/message/compression';
import { mmapUnavailable } from '../../../lib/store/mmap';

describe('lib/broker/accelerators', () => {
  it('names the fallback and the package to install for what is missing', () => {
    try {
      setCompressionCodecPackageForTest('LZ4', 'rocketmq-ts-no-such-lz4-package');
      const list = brokerAccelerators("write segments (@riaskov/mmap-io cannot be loaded (Cannot find module '@riaskov/mmap-io'))", false);
      expect(list.map((a) => a.packageName)).to.deep.equal(['@riaskov/mmap-io', '@node-rs/crc32', 'lz4-napi', '@toondepauw/node-zstd']);
      const mmap = list[0];
      expect(mmap.inUse).to.equal(false);
      expect(mmap.uses).to.equal('write segments (not installed)');
      const lz4 = list[2];
      expect(lz4.inUse).to.equal(false);
      expect(lz4.uses).to.equal('none');
      const line = acceleratorsLine(list);
      expect(line.split('\n')).to.have.length(1);
      expect(line).to.contain('commit log memory maps: write segments (not installed), faster with npm install @riaskov/mmap-io');
      expect(line).to.contain('LZ4 bodies (clients here): none, to read them with npm install lz4-napi');
      expect(line).to.match(/\(all: npm install @riaskov\/mmap-io .*lz4-napi.*\)$/);
    } finally {
      setCompressionCodecPackageForTest('LZ4');
    }
    // a configured fallback keeps its reason; ACL adds js-yaml
    const acl = brokerAccelerators('write segments (transientStorePoolEnable=true)', true);
    expect(acl[0].uses).to.equal('write segments (transientStorePoolEnable=true)');
    expect(acl.at(-1)).to.deep.include({ packageName: ACCELERATOR_PACKAGES.yaml, inUse: true });
  });

  it('a started broker reports what this install has (the clone installs every accelerator)', async () => {
    const cluster = await startCluster({});
    try {
      const list = cluster.brokers[0].accelerators;
      expect(list.map((a) => a.what)).to.have.length(4);
      const expected = (pkg: string) => list.find((a) => a.packageName === pkg)!;
      expect(expected('@riaskov/mmap-io').inUse).to.equal(mmapUnavailable() === null && cluster.brokers[0].messageStore.commitLog.writeMode === 'mapped');
      expect(expected('@node-rs/crc32').inUse).to.equal(crc32Implementation() === '@node-rs/crc32');
      expect(expected('lz4-napi').uses).to.equal(compressionImplementation(CompressionType.LZ4) ?? 'none');
      expect(expected('@toondepauw/node-zstd').uses).to.equal(compressionImplementation(CompressionType.ZSTD) ?? 'none');
      const line = acceleratorsLine(list);
      for (const a of list) if (!a.inUse) expect(line).to.contain(`npm install ${a.packageName}`);
    } finally {
      await cluster.stop();
    }
  });
});
