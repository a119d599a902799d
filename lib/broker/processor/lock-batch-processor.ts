/**
 * LOCK_BATCH_MQ (41) and UNLOCK_BATCH_MQ (42): queue locks for orderly consumers. Java answers both from
 * AdminBrokerProcessor: LOCK with SUCCESS and a LockBatchResponseBody of the queues now held; UNLOCK with SUCCESS.
 *
 * @see org.apache.rocketmq.broker.processor.AdminBrokerProcessor#lockBatchMQ
 * @see org.apache.rocketmq.broker.processor.AdminBrokerProcessor#unlockBatchMQ
 */
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { decodeLockBatchRequestBody, encodeLockBatchResponseBody } from '../../../protocol/body/lock-batch';
import { RemotingCommand } from '../../../protocol/remoting-command';
import type { RemotingContext } from '../../transport/processor';
import type { MessageQueue } from '../../../protocol/message/message-queue';

/** What the processor needs of the controller. */
export interface LockBatchController {
  /** lib/broker/client-manager/RebalanceLockManager. */
  readonly rebalanceLockManager: {
    tryLockBatch(group: string, mqs: readonly MessageQueue[], clientId: string): MessageQueue[];
    unlockBatch(group: string, mqs: readonly MessageQueue[], clientId: string): void;
  };
}

export class LockBatchProcessor {
  readonly requestCodes: readonly number[] = [RequestCode.LOCK_BATCH_MQ, RequestCode.UNLOCK_BATCH_MQ];

  constructor(private readonly controller: LockBatchController) {}

  async processRequest(request: RemotingCommand, _ctx: RemotingContext): Promise<RemotingCommand | null> {
    if (!request.body || request.body.length === 0) {
      return RemotingCommand.createResponse(request, ResponseCode.SYSTEM_ERROR, 'request body is null');
    }
    const body = decodeLockBatchRequestBody(request.body);
    const locks = this.controller.rebalanceLockManager;
    if (request.code === RequestCode.LOCK_BATCH_MQ) {
      const lockOKMQSet = locks.tryLockBatch(body.consumerGroup, body.mqSet, body.clientId);
      return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null, null, encodeLockBatchResponseBody({ lockOKMQSet }));
    }
    locks.unlockBatch(body.consumerGroup, body.mqSet, body.clientId);
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null);
  }
}
