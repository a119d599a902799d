import { expect } from 'chai';
import { RebalanceLockManager } from '../../../../lib/broker/client-manager/rebalance-lock-manager';
import { LockBatchProcessor } from '../../../../lib/broker/processor/lock-batch-processor';
import { decodeLockBatchResponseBody, encodeLockBatchRequestBody } from '../../../../protocol/body/lock-batch';
import { RequestCode } from '../../../../protocol/code/request-code';
import { ResponseCode } from '../../../../protocol/code/response-code';
import { RemotingCommand } from '../../../../protocol/remoting-command';
import type { RemotingContext } from '../../../../lib/transport/processor';

const mq = (queueId: number) => ({ topic: 'T', brokerName: 'b', queueId });
const ctx = {} as RemotingContext;

describe('broker/client-manager/RebalanceLockManager', () => {
  let clock = 1000;
  let m: RebalanceLockManager;
  beforeEach(() => {
    clock = 1000;
    m = new RebalanceLockManager({ now: () => clock });
  });

  it('locks for one client and refuses another until the lock expires after 60 s', () => {
    expect(m.tryLockBatch('G', [mq(0), mq(1)], 'c1')).to.deep.equal([mq(0), mq(1)]);
    expect(m.isLocked('G', mq(0), 'c1')).to.equal(true);
    expect(m.isLocked('G', mq(0), 'c2')).to.equal(false);
    expect(m.tryLockBatch('G', [mq(0), mq(2)], 'c2')).to.deep.equal([mq(2)]);
    expect(m.lockOwner('G', mq(2))).to.equal('c2');
    // other groups are independent
    expect(m.tryLock('G2', mq(0), 'c2')).to.equal(true);
    clock += 60000;
    expect(m.tryLock('G', mq(1), 'c2')).to.equal(false); // exactly 60 s: still live
    clock += 1;
    expect(m.tryLockBatch('G', [mq(0), mq(1)], 'c2')).to.deep.equal([mq(0), mq(1)]);
    expect(m.isLocked('G', mq(0), 'c1')).to.equal(false);
  });

  it('renews a lock when its holder locks again or checks it', () => {
    m.tryLock('G', mq(0), 'c1');
    clock += 50000;
    expect(m.isLocked('G', mq(0), 'c1')).to.equal(true);
    clock += 50000;
    expect(m.tryLock('G', mq(0), 'c2')).to.equal(false);
    clock += 50000;
    expect(m.tryLock('G', mq(0), 'c1')).to.equal(true);
  });

  it('unlocks only the caller\'s own locks', () => {
    m.tryLockBatch('G', [mq(0), mq(1)], 'c1');
    m.unlockBatch('G', [mq(0)], 'c2');
    expect(m.isLocked('G', mq(0), 'c1')).to.equal(true);
    m.unlockBatch('G', [mq(0)], 'c1');
    expect(m.lockOwner('G', mq(0))).to.equal(null);
    expect(m.tryLock('G', mq(0), 'c2')).to.equal(true);
    m.unlockBatch('nope', [mq(0)], 'c1');
  });

  it('LockBatchProcessor answers LOCK_BATCH_MQ with the queues held and UNLOCK_BATCH_MQ with SUCCESS', async () => {
    const p = new LockBatchProcessor({ rebalanceLockManager: m });
    expect(p.requestCodes).to.deep.equal([41, 42]);
    const lock = (clientId: string, qs: number[]) =>
      RemotingCommand.createRequest(RequestCode.LOCK_BATCH_MQ, null,
        encodeLockBatchRequestBody({ consumerGroup: 'G', clientId, mqSet: qs.map(mq) }));
    const r1 = (await p.processRequest(lock('c1', [0, 1]), ctx))!;
    expect(r1.code).to.equal(ResponseCode.SUCCESS);
    expect(decodeLockBatchResponseBody(r1.body!).lockOKMQSet).to.deep.equal([mq(0), mq(1)]);
    const r2 = (await p.processRequest(lock('c2', [1, 2]), ctx))!;
    expect(decodeLockBatchResponseBody(r2.body!).lockOKMQSet).to.deep.equal([mq(2)]);
    const un = RemotingCommand.createRequest(RequestCode.UNLOCK_BATCH_MQ, null,
      encodeLockBatchRequestBody({ consumerGroup: 'G', clientId: 'c1', mqSet: [mq(1)] }));
    const r3 = (await p.processRequest(un, ctx))!;
    expect(r3.code).to.equal(ResponseCode.SUCCESS);
    expect(r3.body).to.equal(null);
    const r4 = (await p.processRequest(lock('c2', [1]), ctx))!;
    expect(decodeLockBatchResponseBody(r4.body!).lockOKMQSet).to.deep.equal([mq(1)]);
    const bad = (await p.processRequest(RemotingCommand.createRequest(RequestCode.LOCK_BATCH_MQ), ctx))!;
    expect(bad.code).to.equal(ResponseCode.SYSTEM_ERROR);
  });
});
