/**
 * Message trace records as Java's clients write them to the trace topic (RMQ_SYS_TRACE_TOPIC by default): a trace
 * message's body is records back to back, each record's fields separated by CONTENT_SPLITOR (char 1) and the record
 * ended by FIELD_SPLITOR (char 2). Its KEYS are the traced messages' ids and keys, so `queryMessage(traceTopic,
 * msgId)` finds the records of one message through the index.
 *
 *   Pub            Pub|timeStamp|regionId|groupName|topic|msgId|tags|keys|storeHost|bodyLength|costTime|msgType|offsetMsgId|success
 *   SubBefore      SubBefore|timeStamp|regionId|groupName|requestId|msgId|retryTimes|keys            (one per message)
 *   SubAfter       SubAfter|requestId|msgId|costTime|success|keys|contextCode|timeStamp|groupName    (one per message;
 *                  CLOUD access channel: ends after contextCode with a CONTENT_SPLITOR and no FIELD_SPLITOR)
 *   EndTransaction EndTransaction|timeStamp|regionId|groupName|topic|msgId|tags|keys|storeHost|msgType|transactionId|
 *                  transactionState|fromTransactionCheck
 *
 * A null field is written `null` (Java's StringBuilder.append(null)): a message without tags or keys has `null` there.
 * Decoding splits as Java's String.split does (trailing empty fields dropped) and keeps its field-count rules.
 *
 * @see org.apache.rocketmq.client.trace.TraceDataEncoder
 * @see org.apache.rocketmq.client.trace.TraceConstants
 */

export const TraceConstants = {
  GROUP_NAME_PREFIX: '_INNER_TRACE_PRODUCER',
  CONTENT_SPLITOR: '\u0001',
  FIELD_SPLITOR: '\u0002',
  TRACE_INSTANCE_NAME: 'PID_CLIENT_INNER_TRACE_PRODUCER',
  TRACE_TOPIC_PREFIX: 'rmq_sys_TRACE_DATA_',
} as const;

/** Java TraceType names. */
export const TraceType = { Pub: 'Pub', SubBefore: 'SubBefore', SubAfter: 'SubAfter', EndTransaction: 'EndTransaction' } as const;
export type TraceType = (typeof TraceType)[keyof typeof TraceType];

/** Java MessageType, written by ordinal. */
export const TraceMessageType = { Normal_Msg: 0, Trans_Msg_Half: 1, Trans_msg_Commit: 2, Delay_Msg: 3 } as const;
export type TraceMessageType = (typeof TraceMessageType)[keyof typeof TraceMessageType];

/** Java ConsumeReturnType, whose ordinal is a SubAfter's contextCode. */
export const ConsumeReturnType = { SUCCESS: 0, TIME_OUT: 1, EXCEPTION: 2, RETURNNULL: 3, FAILED: 4 } as const;

/** Java TraceBean (null where Java leaves the field null). */
export interface TraceBean {
  topic: string | null;
  msgId: string | null;
  offsetMsgId: string | null;
  tags: string | null;
  keys: string | null;
  storeHost: string | null;
  clientHost: string | null;
  storeTime: number;
  retryTimes: number;
  bodyLength: number;
  msgType: TraceMessageType | null;
  transactionState: string | null;
  transactionId: string | null;
  fromTransactionCheck: boolean;
}

/** Java TraceContext. */
export interface TraceContext {
  traceType: TraceType;
  timeStamp: number;
  regionId: string | null;
  groupName: string | null;
  costTime: number;
  isSuccess: boolean;
  requestId: string | null;
  contextCode: number;
  /** `CLOUD` drops the SubAfter timeStamp and groupName (Java AccessChannel). */
  accessChannel: 'LOCAL' | 'CLOUD';
  traceBeans: TraceBean[];
}

/** A TraceBean with Java's defaults; `localAddress` is Java's TraceBean.LOCAL_ADDRESS (the client's IPv4). */
export function newTraceBean(localAddress: string, init: Partial<TraceBean> = {}): TraceBean {
  return {
    topic: '', msgId: '', offsetMsgId: '', tags: '', keys: '', storeHost: localAddress, clientHost: localAddress,
    storeTime: 0, retryTimes: 0, bodyLength: 0, msgType: null, transactionState: null, transactionId: null, fromTransactionCheck: false,
    ...init,
  };
}

/** A TraceContext with Java's defaults (timeStamp now, regionId and groupName empty, success true). */
export function newTraceContext(traceType: TraceType, init: Partial<TraceContext> = {}): TraceContext {
  return {
    traceType, timeStamp: Date.now(), regionId: '', groupName: '', costTime: 0, isSuccess: true, requestId: null, contextCode: 0,
    accessChannel: 'LOCAL', traceBeans: [], ...init,
  };
}

/** Java TraceTransferBean: one context's text and the keys its trace message is indexed by. */
export interface TraceTransferBean {
  transData: string;
  transKey: string[];
}

const C = TraceConstants.CONTENT_SPLITOR;
const F = TraceConstants.FIELD_SPLITOR;

/** Java's StringBuilder.append of a possibly-null value. */
function j(v: string | number | boolean | null | undefined): string {
  return v === null || v === undefined ? 'null' : String(v);
}

/** Java TraceDataEncoder.encoderFromContextBean. */
export function encodeTraceContext(ctx: TraceContext): TraceTransferBean {
  let sb = '';
  switch (ctx.traceType) {
    case TraceType.Pub: {
      const b = ctx.traceBeans[0];
      sb = [ctx.traceType, ctx.timeStamp, ctx.regionId, ctx.groupName, b.topic, b.msgId, b.tags, b.keys, b.storeHost, b.bodyLength,
        ctx.costTime, b.msgType, b.offsetMsgId].map(j).join(C) + C + j(ctx.isSuccess) + F;
      break;
    }
    case TraceType.SubBefore:
      for (const b of ctx.traceBeans) {
        sb += [ctx.traceType, ctx.timeStamp, ctx.regionId, ctx.groupName, ctx.requestId, b.msgId, b.retryTimes].map(j).join(C) + C + j(b.keys) + F;
      }
      break;
    case TraceType.SubAfter:
      for (const b of ctx.traceBeans) {
        sb += [ctx.traceType, ctx.requestId, b.msgId, ctx.costTime, ctx.isSuccess, b.keys, ctx.contextCode].map(j).join(C) + C;
        if (ctx.accessChannel !== 'CLOUD') sb += j(ctx.timeStamp) + C + j(ctx.groupName) + F;
      }
      break;
    case TraceType.EndTransaction: {
      const b = ctx.traceBeans[0];
      sb = [ctx.traceType, ctx.timeStamp, ctx.regionId, ctx.groupName, b.topic, b.msgId, b.tags, b.keys, b.storeHost, b.msgType,
        b.transactionId, b.transactionState].map(j).join(C) + C + j(b.fromTransactionCheck) + F;
      break;
    }
  }
  const transKey: string[] = [];
  for (const b of ctx.traceBeans) {
    transKey.push(j(b.msgId));
    if (b.keys !== null && b.keys.length > 0) transKey.push(...javaSplit(b.keys, ' '));
  }
  return { transData: sb, transKey };
}

/** Java's String.split by one literal character: no match gives [s]; trailing empty strings are dropped. */
export function javaSplit(s: string, sep: string): string[] {
  if (!s.includes(sep)) return [s];
  const parts = s.split(sep);
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

function int(s: string | undefined): number {
  const n = Number.parseInt(s ?? '', 10);
  return Number.isNaN(n) ? 0 : n;
}

function bool(s: string | undefined): boolean {
  return (s ?? '').toLowerCase() === 'true';
}

const MSG_TYPES: readonly TraceMessageType[] = [0, 1, 2, 3];

/** Java TraceDataEncoder.decoderFromTraceDataString: the contexts of a trace message's body. */
export function decodeTraceData(traceData: string | null | undefined): TraceContext[] {
  const res: TraceContext[] = [];
  if (!traceData) return res;
  for (const context of javaSplit(traceData, F)) {
    const line = javaSplit(context, C);
    switch (line[0]) {
      case TraceType.Pub: {
        const ctx = newTraceContext(TraceType.Pub, { timeStamp: int(line[1]), regionId: line[2] ?? null, groupName: line[3] ?? null, costTime: int(line[10]) });
        const bean = newTraceBean('', {
          topic: line[4] ?? null, msgId: line[5] ?? null, tags: line[6] ?? null, keys: line[7] ?? null, storeHost: line[8] ?? null,
          bodyLength: int(line[9]), msgType: MSG_TYPES[int(line[11])] ?? null,
        });
        if (line.length === 13) {
          ctx.isSuccess = bool(line[12]);
        } else if (line.length === 14) {
          bean.offsetMsgId = line[12];
          ctx.isSuccess = bool(line[13]);
        }
        if (line.length >= 15) {
          bean.offsetMsgId = line[12];
          ctx.isSuccess = bool(line[13]);
          bean.clientHost = line[14];
        }
        ctx.traceBeans = [bean];
        res.push(ctx);
        break;
      }
      case TraceType.SubBefore: {
        const ctx = newTraceContext(TraceType.SubBefore, { timeStamp: int(line[1]), regionId: line[2] ?? null, groupName: line[3] ?? null, requestId: line[4] ?? null });
        ctx.traceBeans = [newTraceBean('', { msgId: line[5] ?? null, retryTimes: int(line[6]), keys: line[7] ?? null })];
        res.push(ctx);
        break;
      }
      case TraceType.SubAfter: {
        const ctx = newTraceContext(TraceType.SubAfter, { requestId: line[1] ?? null, costTime: int(line[3]), isSuccess: bool(line[4]) });
        // Java's TraceContext defaults: timeStamp is "now" and groupName "" unless the record carries them
        ctx.traceBeans = [newTraceBean('', { msgId: line[2] ?? null, keys: line[5] ?? null })];
        if (line.length >= 7) ctx.contextCode = int(line[6]);
        if (line.length >= 9) {
          ctx.timeStamp = int(line[7]);
          ctx.groupName = line[8];
        }
        res.push(ctx);
        break;
      }
      case TraceType.EndTransaction: {
        const ctx = newTraceContext(TraceType.EndTransaction, { timeStamp: int(line[1]), regionId: line[2] ?? null, groupName: line[3] ?? null });
        ctx.traceBeans = [newTraceBean('', {
          topic: line[4] ?? null, msgId: line[5] ?? null, tags: line[6] ?? null, keys: line[7] ?? null, storeHost: line[8] ?? null,
          msgType: MSG_TYPES[int(line[9])] ?? null, transactionId: line[10] ?? null, transactionState: line[11] ?? null,
          fromTransactionCheck: bool(line[12]),
        })];
        res.push(ctx);
        break;
      }
      default:
        break;
    }
  }
  return res;
}
