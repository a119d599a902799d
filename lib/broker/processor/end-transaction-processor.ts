/**
 * END_TRANSACTION: a producer commits or rolls back a half message (after its local transaction, or answering a
 * CHECK_TRANSACTION_STATE with fromTransactionCheck). COMMIT re-stores the half message in its real topic and
 * queue with the commit type and TRAN_MSG cleared; ROLLBACK stores nothing; both record an op message. UNKNOW
 * (TRANSACTION_NOT_TYPE) leaves the half message to the check. The request is usually oneway, so the response is
 * only seen by a caller that asked for one.
 *
 * @see org.apache.rocketmq.broker.processor.EndTransactionProcessor
 */
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { type EndTransactionRequestHeader } from '../../../protocol/header/end-transaction-request-header';
import { MessageConst } from '../../../protocol/message/message-const';
import type { MessageExt } from '../../../protocol/message/message';
import { propertiesToString } from '../../../protocol/message/properties';
import { MessageSysFlag, resetTransactionValue } from '../../../protocol/message/sys-flag';
import type { RemotingCommand } from '../../../protocol/remoting-command';
import { RemotingCommand as Cmd } from '../../../protocol/remoting-command';
import { EndTransaction } from '../../../protocol/requests/end-transaction';
import { componentLogger, type Logger } from '../../logger';
import type { MessageExtBrokerInner } from '../../store/commit-log';
import { BrokerRole } from '../../store/message-store-config';
import { PutMessageStatus, type PutMessageResult } from '../../store/store-status';
import type { RemotingContext } from '../../transport/processor';
import { endMessageTransaction } from '../transaction/transactional-message-bridge';
import type { TransactionalMessageService } from '../transaction/transactional-message-service';

/** What the processor needs of the BrokerController. */
export interface EndTransactionBroker {
  readonly messageStoreConfig: { readonly brokerRole: string; readonly maxMessageSize: number };
  readonly messageStore: { putMessage(msg: MessageExtBrokerInner): Promise<PutMessageResult> };
  readonly transactionalMessageService: TransactionalMessageService;
  readonly logger?: Logger;
}

interface CodeRemark {
  code: number;
  remark: string | null;
}

export class EndTransactionProcessor {
  readonly requestCodes: readonly number[] = [RequestCode.END_TRANSACTION];
  readonly #log: Logger;

  constructor(private readonly broker: EndTransactionBroker) {
    this.#log = componentLogger('transaction', broker.logger);
  }

  async processRequest(request: RemotingCommand, ctx: RemotingContext): Promise<RemotingCommand | null> {
    const header = EndTransaction.requestHeader.decode(request.extFields);
    if (this.broker.messageStoreConfig.brokerRole === BrokerRole.SLAVE) {
      this.#log.warn('message store is slave mode, so end transaction is forbidden');
      return Cmd.createResponse(request, ResponseCode.SLAVE_NOT_AVAILABLE, null);
    }
    const type = header.commitOrRollback;
    const logFields = { remoteAddress: ctx.remoteAddress, producerGroup: header.producerGroup, msgId: header.msgId,
      commitLogOffset: header.commitLogOffset, remark: request.remark };
    if (header.fromTransactionCheck) {
      switch (type) {
        case MessageSysFlag.TRANSACTION_NOT_TYPE:
          this.#log.warn(logFields, 'check producer transaction state, but it is pending status');
          return pendingAnswer(request);
        case MessageSysFlag.TRANSACTION_COMMIT_TYPE:
          this.#log.warn(logFields, 'check producer transaction state, the producer commit the message');
          break;
        case MessageSysFlag.TRANSACTION_ROLLBACK_TYPE:
          this.#log.warn(logFields, 'check producer transaction state, the producer rollback the message');
          break;
        default:
          return illegalTypeAnswer(request, type);
      }
    } else {
      switch (type) {
        case MessageSysFlag.TRANSACTION_NOT_TYPE:
          this.#log.warn(logFields, 'the producer end transaction in sending message, and it is pending status');
          return pendingAnswer(request);
        case MessageSysFlag.TRANSACTION_COMMIT_TYPE:
          break;
        case MessageSysFlag.TRANSACTION_ROLLBACK_TYPE:
          this.#log.warn(logFields, 'the producer end transaction in sending message, rollback the message');
          break;
        default:
          return illegalTypeAnswer(request, type);
      }
    }
    const service = this.broker.transactionalMessageService;
    const isCommit = type === MessageSysFlag.TRANSACTION_COMMIT_TYPE;
    const result = isCommit ? await service.commitMessage(header.commitLogOffset) : await service.rollbackMessage(header.commitLogOffset);
    if (result.responseCode !== ResponseCode.SUCCESS || !result.prepareMessage) {
      return Cmd.createResponse(request, result.responseCode, result.responseRemark);
    }
    const half = result.prepareMessage;
    const check = checkPrepareMessage(half, header);
    if (check.code !== ResponseCode.SUCCESS || !isCommit) {
      if (check.code === ResponseCode.SUCCESS) await service.deletePrepareMessage(half);
      return Cmd.createResponse(request, check.code, check.remark);
    }
    const { inner, properties } = endMessageTransaction(half);
    delete properties[MessageConst.PROPERTY_TRANSACTION_PREPARED];
    const finalInner: MessageExtBrokerInner = {
      ...inner,
      sysFlag: resetTransactionValue(inner.sysFlag, type),
      preparedTransactionOffset: header.commitLogOffset,
      // Java stores the half message's property string as it was (REAL_TOPIC, REAL_QID, TRAN_MSG and WAIT
      // included) and clears those from the property map only.
      propertiesString: propertiesToString(half.properties),
    };
    const sent = await this.#sendFinalMessage(finalInner);
    if (sent.code === ResponseCode.SUCCESS) await service.deletePrepareMessage(half);
    return Cmd.createResponse(request, sent.code, sent.remark);
  }

  async #sendFinalMessage(inner: MessageExtBrokerInner): Promise<CodeRemark> {
    const r = await this.broker.messageStore.putMessage(inner);
    switch (r.putMessageStatus) {
      case PutMessageStatus.PUT_OK:
      case PutMessageStatus.FLUSH_DISK_TIMEOUT:
      case PutMessageStatus.FLUSH_SLAVE_TIMEOUT:
      case PutMessageStatus.SLAVE_NOT_AVAILABLE:
        return { code: ResponseCode.SUCCESS, remark: null };
      case PutMessageStatus.CREATE_MAPEDFILE_FAILED:
        return { code: ResponseCode.SYSTEM_ERROR, remark: 'Create mapped file failed.' };
      case PutMessageStatus.MESSAGE_ILLEGAL:
      case PutMessageStatus.PROPERTIES_SIZE_EXCEEDED:
        return {
          code: ResponseCode.MESSAGE_ILLEGAL,
          remark: `The message is illegal, maybe msg body or properties length not matched. msg body length limit ${this.broker.messageStoreConfig.maxMessageSize}B, msg properties length limit 32KB.`,
        };
      case PutMessageStatus.SERVICE_NOT_AVAILABLE:
        return { code: ResponseCode.SERVICE_NOT_AVAILABLE, remark: 'Service not available now.' };
      case PutMessageStatus.OS_PAGECACHE_BUSY:
        return { code: ResponseCode.SYSTEM_ERROR, remark: 'OS page cache busy, please try another machine' };
      case PutMessageStatus.UNKNOWN_ERROR:
        return { code: ResponseCode.SYSTEM_ERROR, remark: 'UNKNOWN_ERROR' };
      case PutMessageStatus.IN_SYNC_REPLICAS_NOT_ENOUGH:
        return { code: ResponseCode.SYSTEM_ERROR, remark: 'in-sync replicas not enough' };
      default:
        return { code: ResponseCode.SYSTEM_ERROR, remark: 'UNKNOWN_ERROR DEFAULT' };
    }
  }
}

/**
 * Java answers nothing (returns null) for a pending or unknown commitOrRollback. Clients send END_TRANSACTION
 * oneway, where no answer is written anyway; a caller that waits for one gets this instead of a timeout.
 */
function pendingAnswer(request: RemotingCommand): RemotingCommand | null {
  if (request.isOneway) return null;
  return Cmd.createResponse(request, ResponseCode.SUCCESS, 'transaction state is pending (TRANSACTION_NOT_TYPE), nothing done');
}

function illegalTypeAnswer(request: RemotingCommand, type: number): RemotingCommand | null {
  if (request.isOneway) return null;
  return Cmd.createResponse(request, ResponseCode.SYSTEM_ERROR, `illegal commitOrRollback ${type}: expected 0 (pending), 8 (commit) or 12 (rollback)`);
}

/** The half message must be the one the request names: same producer group, queue offset and commit-log offset. */
export function checkPrepareMessage(msgExt: MessageExt | null, header: EndTransactionRequestHeader): CodeRemark {
  if (!msgExt) return { code: ResponseCode.SYSTEM_ERROR, remark: 'Find prepared transaction message failed' };
  if (msgExt.properties[MessageConst.PROPERTY_PRODUCER_GROUP] !== header.producerGroup) {
    return { code: ResponseCode.SYSTEM_ERROR, remark: 'The producer group wrong' };
  }
  if (msgExt.queueOffset !== header.tranStateTableOffset) {
    return { code: ResponseCode.SYSTEM_ERROR, remark: 'The transaction state table offset wrong' };
  }
  if (msgExt.commitLogOffset !== header.commitLogOffset) {
    return { code: ResponseCode.SYSTEM_ERROR, remark: 'The commit log offset wrong' };
  }
  return { code: ResponseCode.SUCCESS, remark: null };
}
