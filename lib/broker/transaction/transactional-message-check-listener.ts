/**
 * What the check does with a half message: ask a live producer of its group (CHECK_TRANSACTION_STATE, oneway,
 * the half message as body with its real topic and queue), or discard it to TRANS_CHECK_MAX_TIME_TOPIC once it
 * was checked transactionCheckMax times.
 *
 * @see org.apache.rocketmq.broker.transaction.AbstractTransactionalMessageCheckListener
 * @see org.apache.rocketmq.broker.transaction.queue.DefaultTransactionalMessageCheckListener
 */
import { CheckTransactionStateRequestHeader } from '../../../protocol/header/check-transaction-state-request-header';
import { MessageConst } from '../../../protocol/message/message-const';
import type { MessageExt } from '../../../protocol/message/message';
import { encodeStoredMessage } from '../../../protocol/message/message-decoder';
import { propertiesToString } from '../../../protocol/message/properties';
import type { Logger } from '../../logger';
import type { MessageExtBrokerInner } from '../../store/commit-log';
import { PutMessageStatus } from '../../store/store-status';
import type { TransactionBrokerPort } from './transactional-message-bridge';
import type { TransactionalMessageCheckListener } from './transactional-message-service';
import { TransactionalMessageUtil } from './transactional-message-util';

/** Queue count of TRANS_CHECK_MAX_TIME_TOPIC (TCMT_QUEUE_NUMS). */
export const TCMT_QUEUE_NUMS = 1;

/** Sends a CHECK_TRANSACTION_STATE to one live producer channel of `group`; false when the group has none. */
export type SendCheckTransactionState = (group: string, header: CheckTransactionStateRequestHeader, body: Buffer) => Promise<boolean>;

/**
 * The half message as a CHECK_TRANSACTION_STATE body: Java's MessageDecoder.encode(msgExt, false) after the
 * listener set the real topic and queue and zeroed the store size (so the size is computed).
 */
export function encodeCheckBody(msgExt: MessageExt): Buffer {
  return encodeStoredMessage({
    topic: msgExt.topic,
    flag: msgExt.flag,
    properties: propertiesToString(msgExt.properties),
    body: msgExt.body,
    queueId: msgExt.queueId,
    queueOffset: msgExt.queueOffset,
    commitLogOffset: msgExt.commitLogOffset,
    sysFlag: msgExt.sysFlag,
    bornTimestamp: msgExt.bornTimestamp,
    bornHost: msgExt.bornHost,
    storeTimestamp: msgExt.storeTimestamp,
    storeHost: msgExt.storeHost,
    reconsumeTimes: msgExt.reconsumeTimes,
    preparedTransactionOffset: msgExt.preparedTransactionOffset,
    bodyCRC: msgExt.bodyCRC,
  });
}

export class DefaultTransactionalMessageCheckListener implements TransactionalMessageCheckListener {
  constructor(
    private readonly broker: TransactionBrokerPort,
    private readonly sendCheck: SendCheckTransactionState,
    private readonly log: Logger,
  ) {}

  /** Builds the check request from the re-put copy and sends it (AbstractTransactionalMessageCheckListener.sendCheckMessage). */
  async sendCheckMessage(msgExt: MessageExt): Promise<void> {
    const uniq = msgExt.properties[MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX];
    const header: CheckTransactionStateRequestHeader = {
      commitLogOffset: msgExt.commitLogOffset,
      offsetMsgId: msgExt.offsetMsgId,
      tranStateTableOffset: msgExt.queueOffset,
    };
    if (uniq !== undefined) {
      header.msgId = uniq;
      header.transactionId = uniq;
    }
    msgExt.topic = msgExt.properties[MessageConst.PROPERTY_REAL_TOPIC] ?? msgExt.topic;
    msgExt.queueId = parseInt(msgExt.properties[MessageConst.PROPERTY_REAL_QUEUE_ID] ?? String(msgExt.queueId), 10);
    msgExt.storeSize = 0;
    const group = msgExt.properties[MessageConst.PROPERTY_PRODUCER_GROUP] ?? '';
    const sent = await this.sendCheck(group, header, encodeCheckBody(msgExt));
    if (!sent) this.log.warn({ group }, 'check transaction failed, channel is null');
  }

  resolveHalfMsg(msgExt: MessageExt): void {
    this.sendCheckMessage(msgExt).catch((err: unknown) => this.log.error({ err }, 'send check message error'));
  }

  async resolveDiscardMsg(msgExt: MessageExt): Promise<void> {
    this.log.error({ msgId: msgExt.offsetMsgId, commitLogOffset: msgExt.commitLogOffset },
      'half message has been checked too many times, discard it to TRANS_CHECK_MAX_TIME_TOPIC');
    try {
      const r = await this.broker.messageStore.putMessage(this.#toMessageExtBrokerInner(msgExt));
      if (r.putMessageStatus !== PutMessageStatus.PUT_OK) {
        this.log.error({ msgId: msgExt.offsetMsgId, status: r.putMessageStatus }, 'put checked-too-many-time half message failed');
      }
    } catch (err) {
      this.log.warn({ err }, 'put checked-too-many-time half message error');
    }
  }

  #toMessageExtBrokerInner(msgExt: MessageExt): MessageExtBrokerInner {
    const topic = TransactionalMessageUtil.CHECK_MAX_TIME_TOPIC;
    this.broker.ensureSystemTopic(topic, TCMT_QUEUE_NUMS);
    return {
      topic,
      queueId: Math.floor(Math.random() * 99999999) % TCMT_QUEUE_NUMS,
      flag: msgExt.flag,
      body: msgExt.body,
      propertiesString: propertiesToString(msgExt.properties),
      bornTimestamp: msgExt.bornTimestamp,
      bornHost: { host: msgExt.bornHost.address, port: msgExt.bornHost.port },
      storeHost: { host: msgExt.storeHost.address, port: msgExt.storeHost.port },
      sysFlag: msgExt.sysFlag,
      reconsumeTimes: msgExt.reconsumeTimes,
      preparedTransactionOffset: 0,
    };
  }
}
