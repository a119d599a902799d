/**
 * Batches trace contexts into trace messages as Java's AsyncTraceDispatcher does: contexts are queued (at most 1024
 * waiting; more are dropped and counted), encoded every 100 ms (pollingTimeMil) into one segment per trace topic, and
 * a segment is sent as one message when its text reaches maxMsgSize − 10,000 characters (128,000 − 10,000) or when
 * its first record is 500 ms old (waitTimeThresholdMil). The message's body is the records back to back and its KEYS
 * the set of traced message ids and keys. flush() sends everything pending and waits for the sends; shutdown()
 * flushes and stops the trace producer.
 *
 * The one timer runs only while something is pending, is unref'd, and is cleared on shutdown.
 *
 * @see org.apache.rocketmq.client.trace.AsyncTraceDispatcher
 */
import { TopicValidator } from '../mix-all';
import type { ClientConfig } from '../client-config';
import type { MQClientInstanceOptions } from '../mq-client-instance';
import { MQClientManager } from '../mq-client-manager';
import { type Logger, componentLogger } from '../../logger';
import { TraceConstants, type TraceContext, type TraceTransferBean, encodeTraceContext } from '../../../protocol/trace/trace-data-encoder';
import { TRACE_PRODUCER_DEFAULTS, TraceProducer, traceInstanceName } from './trace-producer';

export type TraceDispatcherType = 'PRODUCE' | 'CONSUME';

/** Java's AsyncTraceDispatcher constants. */
export const ASYNC_TRACE_DISPATCHER_DEFAULTS = Object.freeze({
  queueSize: 2048,
  batchSize: 100,
  maxMsgSize: TRACE_PRODUCER_DEFAULTS.maxMessageSize,
  pollingTimeMil: 100,
  waitTimeThresholdMil: 500,
  contextQueueCapacity: 1024,
});

let COUNTER = 0;

interface Segment {
  readonly topic: string;
  beans: TraceTransferBean[];
  size: number;
  firstBeanAddTime: number;
}

export interface AsyncTraceDispatcherOptions {
  /** The traced client's config (name servers, TLS, ACL...): the trace producer uses a copy with its own instance name. */
  clientConfig: ClientConfig;
  clientManager?: MQClientManager;
  instanceOptions?: MQClientInstanceOptions;
  logger?: Logger;
}

export class AsyncTraceDispatcher {
  readonly traceTopicName: string;
  readonly producer: TraceProducer;
  /** Contexts dropped because the queue was full, or sends refused because too many were in flight. */
  discardCount = 0;
  readonly #queue: TraceContext[] = [];
  readonly #segments = new Map<string, Segment>();
  readonly #inflight = new Set<Promise<void>>();
  readonly #logger: Logger;
  #timer: NodeJS.Timeout | null = null;
  #started = false;
  #stopped = false;
  /** A shutdown is under way: contexts are still taken (its flush sends them), no timer is armed. */
  #closing: Promise<void> | null = null;

  constructor(readonly group: string, readonly type: TraceDispatcherType, traceTopicName: string | undefined, options: AsyncTraceDispatcherOptions) {
    this.traceTopicName = traceTopicName && traceTopicName.trim().length > 0 ? traceTopicName : TopicValidator.RMQ_SYS_TRACE_TOPIC;
    this.#logger = componentLogger('trace-dispatcher', options.logger);
    const config = options.clientConfig.cloneClientConfig();
    config.instanceName = traceInstanceName(config.getNamesrvAddr());
    config.vipChannelEnabled = false;
    const traceGroup = `${TraceConstants.GROUP_NAME_PREFIX}-${group}-${type}-${++COUNTER}`;
    this.producer = new TraceProducer(traceGroup, config, options.clientManager ?? MQClientManager.getInstance(), options.instanceOptions ?? {}, this.#logger);
  }

  /** Starts the trace producer (idempotent). */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    this.#stopped = false;
    await this.producer.start();
  }

  /** Queues one context; false when the queue is full (the context is dropped). */
  append(ctx: TraceContext): boolean {
    if (this.#stopped || this.#queue.length >= ASYNC_TRACE_DISPATCHER_DEFAULTS.contextQueueCapacity) {
      this.discardCount++;
      return false;
    }
    this.#queue.push(ctx);
    this.#schedule();
    return true;
  }

  #schedule(): void {
    if (this.#timer || this.#stopped || this.#closing) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#tick();
    }, ASYNC_TRACE_DISPATCHER_DEFAULTS.pollingTimeMil);
    this.#timer.unref();
  }

  /** Encodes what was queued, sends the segments whose first record waited waitTimeThresholdMil, and re-arms. */
  #tick(): void {
    this.#drain();
    const now = Date.now();
    for (const seg of this.#segments.values()) {
      if (seg.beans.length > 0 && now - seg.firstBeanAddTime >= ASYNC_TRACE_DISPATCHER_DEFAULTS.waitTimeThresholdMil) this.#sendSegment(seg);
    }
    if ([...this.#segments.values()].some((s) => s.beans.length > 0)) this.#schedule();
  }

  #drain(): void {
    const batch = this.#queue.splice(0);
    for (const ctx of batch) {
      if (ctx.traceBeans.length === 0) continue;
      const topic = this.traceTopicName;
      let seg = this.#segments.get(topic);
      if (!seg) {
        seg = { topic, beans: [], size: 0, firstBeanAddTime: 0 };
        this.#segments.set(topic, seg);
      }
      const bean = encodeTraceContext(ctx);
      if (seg.firstBeanAddTime === 0) seg.firstBeanAddTime = Date.now();
      seg.beans.push(bean);
      seg.size += bean.transData.length;
      if (seg.size >= this.producer.maxMessageSize - 10 * 1000) this.#sendSegment(seg);
    }
  }

  #sendSegment(seg: Segment): void {
    const beans = seg.beans;
    seg.beans = [];
    seg.size = 0;
    seg.firstBeanAddTime = 0;
    if (this.#inflight.size >= ASYNC_TRACE_DISPATCHER_DEFAULTS.queueSize) {
      this.discardCount += beans.length;
      this.#logger.warn({ topic: seg.topic, dropped: beans.length }, 'too many trace sends in flight, trace data dropped');
      return;
    }
    const keys = new Set<string>();
    let data = '';
    for (const b of beans) {
      for (const k of b.transKey) keys.add(k);
      data += b.transData;
    }
    const p = this.producer.send(seg.topic, data, keys).catch((err: unknown) => {
      this.#logger.error({ err, topic: seg.topic }, 'send trace data failed');
    });
    this.#inflight.add(p);
    void p.finally(() => this.#inflight.delete(p));
  }

  /** Sends everything pending now and waits for the sends in flight. */
  async flush(): Promise<void> {
    this.#drain();
    for (const seg of this.#segments.values()) if (seg.beans.length > 0) this.#sendSegment(seg);
    await Promise.allSettled([...this.#inflight]);
  }

  /**
   * Stops the timer, flushes, then stops the trace producer (idempotent). Contexts appended while the flush waits for
   * its sends (a send of the traced client that ends meanwhile) go in a second flush, not under a timer that would
   * fire on the stopped producer.
   */
  shutdown(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    this.#closing ??= (async () => {
      if (this.#timer) {
        clearTimeout(this.#timer);
        this.#timer = null;
      }
      if (this.#started) {
        await this.flush();
        if (this.#queue.length > 0) await this.flush();
      }
      this.#stopped = true;
      this.#started = false;
      await this.producer.shutdown();
    })().finally(() => {
      this.#closing = null;
    });
    return this.#closing;
  }
}
