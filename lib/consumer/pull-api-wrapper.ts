/**
 * Sends PULL_MESSAGE to the right broker (master, or the slave the broker suggested) and turns the response into a
 * PullResult: records decoded, tags re-checked on the client, MIN_OFFSET / MAX_OFFSET properties set.
 *
 * @see org.apache.rocketmq.client.impl.consumer.PullAPIWrapper
 * @see org.apache.rocketmq.common.sysflag.PullSysFlag
 * @see org.apache.rocketmq.client.consumer.PullResult
 */
import { ExpressionType } from '../../protocol/body/expression-type';
import type { SubscriptionData } from '../../protocol/body/heartbeat-data';
import { MessageConst } from '../../protocol/message/message-const';
import { decodeMessages } from '../../protocol/message/message-decoder';
import { decompressBody } from '../../protocol/message/compression';
import { MessageSysFlag } from '../../protocol/message/sys-flag';
import type { MessageExt } from '../../protocol/message/message';
import { type MessageQueue, messageQueueKey } from '../../protocol/message/message-queue';
import { BrokerNotFoundError, CompressionCodecUnavailableError } from '../errors';
import { PullStatus, pullMessage } from '../client/mq-client-api-consumer';
import type { ConsumerClient, PullResultRaw } from './consumer-client';

/** The messages of a pull whose body this process cannot decompress (its codec's package is not installed). */
const undecodable = new WeakMap<MessageExt, CompressionCodecUnavailableError>();

/**
 * Why the body of a pulled message is still compressed (the LZ4 / ZSTD codec is not installed here), or undefined.
 * Only pulls made with `keepUndecodable` carry such messages; the push consumer sends them back for redelivery.
 */
export function undecodableBody(msg: MessageExt): CompressionCodecUnavailableError | undefined {
  return undecodable.get(msg);
}

/**
 * Tries again to decompress a message marked by {@link undecodableBody} (its codec may have been installed since):
 * true when its body is now decompressed and the mark gone.
 */
export function redecodeBody(msg: MessageExt): boolean {
  if (!undecodable.has(msg)) return true;
  try {
    msg.body = decompressBody(msg.body, msg.sysFlag);
  } catch {
    return false;
  }
  undecodable.delete(msg);
  return true;
}

export const PullSysFlag = {
  FLAG_COMMIT_OFFSET: 0x1,
  FLAG_SUSPEND: 0x2,
  FLAG_SUBSCRIPTION: 0x4,
  FLAG_CLASS_FILTER: 0x8,
  FLAG_LITE_PULL_MESSAGE: 0x10,
} as const;

export function buildPullSysFlag(commitOffset: boolean, suspend: boolean, subscription: boolean, classFilter: boolean, litePull = false): number {
  let flag = 0;
  if (commitOffset) flag |= PullSysFlag.FLAG_COMMIT_OFFSET;
  if (suspend) flag |= PullSysFlag.FLAG_SUSPEND;
  if (subscription) flag |= PullSysFlag.FLAG_SUBSCRIPTION;
  if (classFilter) flag |= PullSysFlag.FLAG_CLASS_FILTER;
  if (litePull) flag |= PullSysFlag.FLAG_LITE_PULL_MESSAGE;
  return flag;
}

export function clearCommitOffsetFlag(sysFlag: number): number {
  return sysFlag & ~PullSysFlag.FLAG_COMMIT_OFFSET;
}

export { PullStatus };

export interface PullResult {
  pullStatus: PullStatus;
  nextBeginOffset: number;
  minOffset: number;
  maxOffset: number;
  msgFoundList: MessageExt[];
}

const MASTER_ID = 0;

export interface PullKernelArgs {
  mq: MessageQueue;
  subExpression: string | undefined;
  expressionType: string;
  subVersion: number;
  offset: number;
  maxNums: number;
  sysFlag: number;
  commitOffset: number;
  brokerSuspendMaxTimeMillis: number;
  timeoutMillis: number;
}

export class PullAPIWrapper {
  /** Which broker id to pull each queue from next (the broker's suggestWhichBrokerId). */
  readonly #pullFromWhichNodeTable = new Map<string, number>();

  constructor(private readonly client: ConsumerClient, private readonly consumerGroup: string, private readonly unitMode = false) {}

  recalculatePullFromWhichNode(mq: MessageQueue): number {
    return this.#pullFromWhichNodeTable.get(messageQueueKey(mq)) ?? MASTER_ID;
  }

  updatePullFromWhichNode(mq: MessageQueue, brokerId: number): void {
    this.#pullFromWhichNodeTable.set(messageQueueKey(mq), brokerId);
  }

  /** Sends the pull to the master or the suggested broker; the records are left undecoded. */
  async pullKernelImpl(a: PullKernelArgs): Promise<PullResultRaw> {
    let found = this.client.findBrokerAddressInSubscribe(a.mq.brokerName, this.recalculatePullFromWhichNode(a.mq), false);
    if (!found) {
      await this.client.updateTopicRouteInfoFromNameServer(a.mq.topic);
      found = this.client.findBrokerAddressInSubscribe(a.mq.brokerName, this.recalculatePullFromWhichNode(a.mq), false);
    }
    if (!found) throw new BrokerNotFoundError(a.mq.brokerName);
    const sysFlag = found.slave ? clearCommitOffsetFlag(a.sysFlag) : a.sysFlag;
    return pullMessage(this.client.api, found.brokerAddr, {
      consumerGroup: this.consumerGroup,
      topic: a.mq.topic,
      queueId: a.mq.queueId,
      queueOffset: a.offset,
      maxMsgNums: a.maxNums,
      sysFlag,
      commitOffset: a.commitOffset,
      suspendTimeoutMillis: a.brokerSuspendMaxTimeMillis,
      subscription: a.subExpression,
      subVersion: a.subVersion,
      expressionType: a.expressionType,
      bname: a.mq.brokerName,
    }, a.timeoutMillis);
  }

  /**
   * PullAPIWrapper.processPullResult: remembers the suggested broker, decodes FOUND bodies, drops messages whose tag
   * is not subscribed (the broker filters by tag hash only), sets MIN_OFFSET / MAX_OFFSET, brokerName and the
   * transaction id of prepared messages.
   */
  processPullResult(mq: MessageQueue, raw: PullResultRaw, sd: SubscriptionData | undefined, keepUndecodable = false): PullResult {
    this.updatePullFromWhichNode(mq, raw.suggestWhichBrokerId);
    const result: PullResult = {
      pullStatus: raw.pullStatus, nextBeginOffset: raw.nextBeginOffset, minOffset: raw.minOffset, maxOffset: raw.maxOffset, msgFoundList: [],
    };
    const body = raw.messageBinary;
    if (result.pullStatus !== PullStatus.FOUND || !body || body.length === 0) return result;
    // Bodies are decompressed one by one: a body whose codec is not installed here fails that message alone. With
    // keepUndecodable it stays compressed and marked (undecodableBody), else the pull fails as a whole.
    let msgs = decodeMessages(body, { decompressBody: false });
    for (const m of msgs) {
      if ((m.sysFlag & MessageSysFlag.COMPRESSED_FLAG) === 0 || m.body.length === 0) continue;
      try {
        m.body = decompressBody(m.body, m.sysFlag);
      } catch (err) {
        if (!keepUndecodable || !(err instanceof CompressionCodecUnavailableError)) throw err;
        undecodable.set(m, err);
      }
    }
    if (sd && !sd.classFilterMode && sd.tagsSet.length > 0 && (sd.expressionType === undefined || sd.expressionType === ExpressionType.TAG)) {
      const tags = new Set(sd.tagsSet);
      msgs = msgs.filter((m) => {
        const t = m.properties[MessageConst.PROPERTY_TAGS];
        return t !== undefined && tags.has(t);
      });
    }
    const minOffset = String(result.minOffset);
    const maxOffset = String(result.maxOffset);
    for (const msg of msgs) {
      const traFlag = msg.properties[MessageConst.PROPERTY_TRANSACTION_PREPARED];
      if (traFlag !== undefined && traFlag.toLowerCase() === 'true') {
        msg.transactionId = msg.properties[MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX];
      }
      msg.properties[MessageConst.PROPERTY_MIN_OFFSET] = minOffset;
      msg.properties[MessageConst.PROPERTY_MAX_OFFSET] = maxOffset;
      msg.brokerName = mq.brokerName;
    }
    result.msgFoundList = msgs;
    return result;
  }

  async pull(a: PullKernelArgs, sd: SubscriptionData | undefined, keepUndecodable = false): Promise<PullResult> {
    return this.processPullResult(a.mq, await this.pullKernelImpl(a), sd, keepUndecodable);
  }
}
