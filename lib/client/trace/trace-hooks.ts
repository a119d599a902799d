/**
 * What Java's trace hooks record, as plain functions the producer, the consumers and the transaction producer call
 * around their work when enableMsgTrace is on:
 * - Pub (SendMessageTraceHookImpl): before a send the topic, tags, keys, broker address, body length (as sent) and
 *   message type; after a send with a result (never for oneway or a failed send) the cost, status, region, msgId and
 *   offsetMsgId. Nothing is recorded for sends to the trace topic itself, or when the broker's traceOn is false.
 * - SubBefore / SubAfter (ConsumeMessageTraceHookImpl): one SubBefore record per delivered message (skipping those
 *   whose TRACE_ON property is "false") before the listener runs, and SubAfter records with the cost per message,
 *   the outcome and the ConsumeReturnType ordinal after it.
 * - EndTransaction (EndTransactionTraceHookImpl): the state told to the broker, with fromTransactionCheck.
 *
 * @see org.apache.rocketmq.client.trace.hook.SendMessageTraceHookImpl
 * @see org.apache.rocketmq.client.trace.hook.ConsumeMessageTraceHookImpl
 * @see org.apache.rocketmq.client.trace.hook.EndTransactionTraceHookImpl
 */
import { MessageConst } from '../../../protocol/message/message-const';
import type { Message, MessageExt } from '../../../protocol/message/message';
import { createUniqId } from '../../../protocol/message/message-id';
import {
  ConsumeReturnType, type TraceContext, TraceMessageType, TraceType, newTraceBean, newTraceContext,
} from '../../../protocol/trace/trace-data-encoder';
import { getLocalAddress } from '../client-config';
import { MixAll } from '../mix-all';
import { withoutNamespace } from '../namespace';
import { type SendResult, SendStatus } from '../send-result';
import type { AsyncTraceDispatcher } from './async-trace-dispatcher';

let localAddress: string | undefined;
/** Java TraceBean.LOCAL_ADDRESS. */
function local(): string {
  return (localAddress ??= getLocalAddress());
}

/** Java's getProperty (null when absent), for the `null` text of a missing tag or key. */
function prop(msg: Message, name: string): string | null {
  return msg.properties?.[name] ?? null;
}

/** The message type the producer's SendMessageContext carries (DefaultMQProducerImpl.sendKernelImpl). */
function msgTypeOf(msg: Message): TraceMessageType {
  let t: TraceMessageType = TraceMessageType.Normal_Msg;
  if (prop(msg, MessageConst.PROPERTY_TRANSACTION_PREPARED) === 'true') t = TraceMessageType.Trans_Msg_Half;
  if (prop(msg, '__STARTDELIVERTIME') !== null || prop(msg, MessageConst.PROPERTY_DELAY_TIME_LEVEL) !== null) t = TraceMessageType.Delay_Msg;
  return t;
}

/** SendMessageTraceHookImpl.sendMessageBefore: the Pub context, or null for a send to the trace topic. */
export function sendTraceBefore(d: AsyncTraceDispatcher, producerGroup: string, userTopic: string, msg: Message, brokerAddr: string, bodyLength: number): TraceContext | null {
  if (msg.topic.startsWith(d.traceTopicName) || userTopic.startsWith(d.traceTopicName)) return null;
  const ctx = newTraceContext(TraceType.Pub, { groupName: withoutNamespace(producerGroup) });
  ctx.traceBeans.push(newTraceBean(local(), {
    topic: withoutNamespace(userTopic), tags: prop(msg, MessageConst.PROPERTY_TAGS), keys: prop(msg, MessageConst.PROPERTY_KEYS),
    storeHost: brokerAddr, bodyLength, msgType: msgTypeOf(msg),
  }));
  return ctx;
}

/** SendMessageTraceHookImpl.sendMessageAfter. */
export function sendTraceAfter(d: AsyncTraceDispatcher, ctx: TraceContext, result: SendResult | null): void {
  if (!result || !result.regionId || !result.traceOn) return;
  const bean = ctx.traceBeans[0];
  const costTime = Math.trunc((Date.now() - ctx.timeStamp) / ctx.traceBeans.length);
  ctx.costTime = costTime;
  ctx.isSuccess = result.sendStatus === SendStatus.SEND_OK;
  ctx.regionId = result.regionId;
  bean.msgId = result.msgId;
  bean.offsetMsgId = result.offsetMsgId;
  bean.storeTime = ctx.timeStamp + Math.trunc(costTime / 2);
  d.append(ctx);
}

/** ConsumeMessageTraceHookImpl.consumeMessageBefore: the SubBefore context (queued), or null when no message is traced. */
export function consumeTraceBefore(d: AsyncTraceDispatcher, consumerGroup: string, msgs: readonly MessageExt[]): TraceContext | null {
  if (msgs.length === 0) return null;
  const ctx = newTraceContext(TraceType.SubBefore, { groupName: withoutNamespace(consumerGroup), requestId: createUniqId() });
  for (const msg of msgs) {
    const traceOn = prop(msg, MessageConst.PROPERTY_TRACE_SWITCH);
    if (traceOn === 'false') continue;
    ctx.traceBeans.push(newTraceBean(local(), {
      topic: withoutNamespace(msg.topic), msgId: msg.msgId, tags: prop(msg, MessageConst.PROPERTY_TAGS), keys: prop(msg, MessageConst.PROPERTY_KEYS),
      storeTime: msg.storeTimestamp, bodyLength: msg.storeSize, retryTimes: msg.reconsumeTimes,
    }));
    ctx.regionId = prop(msg, MessageConst.PROPERTY_MSG_REGION);
  }
  if (ctx.traceBeans.length === 0) return null;
  ctx.timeStamp = Date.now();
  d.append(ctx);
  return ctx;
}

export type ConsumeReturnTypeName = keyof typeof ConsumeReturnType;

/** ConsumeMessageTraceHookImpl.consumeMessageAfter. */
export function consumeTraceAfter(d: AsyncTraceDispatcher, before: TraceContext | null, msgCount: number, success: boolean, returnType: ConsumeReturnTypeName): void {
  if (!before || before.traceBeans.length === 0 || msgCount === 0) return;
  d.append(newTraceContext(TraceType.SubAfter, {
    regionId: before.regionId,
    groupName: withoutNamespace(before.groupName ?? ''),
    requestId: before.requestId,
    isSuccess: success,
    costTime: Math.trunc((Date.now() - before.timeStamp) / msgCount),
    traceBeans: before.traceBeans,
    contextCode: ConsumeReturnType[returnType],
  }));
}

/** EndTransactionTraceHookImpl.endTransaction. */
export function endTransactionTrace(
  d: AsyncTraceDispatcher, producerGroup: string, msg: Message, msgId: string, brokerAddr: string, state: string, fromTransactionCheck: boolean,
): void {
  if (msg.topic.startsWith(d.traceTopicName)) return;
  let regionId = prop(msg, MessageConst.PROPERTY_MSG_REGION);
  if (!regionId) regionId = MixAll.DEFAULT_TRACE_REGION_ID;
  d.append(newTraceContext(TraceType.EndTransaction, {
    groupName: withoutNamespace(producerGroup),
    regionId,
    traceBeans: [newTraceBean(local(), {
      topic: withoutNamespace(msg.topic), tags: prop(msg, MessageConst.PROPERTY_TAGS), keys: prop(msg, MessageConst.PROPERTY_KEYS),
      storeHost: brokerAddr, msgType: TraceMessageType.Trans_msg_Commit, msgId, transactionState: state,
      transactionId: msg.transactionId ?? null, fromTransactionCheck,
    })],
  }));
}
