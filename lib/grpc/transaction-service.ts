/**
 * The endpoint's transaction service in local mode: the half messages' data (TransactionDataManager) recorded at
 * a transactional send and at each check relayed to a gRPC producer, and the END_TRANSACTION header an
 * EndTransaction becomes. The producers themselves need no subscription here: their virtual channels sit in the
 * broker's producer manager (group = topic), where the broker's check finds them.
 *
 * @see org.apache.rocketmq.proxy.service.transaction.AbstractTransactionService
 * @see org.apache.rocketmq.proxy.service.transaction.LocalTransactionService
 * @see org.apache.rocketmq.proxy.service.relay.LocalProxyRelayService#processCheckTransactionState
 */
import type { CheckTransactionStateRequestHeader } from '../../protocol/header/check-transaction-state-request-header';
import type { EndTransactionRequestHeader } from '../../protocol/header/end-transaction-request-header';
import { MessageConst } from '../../protocol/message/message-const';
import type { MessageExt } from '../../protocol/message/message';
import { GrpcProxyError } from '../errors';
import type { GrpcProxyConfig } from './grpc-proxy-config';
import { type TransactionData, TransactionDataManager } from './transaction-data-manager';

export interface EndTransactionRequestData {
  brokerName: string;
  requestHeader: EndTransactionRequestHeader;
}

export class TransactionService {
  readonly transactionDataManager: TransactionDataManager;

  constructor(private readonly brokerName: () => string, private readonly config: GrpcProxyConfig) {
    this.transactionDataManager = new TransactionDataManager(config);
  }

  addTransactionData(topic: string, producerGroup: string, tranStateTableOffset: number, commitLogOffset: number,
    transactionId: string, now = Date.now()): TransactionData {
    const data: TransactionData = {
      brokerName: this.brokerName(), topic, tranStateTableOffset, commitLogOffset, transactionId,
      checkTimestamp: now, expireMs: this.config.transactionDataExpireMillis,
    };
    this.transactionDataManager.addTransactionData(producerGroup, transactionId, data);
    return data;
  }

  /** The END_TRANSACTION header of an EndTransaction; null when the endpoint has no (unexpired) data of it. */
  genEndTransactionRequestHeader(topic: string, producerGroup: string, commitOrRollback: number, fromTransactionCheck: boolean,
    msgId: string, transactionId: string): EndTransactionRequestData | null {
    const data = this.transactionDataManager.pollNoExpireTransactionData(producerGroup, transactionId);
    if (!data) return null;
    return {
      brokerName: data.brokerName,
      requestHeader: {
        topic, producerGroup, commitOrRollback, fromTransactionCheck, msgId, transactionId,
        tranStateTableOffset: data.tranStateTableOffset, commitLogOffset: data.commitLogOffset,
      },
    };
  }

  /**
   * A CHECK_TRANSACTION_STATE the broker sends to a gRPC producer: its data recorded under the half message's
   * producer group, for the EndTransaction that answers it.
   */
  processCheckTransactionState(header: CheckTransactionStateRequestHeader, messageExt: MessageExt): TransactionData {
    const group = messageExt.properties[MessageConst.PROPERTY_PRODUCER_GROUP] ?? '';
    if (!header.transactionId) throw new GrpcProxyError('INTERNAL_SERVER_ERROR', 'add transaction data failed: the check has no transaction id');
    return this.addTransactionData(messageExt.topic, group, header.tranStateTableOffset, header.commitLogOffset, header.transactionId);
  }

  onSendCheckTransactionStateFailed(producerGroup: string, data: TransactionData): void {
    this.transactionDataManager.removeTransactionData(producerGroup, data.transactionId, data);
  }

  start(): void {
    this.transactionDataManager.start();
  }

  shutdown(): void {
    this.transactionDataManager.shutdown();
  }
}
