/**
 * The checker's verdict the network chaos tests assert (not a test file): something was acknowledged, nothing
 * acknowledged was lost or left unconsumed, nothing consumed that was never sent, no queue offset acknowledged twice
 * or misplaced, no checker failure. `text` is the report shown when an assertion fails.
 */
import { expect } from 'chai';
import type { CheckReport } from '../../../chaos/net/checker';

export function expectNothingLost(report: CheckReport, text: string): void {
  expect(report.acknowledged, text).to.be.greaterThan(60);
  expect(report.lost, text).to.equal(0);
  expect(report.notConsumed, text).to.equal(0);
  expect(report.phantoms, text).to.deep.equal([]);
  expect(report.offsetConflicts, text).to.deep.equal([]);
  expect(report.misplaced, text).to.deep.equal([]);
  expect(report.failures, text).to.deep.equal([]);
}
