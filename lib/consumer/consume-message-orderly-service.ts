/**
 * Orderly consumption: per queue, at most one listener call at a time, messages in offset order. In clustering a
 * queue is consumed only while it is locked at the broker (LOCK_BATCH_MQ, renewed every 20 s by the rebalance);
 * SUSPEND_CURRENT_QUEUE_A_MOMENT puts the messages back and retries them after the suspend time; past
 * maxReconsumeTimes a message goes to %RETRY%<group> (where the broker moves it to the DLQ) and is committed.
 *
 * @see org.apache.rocketmq.client.impl.consumer.ConsumeMessageOrderlyService
 */
import { consumeTraceAfter, consumeTraceBefore } from '../client/trace/trace-hooks';
import { CMResult, type ConsumeMessageDirectlyResult } from '../../protocol/body/consume-message-directly-result';
import { MessageModel } from '../../protocol/body/heartbeat-data';
import { MessageConst } from '../../protocol/message/message-const';
import type { MessageExt } from '../../protocol/message/message';
import type { MessageQueue } from '../../protocol/message/message-queue';
import { type Logger, componentLogger } from '../logger';
import {
  type ConsumeMessageService, type ConsumeServiceHost, ConsumeStats, TaskPool, TimerSet, resetRetryAndNamespace,
} from './consume-service';
import { ConsumeOrderlyContext, ConsumeOrderlyStatus, type MessageListenerOrderly } from './listener';
import type { ProcessQueue } from './process-queue';
import { redecodeBody, undecodableBody } from './pull-api-wrapper';


/** Java's -Drocketmq.client.maxTimeConsumeContinuously. */
export const MAX_TIME_CONSUME_CONTINUOUSLY = 60_000;

export class ConsumeMessageOrderlyService implements ConsumeMessageService {
  readonly #pool: TaskPool;
  readonly #timers = new TimerSet();
  readonly #stats = new ConsumeStats();
  /** Queues with a consume request queued or running (Java's MessageQueueLock, as a flag per process queue). */
  readonly #active = new WeakSet<ProcessQueue>();
  readonly #rerun = new WeakSet<ProcessQueue>();
  #stopped = false;
  readonly #log: Logger;

  constructor(private readonly host: ConsumeServiceHost, private readonly listener: MessageListenerOrderly, logger?: Logger) {
    this.#pool = new TaskPool(host.consumeThreadMax);
    this.#log = componentLogger('consume-orderly', logger);
  }

  get inFlight(): number {
    return this.#pool.running;
  }

  stats(): ConsumeStats {
    return this.#stats;
  }

  start(): void {
    this.#stopped = false;
    this.#pool.reopen();
  }

  async shutdown(awaitTerminationMillis: number): Promise<void> {
    this.#stopped = true;
    this.#timers.clear();
    const idle = this.#pool.close(false);
    if (awaitTerminationMillis > 0) {
      let t: NodeJS.Timeout | undefined;
      await Promise.race([idle, new Promise<void>((r) => { t = setTimeout(r, awaitTerminationMillis); t.unref(); })]);
      if (t) clearTimeout(t);
    }
    await idle;
  }

  submitConsumeRequest(_msgs: MessageExt[], pq: ProcessQueue, mq: MessageQueue, dispatchToConsume: boolean): void {
    if (dispatchToConsume) this.#submit(pq, mq);
  }

  #submit(pq: ProcessQueue, mq: MessageQueue): void {
    if (this.#stopped) return;
    if (this.#active.has(pq)) {
      this.#rerun.add(pq);
      return;
    }
    this.#active.add(pq);
    this.#pool.submit(async () => {
      try {
        await this.#run(pq, mq);
      } finally {
        this.#active.delete(pq);
        if (this.#rerun.has(pq)) {
          this.#rerun.delete(pq);
          if (!pq.dropped && pq.hasTempMessage()) this.#submit(pq, mq);
        }
      }
    });
  }

  #later(pq: ProcessQueue, mq: MessageQueue, delayMillis: number): void {
    if (this.#stopped) return;
    this.#timers.schedule(delayMillis, () => this.#submit(pq, mq));
  }

  #tryLockLaterAndReconsume(pq: ProcessQueue, mq: MessageQueue, delayMillis: number): void {
    if (this.#stopped) return;
    this.#timers.schedule(delayMillis, () => {
      void this.host.lockOneMQ(mq).then(
        (ok) => (ok ? this.#later(pq, mq, 10) : this.#later(pq, mq, 3000)),
        () => this.#later(pq, mq, 3000),
      );
    });
  }

  async #run(pq: ProcessQueue, mq: MessageQueue): Promise<void> {
    if (pq.dropped) return;
    const clustering = this.host.messageModel() === MessageModel.CLUSTERING;
    if (clustering && !(pq.locked && !pq.isLockExpired())) {
      this.#tryLockLaterAndReconsume(pq, mq, 100);
      return;
    }
    const begin = Date.now();
    const batch = Math.max(1, this.host.consumeMessageBatchMaxSize);
    for (;;) {
      if (pq.dropped || this.#stopped) return;
      if (clustering && (!pq.locked || pq.isLockExpired())) {
        this.#tryLockLaterAndReconsume(pq, mq, 10);
        return;
      }
      if (Date.now() - begin > MAX_TIME_CONSUME_CONTINUOUSLY) {
        this.#later(pq, mq, 10);
        return;
      }
      const msgs = pq.takeMessages(batch);
      if (msgs.length === 0) return;
      resetRetryAndNamespace(msgs, this.host.consumerGroup, (s) => this.host.withoutNamespace(s));
      const context = new ConsumeOrderlyContext(mq);
      const td = this.host.traceDispatcher;
      const trace = td ? consumeTraceBefore(td, this.host.consumerGroup, msgs) : null;
      const t0 = Date.now();
      let returned: ConsumeOrderlyStatus | null | undefined;
      let hasException = false;
      pq.consumeLocked = true;
      // a body this process could not decompress is tried again on each attempt (its codec may be installed now)
      const undecodable = msgs.find((m) => !redecodeBody(m));
      try {
        if (pq.dropped) return;
        if (undecodable) {
          // a body this process cannot decompress (codec not installed): the queue waits, in order, as after a
          // failed consumption (reconsumed here up to maxReconsumeTimes, then the DLQ), the listener never sees it
          this.#log.error({ err: undecodableBody(undecodable), group: this.host.consumerGroup, topic: mq.topic, queueId: mq.queueId, msgId: undecodable.msgId },
            `${undecodableBody(undecodable)!.message}: the queue is suspended and the message consumed again later`);
        } else {
          returned = await this.listener(msgs, context);
        }
      } catch (err) {
        hasException = true;
        this.#log.warn({ err, group: this.host.consumerGroup, topic: mq.topic, queueId: mq.queueId }, 'consumeMessage exception');
      } finally {
        pq.consumeLocked = false;
      }
      const status: ConsumeOrderlyStatus = returned ?? ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
      if (td) {
        const returnType = returned == null ? (hasException ? 'EXCEPTION' : 'RETURNNULL')
          : Date.now() - t0 >= this.host.consumeTimeout * 60_000 ? 'TIME_OUT'
            : returned === ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT ? 'FAILED' : 'SUCCESS';
        consumeTraceAfter(td, trace, msgs.length, status === ConsumeOrderlyStatus.SUCCESS || status === ConsumeOrderlyStatus.COMMIT, returnType);
      }
      this.#stats.consumeRTTotal += Date.now() - t0;
      this.#stats.consumeCalls++;
      const goOn = await this.processConsumeResult(msgs, status, context, pq, mq);
      if (!goOn) return;
    }
  }

  /** ConsumeMessageOrderlyService.processConsumeResult; returns whether to go on consuming this queue. */
  async processConsumeResult(
    msgs: MessageExt[], status: ConsumeOrderlyStatus, context: ConsumeOrderlyContext, pq: ProcessQueue, mq: MessageQueue,
  ): Promise<boolean> {
    let continueConsume = true;
    let commitOffset = -1;
    const suspendMillis = context.suspendCurrentQueueTimeMillis > 0 ? context.suspendCurrentQueueTimeMillis : this.host.suspendCurrentQueueTimeMillis;
    if (context.autoCommit) {
      switch (status) {
        case ConsumeOrderlyStatus.COMMIT:
        case ConsumeOrderlyStatus.ROLLBACK:
        case ConsumeOrderlyStatus.SUCCESS:
          if (status !== ConsumeOrderlyStatus.SUCCESS) {
            this.#log.warn({ group: this.host.consumerGroup }, 'the message queue consume result is illegal, we think you want to ack these message');
          }
          commitOffset = pq.commit();
          this.#stats.consumeOK += msgs.length;
          break;
        default:
          this.#stats.consumeFailed += msgs.length;
          if (await this.checkReconsumeTimes(msgs)) {
            pq.makeMessageToConsumeAgain(msgs);
            this.#later(pq, mq, suspendMillis);
            continueConsume = false;
          } else {
            commitOffset = pq.commit();
          }
      }
    } else {
      switch (status) {
        case ConsumeOrderlyStatus.SUCCESS:
          this.#stats.consumeOK += msgs.length;
          break;
        case ConsumeOrderlyStatus.COMMIT:
          commitOffset = pq.commit();
          break;
        case ConsumeOrderlyStatus.ROLLBACK:
          pq.rollback();
          this.#later(pq, mq, suspendMillis);
          continueConsume = false;
          break;
        default:
          this.#stats.consumeFailed += msgs.length;
          if (await this.checkReconsumeTimes(msgs)) {
            pq.makeMessageToConsumeAgain(msgs);
            this.#later(pq, mq, suspendMillis);
            continueConsume = false;
          }
      }
    }
    if (commitOffset >= 0 && !pq.dropped) this.host.offsetStore.updateOffset(mq, commitOffset, false);
    return continueConsume;
  }

  /** Orderly's max: -1 is unlimited. */
  #maxReconsumeTimes(): number {
    return this.host.maxReconsumeTimes === -1 ? 2147483647 : this.host.maxReconsumeTimes;
  }

  /** True when the messages are to be consumed again; past the max a message is sent to the retry topic instead. */
  async checkReconsumeTimes(msgs: MessageExt[]): Promise<boolean> {
    let suspend = false;
    for (const msg of msgs) {
      if (msg.reconsumeTimes >= this.#maxReconsumeTimes()) {
        msg.properties[MessageConst.PROPERTY_RECONSUME_TIME] = String(msg.reconsumeTimes);
        if (!(await this.host.sendRetryMessageForOrderly(msg))) {
          suspend = true;
          msg.reconsumeTimes++;
        }
      } else {
        suspend = true;
        msg.reconsumeTimes++;
      }
    }
    return suspend;
  }

  async consumeMessageDirectly(msg: MessageExt, brokerName: string | undefined): Promise<ConsumeMessageDirectlyResult> {
    const mq = { topic: msg.topic, brokerName: brokerName ?? '', queueId: msg.queueId };
    const context = new ConsumeOrderlyContext(mq);
    const msgs = [msg];
    resetRetryAndNamespace(msgs, this.host.consumerGroup, (s) => this.host.withoutNamespace(s));
    const begin = Date.now();
    const result: ConsumeMessageDirectlyResult = { order: true, autoCommit: true, spentTimeMills: 0 };
    try {
      const status = await this.listener(msgs, context);
      switch (status) {
        case ConsumeOrderlyStatus.COMMIT: result.consumeResult = CMResult.CR_COMMIT; break;
        case ConsumeOrderlyStatus.ROLLBACK: result.consumeResult = CMResult.CR_ROLLBACK; break;
        case ConsumeOrderlyStatus.SUCCESS: result.consumeResult = CMResult.CR_SUCCESS; break;
        case ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT: result.consumeResult = CMResult.CR_LATER; break;
        default: result.consumeResult = CMResult.CR_RETURN_NULL;
      }
    } catch (err) {
      result.consumeResult = CMResult.CR_THROW_EXCEPTION;
      result.remark = err instanceof Error ? (err.stack ?? err.message) : String(err);
    }
    result.autoCommit = context.autoCommit;
    result.spentTimeMills = Date.now() - begin;
    return result;
  }
}
