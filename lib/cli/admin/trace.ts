/**
 * mqadmin queryMsgTraceById: the trace records of one message, read as Java's tool reads them: the trace messages
 * whose KEYS hold the msgId (queryMessage(traceTopic, msgId, 64, 0, now)), decoded with the TraceDataEncoder rules,
 * the records of that msgId kept (TraceView.decodeFromTraceTransData), then the Pub records printed, then the SubAfter
 * records grouped by consumer group (a Java HashMap: groups in its iteration order).
 *
 * @see org.apache.rocketmq.tools.command.message.QueryMsgTraceByIdSubCommand
 * @see org.apache.rocketmq.client.trace.TraceView
 */
import type { MessageExt } from '../../../protocol/message/message';
import { javaHashOrder } from '../../../protocol/message/java-hash';
import { TopicValidator } from '../../../protocol/mix-all';
import { TraceType, decodeTraceData } from '../../../protocol/trace/trace-data-encoder';
import { formatDateTime, javaFormat } from '../java-format';
import { type Command, type Out, opt, printJson, wantsJson } from './command';

/** Java TraceView: one record of the message, as the tool shows it. */
export interface TraceView {
  msgId: string | null;
  tags: string | null;
  keys: string | null;
  storeHost: string | null;
  /** The born host (IP) of the trace message that carried the record. */
  clientHost: string;
  costTime: number;
  /** The record's TraceType name. */
  msgType: string;
  offSetMsgId: string | null;
  timeStamp: number;
  topic: string | null;
  groupName: string | null;
  status: 'success' | 'failed';
}

/** Java TraceView.decodeFromTraceTransData(key, messageExt). */
export function decodeTraceViews(key: string, message: MessageExt): TraceView[] {
  const views: TraceView[] = [];
  const body = message.body.toString('utf8');
  if (body.length === 0) return views;
  for (const ctx of decodeTraceData(body)) {
    const bean = ctx.traceBeans[0];
    if (bean.msgId !== key) continue;
    views.push({
      costTime: ctx.costTime, groupName: ctx.groupName, status: ctx.isSuccess ? 'success' : 'failed', keys: bean.keys, msgId: bean.msgId,
      tags: bean.tags, topic: bean.topic, msgType: ctx.traceType, offSetMsgId: bean.offsetMsgId, timeStamp: ctx.timeStamp,
      storeHost: bean.storeHost, clientHost: message.bornHost.address,
    });
  }
  return views;
}

const ROW = '%-10s %-20s %-20s %-20s %-10s %-10s%n';

/** QueryMsgTraceByIdSubCommand.printMessageTrace. */
export function printMessageTrace(views: readonly TraceView[], out: Out): void {
  const consumerTraceMap = new Map<string, TraceView[]>();
  for (const v of views) {
    if (v.msgType === TraceType.Pub) {
      out(javaFormat(ROW, '#Type', '#ProducerGroup', '#ClientHost', '#SendTime', '#CostTimes', '#Status'));
      out(javaFormat(ROW, 'Pub', v.groupName, v.clientHost, formatDateTime(v.timeStamp), `${v.costTime}ms`, v.status));
      out('\n');
    }
    if (v.msgType === TraceType.SubAfter) {
      const g = String(v.groupName);
      const list = consumerTraceMap.get(g);
      if (list) list.push(v);
      else consumerTraceMap.set(g, [v]);
    }
  }
  for (const [, list] of javaHashOrder([...consumerTraceMap.entries()], (e) => e[0])) {
    out(javaFormat(ROW, '#Type', '#ConsumerGroup', '#ClientHost', '#ConsumerTime', '#CostTimes', '#Status'));
    for (const v of list) out(javaFormat(ROW, 'Sub', v.groupName, v.clientHost, formatDateTime(v.timeStamp), `${v.costTime}ms`, v.status));
    out('\n');
  }
}

export const TRACE_COMMANDS: Command[] = [
  {
    name: 'queryMsgTraceById', desc: 'query a message trace',
    options: { i: opt('msgId', 'Message Id', true), t: opt('traceTopic', 'The name value of message trace topic') },
    async run(admin, opts, out) {
      const msgId = (opts.get('i') ?? '').trim();
      const traceTopic = opts.has('t') ? (opts.get('t') ?? '').trim() : TopicValidator.RMQ_SYS_TRACE_TOPIC;
      const result = await admin.queryMessage(traceTopic, msgId, 64, 0, Date.now());
      const views: TraceView[] = [];
      for (const m of result.messageList) views.push(...decodeTraceViews(msgId, m));
      if (wantsJson(opts)) return printJson(out, views);
      printMessageTrace(views, out);
    },
  },
];
