/**
 * A tiny mocha file for test/unit/stress/stress.test.ts to run through `npm run test:stress` (its name does not
 * match *.test.js, so the suite itself never runs it): one test passes, one fails when RMQ_STRESS_FIXTURE_FAIL is set.
 */
import { expect } from 'chai';

describe('stress fixture', () => {
  it('passes', () => {
    expect(1 + 1).to.equal(2);
  });

  it('fails when asked to', () => {
    expect(process.env.RMQ_STRESS_FIXTURE_FAIL ?? '', 'RMQ_STRESS_FIXTURE_FAIL').to.equal('');
  });
});
