import { expect } from 'chai';
import { putStatusOfAppendFailure } from '../../../../lib/broker/dledger/dledger-commit-log';
import { DLedgerError, DLedgerResponseCode } from '../../../../lib/dledger';
import { PutMessageStatus } from '../../../../lib/store/store-status';

describe('lib/broker/dledger DLedgerCommitLog: put status of a failed append (Java 4.9.8 DLedgerCommitLog.putMessage)', () => {
  it('no leader or a full disk: SERVICE_NOT_AVAILABLE; no quorum in time or too many pending: OS_PAGECACHE_BUSY; else UNKNOWN_ERROR', () => {
    const of = (code: number): PutMessageStatus => putStatusOfAppendFailure(new DLedgerError(code, 'x'));
    for (const c of [DLedgerResponseCode.INCONSISTENT_LEADER, DLedgerResponseCode.NOT_LEADER, DLedgerResponseCode.LEADER_NOT_READY, DLedgerResponseCode.DISK_FULL]) {
      expect(of(c), String(c)).to.equal(PutMessageStatus.SERVICE_NOT_AVAILABLE);
    }
    // not FLUSH_SLAVE_TIMEOUT: a client takes that as stored and does not send again
    expect(of(DLedgerResponseCode.WAIT_QUORUM_ACK_TIMEOUT)).to.equal(PutMessageStatus.OS_PAGECACHE_BUSY);
    expect(of(DLedgerResponseCode.LEADER_PENDING_FULL)).to.equal(PutMessageStatus.OS_PAGECACHE_BUSY);
    expect(of(DLedgerResponseCode.TERM_CHANGED)).to.equal(PutMessageStatus.UNKNOWN_ERROR);
    expect(putStatusOfAppendFailure(new Error('anything else'))).to.equal(PutMessageStatus.UNKNOWN_ERROR);
  });
});
