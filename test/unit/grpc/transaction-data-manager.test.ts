import { expect } from 'chai';
import { type TransactionData, TransactionDataManager } from '../../../lib/grpc/transaction-data-manager';

function data(commitLogOffset: number, checkTimestamp: number, expireMs = 30_000): TransactionData {
  return { brokerName: 'b', topic: 'T', tranStateTableOffset: commitLogOffset / 10, commitLogOffset, transactionId: 'tx', checkTimestamp, expireMs };
}

describe('lib/grpc/transaction-data-manager (TransactionDataManager)', () => {
  it('polls the newest entry not expired, dropping the expired ones met', () => {
    const m = new TransactionDataManager({ transactionDataMaxNum: 15, transactionDataExpireScanPeriodMillis: 10_000 });
    m.addTransactionData('T', 'tx', data(100, 1000));
    m.addTransactionData('T', 'tx', data(200, 2000));
    m.addTransactionData('T', 'tx', data(300, 3000, 10));
    // The entry of offset 300 expires at 3010: gone at 5000; the next is 200's.
    expect(m.pollNoExpireTransactionData('T', 'tx', 5000)?.commitLogOffset).to.equal(200);
    expect(m.pollNoExpireTransactionData('T', 'tx', 5000)?.commitLogOffset).to.equal(100);
    expect(m.pollNoExpireTransactionData('T', 'tx', 5000)).to.equal(undefined);
    expect(m.size).to.equal(0);
  });

  it('keys by producer group and transaction id; keeps at most transactionDataMaxNum per key; the cleaner pass drops expired ones', () => {
    const m = new TransactionDataManager({ transactionDataMaxNum: 2, transactionDataExpireScanPeriodMillis: 10_000 });
    for (let i = 1; i <= 3; i++) m.addTransactionData('T', 'tx', data(i * 100, i * 1000));
    expect(m.pollNoExpireTransactionData('U', 'tx', 0)).to.equal(undefined);
    expect(m.size).to.equal(2);
    m.cleanExpireTransactionData(2000 + 30_000 + 1);
    expect(m.size).to.equal(1);
    expect(m.pollNoExpireTransactionData('T', 'tx', 0)?.commitLogOffset).to.equal(300);
    const d = data(400, 1);
    m.addTransactionData('T', 'tx', d);
    m.removeTransactionData('T', 'tx', { ...d });
    expect(m.size).to.equal(0);
  });
});
