import { expect } from 'chai';
import fs from 'node:fs';
import { EPOCH_ENTRY_OPEN_END, decodeEpochEntryCache, encodeEpochEntryCache } from '../../../../protocol/body/epoch-entry-cache';
import { goldenPath } from '../../../helpers/golden';

describe('protocol/body EpochEntryCache (GET_BROKER_EPOCH_CACHE answers of two Java 5.3.3 brokers)', () => {
  for (const [role, brokerId] of [['master', 0], ['slave', 2]] as const) {
    it(`decodes the ${role}'s answer and encodes it back to the same bytes`, () => {
      const golden = fs.readFileSync(goldenPath('ha-autoswitch-5.3.3', role, 'get-broker-epoch-cache.json'));
      const c = decodeEpochEntryCache(golden);
      expect(c.brokerId).to.equal(brokerId);
      expect(c.clusterName).to.equal('CC');
      expect(c.brokerName).to.equal('cap');
      expect(c.epochList).to.deep.equal([{ epoch: 1, startOffset: 0, endOffset: EPOCH_ENTRY_OPEN_END }]);
      expect(c.maxOffset).to.be.greaterThan(0);
      expect(encodeEpochEntryCache(c)).to.deep.equal(golden);
    });
  }

  it('writes a closed entry\'s end offset as a number', () => {
    const b = encodeEpochEntryCache({ clusterName: 'c', brokerName: 'b', brokerId: 1, maxOffset: 300, epochList: [
      { epoch: 1, startOffset: 0, endOffset: 100 }, { epoch: 3, startOffset: 100, endOffset: EPOCH_ENTRY_OPEN_END }] });
    expect(b.toString()).to.equal('{"brokerId":1,"brokerName":"b","clusterName":"c","epochList":[{"endOffset":100,"epoch":1,"startOffset":0},'
      + '{"endOffset":9223372036854775807,"epoch":3,"startOffset":100}],"maxOffset":300}');
  });
});
