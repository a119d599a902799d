import { expect } from 'chai';
import { DefaultElectPolicy, type ElectCandidateInfo, compareCandidates } from '../../../lib/controller/elect-policy';

describe('controller: DefaultElectPolicy (Java elect/impl/DefaultElectPolicy)', () => {
  const info = (brokerId: number, epoch: number, maxOffset: number, electionPriority = 2147483647): ElectCandidateInfo => ({ brokerId, epoch, maxOffset, electionPriority });

  function policy(alive: number[], infos: ElectCandidateInfo[] = []): DefaultElectPolicy {
    return new DefaultElectPolicy(
      (_c, _b, id) => alive.includes(id),
      (_c, _b, id) => infos.find((i) => i.brokerId === id) ?? null,
    );
  }

  it('keeps an alive old master when nobody is designated', () => {
    expect(policy([1, 2]).elect('c', 'b', new Set([1, 2]), null, 1, null)).to.equal(1);
  });

  it('picks the SyncStateSet replica with the highest epoch, then the largest offset, then the smallest priority', () => {
    const p = policy([2, 3, 4], [info(2, 3, 100), info(3, 4, 50), info(4, 4, 80)]);
    expect(p.elect('c', 'b', new Set([1, 2, 3, 4]), null, 1, null)).to.equal(4);
    const q = policy([2, 3], [info(2, 4, 80, 5), info(3, 4, 80, 1)]);
    expect(q.elect('c', 'b', new Set([1, 2, 3]), null, 1, null)).to.equal(3);
  });

  it('elects nobody when no SyncStateSet replica is alive and unclean elections are off; among every replica when on', () => {
    const p = policy([3], [info(3, 1, 0)]);
    expect(p.elect('c', 'b', new Set([1, 2]), null, 1, null)).to.equal(null);
    expect(p.elect('c', 'b', new Set([1, 2]), new Set([1, 2, 3]), 1, null)).to.equal(3);
  });

  it('elects the designated broker if alive, else nobody, even over an alive old master', () => {
    const p = policy([1, 2]);
    expect(p.elect('c', 'b', new Set([1, 2]), null, 1, 2)).to.equal(2);
    expect(p.elect('c', 'b', new Set([1, 2]), null, 1, 3)).to.equal(null);
    expect(p.elect('c', 'b', new Set([1, 2]), null, 1, 1)).to.equal(1);
  });

  it('without live info falls back to the smallest alive id; without predicates every replica counts', () => {
    expect(new DefaultElectPolicy((_c, _b, id) => id !== 1).elect('c', 'b', new Set([3, 2, 1]), null, 1, null)).to.equal(2);
    expect(new DefaultElectPolicy().elect('c', 'b', new Set([5, 4]), null, null, null)).to.equal(4);
  });

  it('orders candidates as Java comparator does', () => {
    const sorted = [info(1, 1, 10), info(2, 2, 5), info(3, 2, 7, 9), info(4, 2, 7, 1)].sort(compareCandidates).map((i) => i.brokerId);
    expect(sorted).to.deep.equal([4, 3, 2, 1]);
  });
});
