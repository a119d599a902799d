/**
 * EndTransaction: a gRPC producer commits or rolls back its half message, after its local transaction (source
 * CLIENT) or answering a RecoverOrphanedTransactionCommand (source SERVER_CHECK, fromTransactionCheck). The half
 * message's offsets come from the data the endpoint recorded at the send or the check (producer group = the
 * topic); the END_TRANSACTION goes oneway to the broker's own processor, and the answer is OK once it was handed
 * over, as Java's proxy answers.
 *
 * @see org.apache.rocketmq.proxy.grpc.v2.transaction.EndTransactionActivity
 * @see org.apache.rocketmq.proxy.processor.TransactionProcessor
 * @see org.apache.rocketmq.proxy.service.message.LocalMessageService#endTransactionOneway
 */
import { MessageSysFlag } from '../../protocol/message/sys-flag';
import { EndTransaction } from '../../protocol/requests/end-transaction';
import { GrpcProxyError } from '../errors';
import type { ActivityContext } from './activity-context';
import type { GrpcClientChannel } from './grpc-client-channel';
import { validateTopic } from './grpc-validator';
import type { EndTransactionRequest, PbStatus } from './pb';
import { buildStatus } from './response-builder';
import type { TransactionService } from './transaction-service';

/** TransactionProcessor.buildCommitOrRollback of the request's resolution. */
export function buildCommitOrRollback(resolution: string | undefined): number {
  switch (resolution) {
    case 'COMMIT': return MessageSysFlag.TRANSACTION_COMMIT_TYPE;
    case 'ROLLBACK': return MessageSysFlag.TRANSACTION_ROLLBACK_TYPE;
    default: return MessageSysFlag.TRANSACTION_NOT_TYPE;
  }
}

export class EndTransactionActivity {
  constructor(private readonly a: ActivityContext, private readonly transactions: TransactionService) {}

  async endTransaction(req: EndTransactionRequest, channel: GrpcClientChannel): Promise<{ status: PbStatus }> {
    const topic = validateTopic(req.topic);
    if (!req.transactionId || req.transactionId.trim() === '') {
      throw new GrpcProxyError('INVALID_TRANSACTION_ID', 'transaction id cannot be empty');
    }
    const data = this.transactions.genEndTransactionRequestHeader(topic, topic, buildCommitOrRollback(req.resolution),
      req.source === 'SOURCE_SERVER_CHECK', req.messageId, req.transactionId);
    if (!data) throw new GrpcProxyError('INTERNAL_SERVER_ERROR', 'cannot found transaction data');
    await this.a.invoker.invokeOneway(EndTransaction.request(data.requestHeader).markOneway(), channel);
    return { status: buildStatus('OK', 'OK') };
  }
}
