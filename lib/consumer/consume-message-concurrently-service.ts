/**
 * Concurrent consumption: pulled messages are cut into batches of consumeMessageBatchMaxSize and handed to the
 * listener with at most consumeThreadMax calls at once. A batch's result moves the queue's offset to the smallest
 * offset still in flight; messages past ackIndex (all of them on RECONSUME_LATER or a throw) are sent back to the
 * broker (clustering) or dropped with a log (broadcasting); a failed send-back is retried locally after 5 s.
 * Messages whose consumption started more than consumeTimeout minutes ago are sent back and removed.
 *
 * @see org.apache.rocketmq.client.impl.consumer.ConsumeMessageConcurrentlyService
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
import { ConsumeConcurrentlyContext, ConsumeConcurrentlyStatus, type MessageListenerConcurrently } from './listener';
import type { ProcessQueue } from './process-queue';
import { undecodableBody } from './pull-api-wrapper';


/** Delay of a local retry after a failed send-back or a full pool (Java's submitConsumeRequestLater). */
export const CONSUME_REQUEST_LATER_MILLIS = 5_000;

export class ConsumeMessageConcurrentlyService implements ConsumeMessageService {
  readonly #pool: TaskPool;
  readonly #timers = new TimerSet();
  readonly #stats = new ConsumeStats();
  #cleanTimer: NodeJS.Timeout | null = null;
  #stopped = false;
  readonly #log: Logger;

  constructor(private readonly host: ConsumeServiceHost, private readonly listener: MessageListenerConcurrently, logger?: Logger) {
    this.#pool = new TaskPool(host.consumeThreadMax);
    this.#log = componentLogger('consume-concurrently', logger);
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
    const every = this.host.consumeTimeout * 60_000;
    this.#cleanTimer = setInterval(() => void this.cleanExpireMsg(), every);
    this.#cleanTimer.unref();
  }

  async shutdown(awaitTerminationMillis: number): Promise<void> {
    this.#stopped = true;
    if (this.#cleanTimer) clearInterval(this.#cleanTimer);
    this.#cleanTimer = null;
    this.#timers.clear();
    const idle = this.#pool.close(awaitTerminationMillis > 0);
    if (awaitTerminationMillis > 0) {
      let t: NodeJS.Timeout | undefined;
      await Promise.race([idle, new Promise<void>((r) => { t = setTimeout(r, awaitTerminationMillis); t.unref(); })]);
      if (t) clearTimeout(t);
      await this.#pool.close(false);
    } else {
      await idle;
    }
  }

  submitConsumeRequest(msgs: MessageExt[], pq: ProcessQueue, mq: MessageQueue, _dispatchToConsume: boolean): void {
    if (this.#stopped) return;
    if (msgs.some((m) => undecodableBody(m))) {
      const rejected = msgs.filter((m) => undecodableBody(m));
      this.#pool.submit(() => this.#sendBackUndecodable(rejected, pq, mq));
      msgs = msgs.filter((m) => !undecodableBody(m));
      if (msgs.length === 0) return;
    }
    const batch = Math.max(1, this.host.consumeMessageBatchMaxSize);
    for (let i = 0; i < msgs.length; i += batch) {
      const slice = msgs.length <= batch ? msgs : msgs.slice(i, i + batch);
      this.#pool.submit(() => this.#consume(slice, pq, mq));
    }
  }

  async #consume(msgs: MessageExt[], pq: ProcessQueue, mq: MessageQueue): Promise<void> {
    if (pq.dropped) return;
    const context = new ConsumeConcurrentlyContext(mq);
    resetRetryAndNamespace(msgs, this.host.consumerGroup, (s) => this.host.withoutNamespace(s));
    const td = this.host.traceDispatcher;
    const trace = td ? consumeTraceBefore(td, this.host.consumerGroup, msgs) : null;
    const begin = Date.now();
    const startProp = String(begin);
    for (const m of msgs) m.properties[MessageConst.PROPERTY_CONSUME_START_TIMESTAMP] = startProp;
    let status: ConsumeConcurrentlyStatus;
    let returned: ConsumeConcurrentlyStatus | null | undefined;
    let hasException = false;
    try {
      returned = await this.listener(msgs, context);
    } catch (err) {
      hasException = true;
      this.#log.warn({ err, group: this.host.consumerGroup, topic: mq.topic, queueId: mq.queueId }, 'consumeMessage exception');
    }
    status = returned ?? ConsumeConcurrentlyStatus.RECONSUME_LATER;
    if (td) {
      // Java's ConsumeReturnType of the call, in the SubAfter record
      const returnType = returned == null ? (hasException ? 'EXCEPTION' : 'RETURNNULL')
        : Date.now() - begin >= this.host.consumeTimeout * 60_000 ? 'TIME_OUT'
          : returned === ConsumeConcurrentlyStatus.RECONSUME_LATER ? 'FAILED' : 'SUCCESS';
      consumeTraceAfter(td, trace, msgs.length, status === ConsumeConcurrentlyStatus.CONSUME_SUCCESS, returnType);
    }
    if (status !== ConsumeConcurrentlyStatus.CONSUME_SUCCESS && status !== ConsumeConcurrentlyStatus.RECONSUME_LATER) {
      status = ConsumeConcurrentlyStatus.RECONSUME_LATER;
    }
    this.#stats.consumeRTTotal += Date.now() - begin;
    this.#stats.consumeCalls++;
    if (!pq.dropped) await this.processConsumeResult(status, context, msgs, pq, mq);
    else this.#log.warn({ group: this.host.consumerGroup, topic: mq.topic, queueId: mq.queueId }, 'processQueue dropped, result not processed');
  }

  /**
   * Messages whose body this process cannot decompress (an LZ4 / ZSTD codec not installed here): the listener never
   * sees them; they are sent back as a failed consumption (RECONSUME_LATER), so they come again through the retry
   * topic (to a consumer of the group that has the codec, or here once it is installed) and end in the DLQ after
   * maxReconsumeTimes, never dropped. The error names the package to install.
   */
  async #sendBackUndecodable(msgs: MessageExt[], pq: ProcessQueue, mq: MessageQueue): Promise<void> {
    if (pq.dropped) return;
    const byCodec = new Map<string, MessageExt[]>();
    for (const m of msgs) {
      const codec = undecodableBody(m)?.codec ?? '?';
      byCodec.set(codec, [...(byCodec.get(codec) ?? []), m]);
    }
    for (const list of byCodec.values()) {
      const err = undecodableBody(list[0]);
      this.#log.error({ err, group: this.host.consumerGroup, topic: mq.topic, queueId: mq.queueId, msgIds: list.map((m) => m.msgId) },
        `${err?.message ?? 'undecodable body'}: ${list.length} message(s) sent back for redelivery`);
    }
    await this.processConsumeResult(ConsumeConcurrentlyStatus.RECONSUME_LATER, new ConsumeConcurrentlyContext(mq), msgs, pq, mq);
  }

  /** ConsumeMessageConcurrentlyService.processConsumeResult. */
  async processConsumeResult(
    status: ConsumeConcurrentlyStatus, context: ConsumeConcurrentlyContext, msgs: MessageExt[], pq: ProcessQueue, mq: MessageQueue,
  ): Promise<void> {
    if (msgs.length === 0) return;
    let ackIndex = context.ackIndex;
    if (status === ConsumeConcurrentlyStatus.CONSUME_SUCCESS) {
      if (ackIndex >= msgs.length) ackIndex = msgs.length - 1;
      const ok = ackIndex + 1;
      this.#stats.consumeOK += ok;
      this.#stats.consumeFailed += msgs.length - ok;
    } else {
      ackIndex = -1;
      this.#stats.consumeFailed += msgs.length;
    }
    let remaining = msgs;
    if (this.host.messageModel() === MessageModel.BROADCASTING) {
      for (let i = ackIndex + 1; i < msgs.length; i++) {
        this.#log.warn({ group: this.host.consumerGroup, msgId: msgs[i].msgId, topic: mq.topic }, 'BROADCASTING, the message consume failed, drop it');
      }
    } else {
      const failed: MessageExt[] = [];
      for (let i = ackIndex + 1; i < msgs.length; i++) {
        const msg = msgs[i];
        try {
          await this.host.sendMessageBack(msg, context.delayLevelWhenNextConsume, mq.brokerName);
        } catch (err) {
          this.#log.warn({ err, group: this.host.consumerGroup, msgId: msg.msgId }, 'sendMessageBack failed, consume it again later');
          msg.reconsumeTimes++;
          failed.push(msg);
        }
      }
      if (failed.length > 0) {
        const failedSet = new Set(failed);
        remaining = msgs.filter((m) => !failedSet.has(m));
        this.#submitConsumeRequestLater(failed, pq, mq);
      }
    }
    const offset = pq.removeMessage(remaining);
    if (offset >= 0 && !pq.dropped) this.host.offsetStore.updateOffset(mq, offset, true);
  }

  #submitConsumeRequestLater(msgs: MessageExt[], pq: ProcessQueue, mq: MessageQueue): void {
    if (this.#stopped) return;
    this.#timers.schedule(CONSUME_REQUEST_LATER_MILLIS, () => this.submitConsumeRequest(msgs, pq, mq, true));
  }

  /** ProcessQueue.cleanExpiredMsg over every owned queue. */
  async cleanExpireMsg(): Promise<void> {
    for (const [mq, pq] of this.host.processQueues()) {
      if (pq.dropped) continue;
      for (const msg of pq.expiredMessages(this.host.consumeTimeout)) {
        try {
          await this.host.sendMessageBack(msg, 3, mq.brokerName);
          this.#log.info({ group: this.host.consumerGroup, msgId: msg.msgId, queueOffset: msg.queueOffset }, 'send expired msg back');
          const offset = pq.removeMessage([msg]);
          if (offset >= 0 && !pq.dropped) this.host.offsetStore.updateOffset(mq, offset, true);
        } catch (err) {
          this.#log.error({ err, group: this.host.consumerGroup, msgId: msg.msgId }, 'send expired msg back failed');
        }
      }
    }
  }

  /** CONSUME_MESSAGE_DIRECTLY: one call of the listener, its outcome reported, no offset or send-back. */
  async consumeMessageDirectly(msg: MessageExt, brokerName: string | undefined): Promise<ConsumeMessageDirectlyResult> {
    const mq = { topic: msg.topic, brokerName: brokerName ?? '', queueId: msg.queueId };
    const context = new ConsumeConcurrentlyContext(mq);
    const msgs = [msg];
    resetRetryAndNamespace(msgs, this.host.consumerGroup, (s) => this.host.withoutNamespace(s));
    const begin = Date.now();
    const result: ConsumeMessageDirectlyResult = { order: false, autoCommit: true, spentTimeMills: 0 };
    try {
      const status = await this.listener(msgs, context);
      if (status === ConsumeConcurrentlyStatus.CONSUME_SUCCESS) result.consumeResult = CMResult.CR_SUCCESS;
      else if (status === ConsumeConcurrentlyStatus.RECONSUME_LATER) result.consumeResult = CMResult.CR_LATER;
      else result.consumeResult = CMResult.CR_RETURN_NULL;
    } catch (err) {
      result.consumeResult = CMResult.CR_THROW_EXCEPTION;
      result.remark = err instanceof Error ? (err.stack ?? err.message) : String(err);
    }
    result.spentTimeMills = Date.now() - begin;
    return result;
  }
}
