/**
 * Half-message bookkeeping: prepare (store as half), look up the half message named by END_TRANSACTION, record
 * its end in the op queue, and the periodic check that asks producers about half messages nobody ended.
 *
 * The check walks each half queue from the CID_RMQ_SYS_TRANS offset: a half message whose queue offset appears
 * in an op message ("d", body = that offset) is done; one younger than the transaction timeout (or its
 * CHECK_IMMUNITY_TIME_IN_SECONDS) stops the walk; any other is re-put at the end of the half queue with
 * TRANSACTION_CHECK_TIMES incremented, and the copy is sent to a producer of its group; after transactionCheckMax
 * checks (or when older than fileReservedTime) it is discarded to TRANS_CHECK_MAX_TIME_TOPIC. The half and op
 * offsets are then committed for the internal group, so a restart resumes where the last check stopped.
 *
 * @see org.apache.rocketmq.broker.transaction.TransactionalMessageService
 * @see org.apache.rocketmq.broker.transaction.queue.TransactionalMessageServiceImpl
 * @see org.apache.rocketmq.broker.transaction.OperationResult
 */
import { ResponseCode } from '../../../protocol/code/response-code';
import { MessageConst } from '../../../protocol/message/message-const';
import type { MessageExt } from '../../../protocol/message/message';
import type { MessageProperties } from '../../../protocol/message/properties';
import type { Logger } from '../../logger';
import type { MessageExtBrokerInner } from '../../store/commit-log';
import { PutMessageStatus, type PutMessageResult } from '../../store/store-status';
import {
  PullStatus, TransactionalMessageBridge, getTags, renewHalfMessageInner, renewImmunityHalfMessageInner,
  type InternalPullResult,
} from './transactional-message-bridge';
import { TransactionalMessageUtil, buildHalfTopic, buildOpTopic, parseIntOr, parseLongOr } from './transactional-message-util';

/** @see org.apache.rocketmq.broker.transaction.OperationResult */
export interface OperationResult {
  prepareMessage: MessageExt | null;
  responseCode: number;
  responseRemark: string | null;
}

/** What the check hands over: a half message to ask about, or one to discard. */
export interface TransactionalMessageCheckListener {
  /** The message's copy was re-put; ask a producer of its group (fire and forget). */
  resolveHalfMsg(msgExt: MessageExt): void;
  /** Checked too many times (or too old): move it out of the way. */
  resolveDiscardMsg(msgExt: MessageExt): Promise<void>;
}

const PULL_MSG_RETRY_NUMBER = 1;
const MAX_PROCESS_TIME_LIMIT = 60000;
const MAX_RETRY_COUNT_WHEN_HALF_NULL = 1;

export interface TransactionalMessageServiceOptions {
  /** Injectable clock (tests). */
  now?: () => number;
}

export class TransactionalMessageService {
  readonly #now: () => number;

  constructor(readonly bridge: TransactionalMessageBridge, private readonly log: Logger, options: TransactionalMessageServiceOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** Stores a prepared message (TRAN_MSG=true) as a half message. */
  prepareMessage(inner: MessageExtBrokerInner, properties: MessageProperties): Promise<PutMessageResult> {
    return this.bridge.putHalfMessage(inner, properties);
  }

  /** Records the end of a half message (commit or rollback) in the op queue. */
  async deletePrepareMessage(msgExt: MessageExt): Promise<boolean> {
    const ok = await this.bridge.putOpMessage(msgExt, TransactionalMessageUtil.REMOVETAG);
    if (!ok) this.log.error({ msgId: msgExt.offsetMsgId, queueId: msgExt.queueId }, 'transaction op message write failed');
    return ok;
  }

  commitMessage(commitLogOffset: number): Promise<OperationResult> {
    return this.#getHalfMessageByOffset(commitLogOffset);
  }

  rollbackMessage(commitLogOffset: number): Promise<OperationResult> {
    return this.#getHalfMessageByOffset(commitLogOffset);
  }

  async #getHalfMessageByOffset(commitLogOffset: number): Promise<OperationResult> {
    const msg = await this.bridge.lookMessageByOffset(commitLogOffset);
    if (msg) return { prepareMessage: msg, responseCode: ResponseCode.SUCCESS, responseRemark: null };
    return { prepareMessage: null, responseCode: ResponseCode.SYSTEM_ERROR, responseRemark: 'Find prepared transaction message failed' };
  }

  /** One check pass over every half queue (TransactionalMessageServiceImpl.check). */
  async check(transactionTimeout: number, transactionCheckMax: number, listener: TransactionalMessageCheckListener): Promise<void> {
    const topic = buildHalfTopic();
    const queues = this.bridge.fetchMessageQueues(topic);
    if (queues.length === 0) {
      this.log.warn({ topic }, 'the queue of topic is empty');
      return;
    }
    for (const queueId of queues) {
      try {
        await this.#checkQueue(queueId, transactionTimeout, transactionCheckMax, listener);
      } catch (err) {
        this.log.error({ err, queueId }, 'check error');
      }
    }
  }

  async #checkQueue(queueId: number, transactionTimeout: number, transactionCheckMax: number,
    listener: TransactionalMessageCheckListener): Promise<void> {
    const startTime = this.#now();
    const halfTopic = buildHalfTopic();
    const opTopic = buildOpTopic();
    const halfOffset = this.bridge.fetchConsumeOffset(halfTopic, queueId);
    const opOffset = this.bridge.fetchConsumeOffset(opTopic, queueId);
    if (halfOffset < 0 || opOffset < 0) {
      this.log.error({ queueId, halfOffset, opOffset }, 'illegal offset read, skip this queue');
      return;
    }
    const doneOpOffset: number[] = [];
    const removeMap = new Map<number, number>();
    let pullResult = await this.#fillOpRemoveMap(removeMap, queueId, opOffset, halfOffset, doneOpOffset);
    let getMessageNullCount = 1;
    let newOffset = halfOffset;
    let i = halfOffset;
    for (;;) {
      if (this.#now() - startTime > MAX_PROCESS_TIME_LIMIT) break;
      const removed = removeMap.get(i);
      if (removed !== undefined) {
        removeMap.delete(i);
        doneOpOffset.push(removed);
      } else {
        const half = await this.bridge.getHalfMessage(queueId, i, PULL_MSG_RETRY_NUMBER);
        const msgExt = half.msgFoundList?.[0];
        if (!msgExt) {
          if (getMessageNullCount++ > MAX_RETRY_COUNT_WHEN_HALF_NULL) break;
          if (half.pullStatus === PullStatus.NO_NEW_MSG) break;
          i = half.nextBeginOffset;
          newOffset = i;
          continue;
        }
        if (this.#needDiscard(msgExt, transactionCheckMax) || this.#needSkip(msgExt)) {
          await listener.resolveDiscardMsg(msgExt);
          newOffset = i + 1;
          i++;
          continue;
        }
        if (msgExt.storeTimestamp >= startTime) break;
        const valueOfCurrentMinusBorn = this.#now() - msgExt.bornTimestamp;
        let checkImmunityTime = transactionTimeout;
        const immunityStr = msgExt.properties[MessageConst.PROPERTY_CHECK_IMMUNITY_TIME_IN_SECONDS];
        if (immunityStr !== undefined) {
          checkImmunityTime = getImmunityTime(immunityStr, transactionTimeout);
          if (valueOfCurrentMinusBorn < checkImmunityTime) {
            if (await this.#checkPrepareQueueOffset(removeMap, doneOpOffset, msgExt)) {
              newOffset = i + 1;
              i++;
              continue;
            }
          }
        } else if (valueOfCurrentMinusBorn >= 0 && valueOfCurrentMinusBorn < checkImmunityTime) {
          break;
        }
        const opMsg = pullResult.msgFoundList;
        const isNeedCheck = (opMsg === null && valueOfCurrentMinusBorn > checkImmunityTime)
          || (opMsg !== null && opMsg[opMsg.length - 1].bornTimestamp - startTime > transactionTimeout)
          || valueOfCurrentMinusBorn <= -1;
        if (isNeedCheck) {
          if (!(await this.#putBackHalfMsgQueue(msgExt))) continue;
          listener.resolveHalfMsg(msgExt);
        } else {
          pullResult = await this.#fillOpRemoveMap(removeMap, queueId, pullResult.nextBeginOffset, halfOffset, doneOpOffset);
          continue;
        }
      }
      newOffset = i + 1;
      i++;
    }
    if (newOffset !== halfOffset) this.bridge.updateConsumeOffset(halfTopic, queueId, newOffset);
    const newOpOffset = calculateOpOffset(doneOpOffset, opOffset);
    if (newOpOffset !== opOffset) this.bridge.updateConsumeOffset(opTopic, queueId, newOpOffset);
  }

  /** Reads up to 32 op messages: the half offsets they end go to removeMap (or doneOpOffset when already passed). */
  async #fillOpRemoveMap(removeMap: Map<number, number>, queueId: number, pullOffsetOfOp: number, miniOffset: number,
    doneOpOffset: number[]): Promise<InternalPullResult> {
    const pullResult = await this.bridge.getOpMessage(queueId, pullOffsetOfOp, 32);
    if (pullResult.pullStatus === PullStatus.OFFSET_ILLEGAL || pullResult.pullStatus === PullStatus.NO_MATCHED_MSG) {
      this.log.warn({ queueId, pullOffsetOfOp, pullStatus: pullResult.pullStatus }, 'the op offset is illegal');
      this.bridge.updateConsumeOffset(buildOpTopic(), queueId, pullResult.nextBeginOffset);
      return pullResult;
    }
    if (pullResult.pullStatus === PullStatus.NO_NEW_MSG || pullResult.msgFoundList === null) return pullResult;
    for (const op of pullResult.msgFoundList) {
      const queueOffset = parseLongOr(op.body.toString('utf8'));
      if (getTags(op) === TransactionalMessageUtil.REMOVETAG) {
        if (queueOffset < miniOffset) doneOpOffset.push(op.queueOffset);
        else removeMap.set(queueOffset, op.queueOffset);
      } else {
        this.log.error({ queueOffset: op.queueOffset, tags: getTags(op) }, 'found an illegal tag in op message');
      }
    }
    return pullResult;
  }

  /** Increments TRANSACTION_CHECK_TIMES on msgExt; true when it already reached the maximum. */
  #needDiscard(msgExt: MessageExt, transactionCheckMax: number): boolean {
    const checkTimes = msgExt.properties[MessageConst.PROPERTY_TRANSACTION_CHECK_TIMES];
    let checkTime = 1;
    if (checkTimes !== undefined) {
      checkTime = parseIntOr(checkTimes);
      if (checkTime >= transactionCheckMax) return true;
      checkTime++;
    }
    msgExt.properties[MessageConst.PROPERTY_TRANSACTION_CHECK_TIMES] = String(checkTime);
    return false;
  }

  /** Older than the store's fileReservedTime (hours): its commit log may be gone. */
  #needSkip(msgExt: MessageExt): boolean {
    const age = this.#now() - msgExt.bornTimestamp;
    if (age > this.bridge.broker.fileReservedTime * 3600 * 1000) {
      this.log.info({ msgId: msgExt.offsetMsgId, bornTimestamp: msgExt.bornTimestamp }, 'half message exceeds file reserved time, skip it');
      return true;
    }
    return false;
  }

  /** True to skip msgExt: its first copy was already ended, or it was re-put with its immunity offset. */
  async #checkPrepareQueueOffset(removeMap: Map<number, number>, doneOpOffset: number[], msgExt: MessageExt): Promise<boolean> {
    const prepareQueueOffsetStr = msgExt.properties[MessageConst.PROPERTY_TRANSACTION_PREPARED_QUEUE_OFFSET];
    if (prepareQueueOffsetStr === undefined) return this.bridge.putMessage(renewImmunityHalfMessageInner(msgExt));
    const prepareQueueOffset = parseLongOr(prepareQueueOffsetStr);
    if (prepareQueueOffset === -1) return false;
    const tmpOpOffset = removeMap.get(prepareQueueOffset);
    if (tmpOpOffset !== undefined) {
      removeMap.delete(prepareQueueOffset);
      doneOpOffset.push(tmpOpOffset);
      return true;
    }
    return this.bridge.putMessage(renewImmunityHalfMessageInner(msgExt));
  }

  /** Re-puts the half message; msgExt then names the new copy (queue offset, commit-log offset, offset msgId). */
  async #putBackHalfMsgQueue(msgExt: MessageExt): Promise<boolean> {
    let r: PutMessageResult | null = null;
    try {
      r = await this.bridge.putMessageReturnResult(renewHalfMessageInner(msgExt));
    } catch (err) {
      this.log.warn({ err }, 'put back to half queue failed');
    }
    if (r && r.putMessageStatus === PutMessageStatus.PUT_OK && r.appendMessageResult) {
      msgExt.queueOffset = r.appendMessageResult.logicsOffset;
      msgExt.commitLogOffset = r.appendMessageResult.wroteOffset;
      msgExt.offsetMsgId = r.appendMessageResult.msgId;
      msgExt.msgId = r.appendMessageResult.msgId;
      return true;
    }
    this.log.error({ topic: msgExt.topic, queueId: msgExt.queueId, msgId: msgExt.offsetMsgId }, 'put back to half queue failed');
    return false;
  }
}

function getImmunityTime(s: string, transactionTimeout: number): number {
  const v = parseLongOr(s);
  return v === -1 ? transactionTimeout : v * 1000;
}

/** The op offset advanced over the consecutive done op offsets starting at oldOffset. */
export function calculateOpOffset(doneOffset: number[], oldOffset: number): number {
  doneOffset.sort((a, b) => a - b);
  let newOffset = oldOffset;
  for (const d of doneOffset) {
    if (d === newOffset) newOffset++;
    else break;
  }
  return newOffset;
}
