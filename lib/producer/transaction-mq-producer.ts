/**
 * Two-phase transactional messages: send a half message (TRAN_MSG=true, PGROUP), run the local transaction,
 * then tell the broker COMMIT, ROLLBACK or UNKNOW with a oneway END_TRANSACTION. A broker that has not heard
 * back asks a live producer of the group with CHECK_TRANSACTION_STATE; the listener's checkLocalTransaction
 * answers with END_TRANSACTION marked fromTransactionCheck.
 *
 * Checks run on a bounded pool like Java's check executor: at most checkThreadPoolMaxSize at once
 * (checkThreadPoolMinSize is accepted for parity), up to checkRequestHoldMax waiting; beyond that a check is
 * dropped with a warning (Java's executor rejects it) and the broker asks again at its next check.
 *
 * @see org.apache.rocketmq.client.producer.TransactionMQProducer
 * @see org.apache.rocketmq.client.producer.TransactionListener
 * @see org.apache.rocketmq.client.producer.LocalTransactionState
 * @see org.apache.rocketmq.client.producer.TransactionSendResult
 * @see org.apache.rocketmq.client.impl.producer.DefaultMQProducerImpl#sendMessageInTransaction
 * @see org.apache.rocketmq.client.impl.producer.DefaultMQProducerImpl#checkTransactionState
 * @see org.apache.rocketmq.client.impl.producer.DefaultMQProducerImpl#endTransaction
 */
import { endTransactionTrace } from '../client/trace/trace-hooks';
import type { CheckTransactionStateRequestHeader } from '../../protocol/header/check-transaction-state-request-header';
import type { EndTransactionRequestHeader } from '../../protocol/header/end-transaction-request-header';
import { MessageConst } from '../../protocol/message/message-const';
import type { Message, MessageExt } from '../../protocol/message/message';
import { decodeOffsetMessageId } from '../../protocol/message/message-id';
import { MessageSysFlag } from '../../protocol/message/sys-flag';
import { BrokerNotFoundError, InvalidArgumentError, OperationFailedError, ServiceStateError } from '../errors';
import { type Logger, componentLogger } from '../logger';
import { SendStatus, type SendResult } from '../client/send-result';
import { endTransactionOneway } from '../client/mq-client-api-consumer';
import { DefaultMQProducer, type DefaultMQProducerOptions } from './default-mq-producer';

/** @see org.apache.rocketmq.client.producer.LocalTransactionState */
export const LocalTransactionState = {
  COMMIT_MESSAGE: 'COMMIT_MESSAGE',
  ROLLBACK_MESSAGE: 'ROLLBACK_MESSAGE',
  UNKNOW: 'UNKNOW',
} as const;
export type LocalTransactionState = (typeof LocalTransactionState)[keyof typeof LocalTransactionState];

/**
 * The application's side of a transaction. Either method may return a Promise; one that throws (or rejects, or
 * returns nothing) counts as UNKNOW.
 *
 * @see org.apache.rocketmq.client.producer.TransactionListener
 */
export interface TransactionListener {
  /** Runs the local transaction after the half message was stored. */
  executeLocalTransaction(msg: Message, arg: unknown): LocalTransactionState | Promise<LocalTransactionState>;
  /** The broker asks about a half message nobody ended; `msg.transactionId` is its UNIQ_KEY. */
  checkLocalTransaction(msg: MessageExt): LocalTransactionState | Promise<LocalTransactionState>;
}

/** @see org.apache.rocketmq.client.producer.TransactionSendResult */
export interface TransactionSendResult extends SendResult {
  localTransactionState: LocalTransactionState;
}

export interface TransactionProducerOptions {
  /** Kept for Java parity (deprecated there). */
  checkThreadPoolMinSize: number;
  /** Check-backs answered at once. */
  checkThreadPoolMaxSize: number;
  /** Check-backs waiting beyond that; more are dropped (the broker asks again). */
  checkRequestHoldMax: number;
}

export const DEFAULT_TRANSACTION_PRODUCER_OPTIONS: Readonly<TransactionProducerOptions> = Object.freeze({
  checkThreadPoolMinSize: 1,
  checkThreadPoolMaxSize: 1,
  checkRequestHoldMax: 2000,
});

export interface TransactionMQProducerOptions extends DefaultMQProducerOptions, Partial<TransactionProducerOptions> {
  transactionListener?: TransactionListener;
}

/** The END_TRANSACTION commitOrRollback value of a local state (Java's switch in endTransaction). */
export function transactionTypeOf(state: LocalTransactionState): number {
  switch (state) {
    case LocalTransactionState.COMMIT_MESSAGE:
      return MessageSysFlag.TRANSACTION_COMMIT_TYPE;
    case LocalTransactionState.ROLLBACK_MESSAGE:
      return MessageSysFlag.TRANSACTION_ROLLBACK_TYPE;
    default:
      return MessageSysFlag.TRANSACTION_NOT_TYPE;
  }
}

function normalizeState(s: unknown): LocalTransactionState {
  return s === LocalTransactionState.COMMIT_MESSAGE || s === LocalTransactionState.ROLLBACK_MESSAGE ? s : LocalTransactionState.UNKNOW;
}

/** Java's Throwable.toString(): "ClassName: message". */
function describeError(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return String(e);
}

/** The 5.x timer properties (setDeliverTimeMs, setDelayTimeSec, setDelayTimeMs). */
const TIMER_PROPERTIES = [MessageConst.PROPERTY_TIMER_DELIVER_MS, MessageConst.PROPERTY_TIMER_DELAY_SEC, MessageConst.PROPERTY_TIMER_DELAY_MS] as const;

export class TransactionMQProducer extends DefaultMQProducer {
  readonly transactionOptions: TransactionProducerOptions;
  transactionListener: TransactionListener | null;
  readonly #log: Logger;
  readonly #checkQueue: Array<() => Promise<void>> = [];
  #checksRunning = 0;
  #idleWaiters: Array<() => void> = [];

  constructor(options: TransactionMQProducerOptions = {}) {
    const { transactionListener, checkThreadPoolMinSize, checkThreadPoolMaxSize, checkRequestHoldMax, ...rest } = options;
    super(rest);
    const tx: Partial<TransactionProducerOptions> = {};
    if (checkThreadPoolMinSize !== undefined) tx.checkThreadPoolMinSize = checkThreadPoolMinSize;
    if (checkThreadPoolMaxSize !== undefined) tx.checkThreadPoolMaxSize = checkThreadPoolMaxSize;
    if (checkRequestHoldMax !== undefined) tx.checkRequestHoldMax = checkRequestHoldMax;
    this.transactionOptions = { ...DEFAULT_TRANSACTION_PRODUCER_OPTIONS, ...tx };
    this.transactionListener = transactionListener ?? null;
    this.#log = componentLogger('producer', options.logger).child({ group: this.producerGroup, transaction: true });
  }

  setTransactionListener(listener: TransactionListener): void {
    this.transactionListener = listener;
  }

  /** Drops waiting checks, waits for running ones, then shuts the producer down. */
  override async shutdown(): Promise<void> {
    this.#checkQueue.length = 0;
    if (this.#checksRunning > 0) await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
    await super.shutdown();
  }

  /**
   * Sends `msg` as a half message, runs the listener's executeLocalTransaction(msg, arg) and ends the
   * transaction with its answer (oneway). A failed send throws; a failing END_TRANSACTION is only logged (the
   * broker will check).
   */
  async sendMessageInTransaction(msg: Message, arg?: unknown): Promise<TransactionSendResult> {
    const listener = this.transactionListener;
    if (!listener) throw new InvalidArgumentError('TransactionListener is null');
    if (msg.properties[MessageConst.PROPERTY_DELAY_TIME_LEVEL] !== undefined) delete msg.properties[MessageConst.PROPERTY_DELAY_TIME_LEVEL];
    const timer = TIMER_PROPERTIES.find((k) => msg.properties[k] !== undefined);
    if (timer !== undefined) {
      // As the 5.x clients refuse it: a Java 5.x broker turns such a half message into a timer message addressed to
      // the half topic, its real topic is lost and the commit never reaches it (checked against Java 5.3.3).
      throw new InvalidArgumentError(`a transactional message cannot have a delivery time (${timer} is set): brokers do not delay transactional messages`);
    }
    msg.properties[MessageConst.PROPERTY_TRANSACTION_PREPARED] = 'true';
    msg.properties[MessageConst.PROPERTY_PRODUCER_GROUP] = this.clientConfig.withNamespace(this.producerGroup);
    let sendResult: SendResult;
    try {
      sendResult = await this.send(msg);
    } catch (err) {
      throw new OperationFailedError('send message Exception', { cause: err });
    }
    let state: LocalTransactionState = LocalTransactionState.UNKNOW;
    let localException: unknown = null;
    if (sendResult.sendStatus === SendStatus.SEND_OK) {
      try {
        if (sendResult.transactionId !== undefined) msg.properties[MessageConst.PROPERTY_TRANSACTION_ID] = sendResult.transactionId;
        const transactionId = msg.properties[MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX];
        if (transactionId) msg.transactionId = transactionId;
        state = normalizeState(await listener.executeLocalTransaction(msg, arg));
        if (state !== LocalTransactionState.COMMIT_MESSAGE) {
          this.#log.info({ state, msgId: sendResult.msgId }, 'executeLocalTransaction did not commit');
        }
      } catch (err) {
        this.#log.info({ err, msgId: sendResult.msgId }, 'executeLocalTransaction exception');
        localException = err;
      }
    } else {
      state = LocalTransactionState.ROLLBACK_MESSAGE;
    }
    try {
      await this.endTransaction(sendResult, state, localException, msg);
    } catch (err) {
      this.#log.warn({ err, state, msgId: sendResult.msgId }, 'local transaction executed, but end broker transaction failed');
    }
    const result: TransactionSendResult = { ...sendResult, localTransactionState: state };
    if (msg.transactionId !== undefined) result.transactionId = msg.transactionId;
    return result;
  }

  /** END_TRANSACTION (oneway) for a half message just sent (DefaultMQProducerImpl.endTransaction). */
  async endTransaction(sendResult: SendResult, state: LocalTransactionState, localException: unknown = null, msg?: Message): Promise<void> {
    const instance = this.clientInstance;
    if (!instance) throw new ServiceStateError('The producer service state not OK');
    const id = decodeOffsetMessageId(sendResult.offsetMsgId || sendResult.msgId);
    const brokerName = sendResult.messageQueue.brokerName;
    const brokerAddr = instance.findBrokerAddressInPublish(brokerName);
    if (!brokerAddr) throw new BrokerNotFoundError(brokerName);
    const header: EndTransactionRequestHeader = {
      producerGroup: this.clientConfig.withNamespace(this.producerGroup),
      tranStateTableOffset: sendResult.queueOffset,
      commitLogOffset: id.offset,
      commitOrRollback: transactionTypeOf(state),
      msgId: sendResult.msgId,
      // Java's header field is a primitive boolean: always sent, "false" here
      fromTransactionCheck: false,
      bname: brokerName,
    };
    if (sendResult.transactionId !== undefined) header.transactionId = sendResult.transactionId;
    const remark = localException != null ? `executeLocalTransactionBranch exception: ${describeError(localException)}` : null;
    if (this.traceDispatcher && msg) endTransactionTrace(this.traceDispatcher, this.producerGroup, msg, sendResult.msgId, brokerAddr, state, false);
    await endTransactionOneway(instance.api, brokerAddr, header, remark, this.options.sendMsgTimeout);
  }

  /** CHECK_TRANSACTION_STATE from `brokerAddr` (MQProducerInner): queued on the bounded check pool. */
  checkTransactionState(brokerAddr: string, msg: MessageExt, header: CheckTransactionStateRequestHeader): void {
    const opts = this.transactionOptions;
    // The listener sees the topic without the namespace (ClientRemotingProcessor.checkTransactionState).
    if (this.clientConfig.getNamespace()) msg.topic = this.clientConfig.withoutNamespace(msg.topic);
    const run = (): Promise<void> => this.checkLocalTransaction(brokerAddr, msg, header);
    if (this.#checksRunning < Math.max(1, opts.checkThreadPoolMaxSize)) {
      this.#startCheck(run);
    } else if (this.#checkQueue.length < opts.checkRequestHoldMax) {
      this.#checkQueue.push(run);
    } else {
      this.#log.warn({ brokerAddr, commitLogOffset: header.commitLogOffset }, 'transaction check rejected, the check queue is full');
    }
  }

  #startCheck(run: () => Promise<void>): void {
    this.#checksRunning++;
    void run()
      .catch((err: unknown) => this.#log.error({ err }, 'transaction check failed'))
      .finally(() => {
        this.#checksRunning--;
        const next = this.#checkQueue.shift();
        if (next) this.#startCheck(next);
        else if (this.#checksRunning === 0) for (const w of this.#idleWaiters.splice(0)) w();
      });
  }

  /**
   * Asks the listener about a half message and answers the broker with END_TRANSACTION marked
   * fromTransactionCheck (DefaultMQProducerImpl.checkTransactionState's task).
   */
  async checkLocalTransaction(brokerAddr: string, msg: MessageExt, checkHeader: CheckTransactionStateRequestHeader): Promise<void> {
    const listener = this.transactionListener;
    const group = this.clientConfig.withNamespace(this.producerGroup);
    if (!listener) {
      this.#log.warn({ group }, 'checkTransactionState, pick transactionListener by group failed');
      return;
    }
    let state: LocalTransactionState = LocalTransactionState.UNKNOW;
    let exception: unknown = null;
    try {
      state = normalizeState(await listener.checkLocalTransaction(msg));
    } catch (err) {
      this.#log.error({ err }, 'broker call checkTransactionState, but checkLocalTransactionState exception');
      exception = err;
    }
    const uniqueKey = msg.properties[MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX] ?? msg.msgId;
    const header: EndTransactionRequestHeader = {
      producerGroup: group,
      tranStateTableOffset: checkHeader.tranStateTableOffset,
      commitLogOffset: checkHeader.commitLogOffset,
      commitOrRollback: transactionTypeOf(state),
      fromTransactionCheck: true,
      msgId: uniqueKey,
    };
    if (checkHeader.bname !== undefined) header.bname = checkHeader.bname;
    if (checkHeader.transactionId !== undefined) header.transactionId = checkHeader.transactionId;
    if (state !== LocalTransactionState.COMMIT_MESSAGE) this.#log.warn({ state, msgId: uniqueKey }, 'when broker check, client did not commit');
    const remark = exception != null ? `checkLocalTransactionState Exception: ${describeError(exception)}` : null;
    const instance = this.clientInstance;
    if (!instance) return;
    if (this.traceDispatcher) endTransactionTrace(this.traceDispatcher, this.producerGroup, msg, uniqueKey, brokerAddr, state, true);
    try {
      await endTransactionOneway(instance.api, brokerAddr, header, remark, 3000);
    } catch (err) {
      this.#log.error({ err }, 'endTransactionOneway exception');
    }
  }
}
