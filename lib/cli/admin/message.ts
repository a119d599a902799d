/**
 * mqadmin's message commands beyond queryMsgByKey: sendMessage, checkMsgSendRT, consumeMessage, queryMsgByUniqueKey,
 * queryMsgByOffset, printMsg, printMsgByQueue;
 * and QueryMsgByIdSubCommand.printMsg (shared with queryMsgById).
 *
 * The reads that Java does with a DefaultMQPullConsumer (group TOOLS_CONSUMER) go through
 * DefaultMQAdminExt.pullMessage / minOffset / maxOffset / searchOffset, which send the same requests.
 *
 * @see org.apache.rocketmq.tools.command.message
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type AdminPullResult, type DefaultMQAdminExt, TOOLS_CONSUMER_GROUP, messageTrackToString } from '../../admin/default-mq-admin-ext';
import { PullStatus } from '../../client/mq-client-api-consumer';
import type { SendResult } from '../../client/send-result';
import { DefaultMQProducer } from '../../producer/default-mq-producer';
import { javaHashOrder, javaHashOrderByHash } from '../../../protocol/message/java-hash';
import { type MessageExt, createMessage } from '../../../protocol/message/message';
import { MessageConst } from '../../../protocol/message/message-const';
import { type MessageQueue, javaMessageQueueHashCode } from '../../../protocol/message/message-queue';
import { ConfigError } from '../../errors';
import { errorReport } from '../cli-errors';
import { javaFormat, parseDateYMDHMSS, timeMillisToHumanString2 } from '../java-format';
import { type Command, type Out, bool, int, opt, printJson, req, wantsJson } from './command';

/** A Java HashMap<String, String>.toString of the message's properties (Java's iteration order). */
export function javaPropertiesString(props: Readonly<Record<string, string>>): string {
  return `{${javaHashOrder(Object.entries(props), (e) => e[0]).map(([k, v]) => `${k}=${v}`).join(', ')}}`;
}

/** Arrays.toString(byte[]): signed bytes. */
function javaBytesString(b: Buffer): string {
  const parts: string[] = [];
  for (const x of b) parts.push(String(x > 127 ? x - 256 : x));
  return `[${parts.join(', ')}]`;
}

const inetString = (h: { address: string; port: number }) => `/${h.address}:${h.port}`;

/** MessageExt.toString (a pulled message: msgId is the offset msgId field). */
export function messageExtToString(m: MessageExt): string {
  return `MessageExt [brokerName=${m.brokerName ?? 'null'}, queueId=${m.queueId}, storeSize=${m.storeSize}, queueOffset=${m.queueOffset}, `
    + `sysFlag=${m.sysFlag}, bornTimestamp=${m.bornTimestamp}, bornHost=${inetString(m.bornHost)}, storeTimestamp=${m.storeTimestamp}, `
    + `storeHost=${inetString(m.storeHost)}, msgId=${m.offsetMsgId}, commitLogOffset=${m.commitLogOffset}, bodyCRC=${m.bodyCRC}, `
    + `reconsumeTimes=${m.reconsumeTimes}, preparedTransactionOffset=${m.preparedTransactionOffset}, toString()=Message{topic='${m.topic}', `
    + `flag=${m.flag}, properties=${javaPropertiesString(m.properties)}, body=${javaBytesString(m.body)}, transactionId='${m.transactionId ?? 'null'}'}]`;
}

/** The message as a JSON object (body as UTF-8 text). */
export function messageToJson(m: MessageExt, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    msgId: m.msgId, offsetMsgId: m.offsetMsgId, topic: m.topic, tags: m.properties[MessageConst.PROPERTY_TAGS] ?? null,
    keys: m.properties[MessageConst.PROPERTY_KEYS] ?? null, brokerName: m.brokerName ?? null, queueId: m.queueId, queueOffset: m.queueOffset,
    commitLogOffset: m.commitLogOffset, reconsumeTimes: m.reconsumeTimes, bornTimestamp: m.bornTimestamp, storeTimestamp: m.storeTimestamp,
    bornHost: `${m.bornHost.address}:${m.bornHost.port}`, storeHost: `${m.storeHost.address}:${m.storeHost.port}`, sysFlag: m.sysFlag,
    flag: m.flag, properties: m.properties, body: m.body.toString('utf8'), ...extra,
  };
}

/** Writes the body where mqadmin does (/tmp/rocketmq/msgbodys, here under the OS temp dir); `_index` for index > 0. */
function createBodyFile(msg: MessageExt, index = 0): string {
  const dir = path.join(os.tmpdir(), 'rocketmq', 'msgbodys');
  fs.mkdirSync(dir, { recursive: true });
  const bodyPath = path.join(dir, index > 0 ? `${msg.msgId}_${index}` : msg.msgId);
  fs.writeFileSync(bodyPath, msg.body);
  return bodyPath;
}

/**
 * QueryMsgByIdSubCommand.printMsg: the message's fields, where its body was written, then what each consumer
 * group did with it (messageTrackDetail). `offsetIdLine` false is QueryMsgByUniqueKeySubCommand.showMessage.
 */
export async function printMessageDetail(admin: DefaultMQAdminExt, msg: MessageExt, out: Out, opts: { offsetIdLine?: boolean; index?: number; json?: boolean } = {}): Promise<void> {
  const bodyPath = createBodyFile(msg, opts.index ?? 0);
  let tracks: string[] | null = null;
  let trackError: unknown = null;
  try {
    tracks = (await admin.messageTrackDetail(msg)).map(messageTrackToString);
  } catch (err) {
    trackError = err;
  }
  if (opts.json) {
    printJson(out, messageToJson(msg, { bodyPath, messageTracks: tracks }));
    return;
  }
  const line = (k: string, v: unknown, conv = 's') => out(javaFormat(`%-20s %${conv}%n`, k, v));
  if (opts.offsetIdLine !== false) line('OffsetID:', msg.offsetMsgId);
  line('Topic:', msg.topic);
  line('Tags:', `[${msg.properties[MessageConst.PROPERTY_TAGS] ?? 'null'}]`);
  line('Keys:', `[${msg.properties[MessageConst.PROPERTY_KEYS] ?? 'null'}]`);
  line('Queue ID:', msg.queueId, 'd');
  line('Queue Offset:', msg.queueOffset, 'd');
  line('CommitLog Offset:', msg.commitLogOffset, 'd');
  line('Reconsume Times:', msg.reconsumeTimes, 'd');
  line('Born Timestamp:', timeMillisToHumanString2(msg.bornTimestamp));
  line('Store Timestamp:', timeMillisToHumanString2(msg.storeTimestamp));
  line('Born Host:', `${msg.bornHost.address}:${msg.bornHost.port}`);
  line('Store Host:', `${msg.storeHost.address}:${msg.storeHost.port}`);
  line('System Flag:', msg.sysFlag, 'd');
  line('Properties:', javaPropertiesString(msg.properties));
  line('Message Body Path:', bodyPath);
  if (trackError) {
    process.stderr.write(errorReport(trackError, 'error'));
  } else if (tracks!.length === 0) {
    out(javaFormat('%n%nWARN: No Consumer'));
  } else {
    out(javaFormat('%n%n'));
    for (const t of tracks!) out(t);
  }
}

/** PrintMessageSubCommand.timestampFormat: millis, or yyyy-MM-dd#HH:mm:ss:SSS. */
export function timestampFormat(value: string): number {
  if (/^-?\d+$/.test(value)) return Number(value);
  const t = parseDateYMDHMSS(value);
  if (Number.isNaN(t)) throw new ConfigError(`bad timestamp: ${value}`);
  return t;
}

const mqString = (mq: MessageQueue) => `MessageQueue [topic=${mq.topic}, brokerName=${mq.brokerName}, queueId=${mq.queueId}]`;

function printBodyText(msg: MessageExt, charsetName: string): string {
  const enc = charsetName.toLowerCase().replace('-', '');
  return msg.body.toString(enc === 'utf8' || enc === 'utf16le' || enc === 'latin1' || enc === 'ascii' ? (enc as BufferEncoding) : 'utf8');
}


/** 32 messages of `mq` from `offset`; a failure is printed (as mqadmin logs it) and ends the queue's walk (null). */
async function pullOrReport(admin: DefaultMQAdminExt, mq: MessageQueue, subExpression: string, offset: number): Promise<AdminPullResult | null> {
  try {
    return await admin.pullMessage(mq, subExpression, offset, 32);
  } catch (err) {
    process.stderr.write(errorReport(err, 'error'));
    return null;
  }
}

/** A queue's offsets to print, [min, max), narrowed by the -b / -e timestamps (PrintMessageSubCommand's rule). */
async function offsetRange(admin: DefaultMQAdminExt, mq: MessageQueue, opts: Map<string, string>): Promise<[number, number]> {
  const minOffset = opts.has('b') ? await admin.searchOffset(mq, timestampFormat(req(opts, 'b'))) : await admin.minOffset(mq);
  const maxOffset = opts.has('e') ? await admin.searchOffset(mq, timestampFormat(req(opts, 'e'))) : await admin.maxOffset(mq);
  return [minOffset, maxOffset];
}
export const MESSAGE_COMMANDS: Command[] = [
  {
    name: 'checkMsgSendRT', desc: 'check message send response time',
    options: {
      t: opt('topic', 'topic name', true), a: opt('amount', 'message amount | default 100'), s: opt('size', 'message size | default 128 Byte'),
    },
    async run(admin, opts, out) {
      const topic = req(opts, 't');
      const amount = opts.has('a') ? int(req(opts, 'a'), 'amount') : 100;
      const msgSize = opts.has('s') ? int(req(opts, 's'), 'size') : 128;
      const json = wantsJson(opts);
      const producer = new DefaultMQProducer({
        producerGroup: String(Date.now()), namesrvAddr: admin.getNameServerAddressList().join(';'), instanceName: `checkMsgSendRT-${Date.now()}`,
      });
      await producer.start();
      const rows: Array<{ brokerName: string; queueId: number; sendSuccess: boolean; rt: number }> = [];
      let timeElapsed = 0;
      try {
        if (!json) out(javaFormat('%-32s  %-4s  %-20s    %s%n', '#Broker Name', '#QID', '#Send Result', '#RT'));
        // As Java: the last queue chosen is remembered across sends (also shown for a failed send).
        let brokerName = '';
        let queueId = 0;
        const selector = {
          select(mqs: readonly MessageQueue[], _msg: unknown, arg: unknown): MessageQueue {
            const queue = mqs[(arg as number) % mqs.length];
            brokerName = queue.brokerName;
            queueId = queue.queueId;
            return queue;
          },
        };
        for (let i = 0; i < amount; i++) {
          const msg = createMessage(topic, Buffer.alloc(msgSize, 'a'));
          const start = Date.now();
          let sendSuccess: boolean;
          try {
            await producer.send(msg, selector, i);
            sendSuccess = true;
          } catch {
            sendSuccess = false;
          }
          const rt = Date.now() - start;
          if (i !== 0) timeElapsed += rt;
          rows.push({ brokerName, queueId, sendSuccess, rt });
          if (!json) out(javaFormat('%-32s  %-4s  %-20s    %s%n', brokerName, queueId, sendSuccess, rt));
        }
      } finally {
        await producer.shutdown();
      }
      const avg = timeElapsed / (amount - 1);
      if (json) return printJson(out, { sends: rows, avgRT: avg });
      out(javaFormat('Avg RT: %s%n', Number.isFinite(avg) ? javaFormat('%.2f', avg) : avg > 0 ? 'Infinity' : 'NaN'));
    },
  },
  {
    name: 'sendMessage', desc: 'Send a message',
    options: {
      t: opt('topic', 'Topic name', true), p: opt('body', 'UTF-8 string format of the message body', true), k: opt('key', 'Message keys'),
      c: opt('tags', 'Message tags'), b: opt('broker', 'Send message to target broker'), i: opt('qid', 'Send message to target queue'),
      m: opt('msgTraceEnable', 'Message Trace Enable, Default: false'),
    },
    async run(admin, opts, out) {
      const topic = req(opts, 't');
      if (opts.has('i') && !opts.has('b')) {
        out('Broker name must be set if the queue is chosen!');
        return;
      }
      const msg = createMessage(topic, Buffer.from(req(opts, 'p'), 'utf8'), {
        tags: opts.has('c') ? req(opts, 'c') : undefined, keys: opts.has('k') ? req(opts, 'k') : undefined,
      });
      const producer = new DefaultMQProducer({
        producerGroup: String(Date.now()), namesrvAddr: admin.getNameServerAddressList().join(';'), instanceName: `sendMessage-${Date.now()}`,
      });
      let result: SendResult;
      await producer.start();
      try {
        result = opts.has('b') && opts.has('i')
          ? await producer.send(msg, { topic, brokerName: req(opts, 'b'), queueId: int(req(opts, 'i'), 'qid') })
          : await producer.send(msg);
      } finally {
        await producer.shutdown();
      }
      if (wantsJson(opts)) return printJson(out, result);
      out(javaFormat('%-32s  %-4s  %-20s    %s%n', '#Broker Name', '#QID', '#Send Result', '#MsgId'));
      out(javaFormat('%-32s  %-4s  %-20s    %s%n', result.messageQueue.brokerName, result.messageQueue.queueId, result.sendStatus, result.msgId));
    },
  },
  {
    name: 'queryMsgByUniqueKey', desc: 'Query Message by Unique key',
    options: {
      i: opt('msgId', 'Message Id', true), g: opt('consumerGroup', 'consumer group name'), d: opt('clientId', 'The consumer\'s client id'),
      t: opt('topic', 'The topic of msg', true), a: opt('showAll', 'Print all message, the limit is 32', false, false),
    },
    async run(admin, opts, out) {
      const msgId = req(opts, 'i');
      const topic = req(opts, 't');
      if (opts.has('g') && opts.has('d')) {
        // the consumer -d of group -g consumes the message now (CONSUME_MESSAGE_DIRECTLY through the broker)
        const r = await admin.consumeMessageDirectly(req(opts, 'g'), req(opts, 'd'), topic, msgId);
        if (wantsJson(opts)) return printJson(out, r);
        out(`ConsumeMessageDirectlyResult [order=${r.order}, autoCommit=${r.autoCommit}, consumeResult=${r.consumeResult ?? 'null'}, `
          + `remark=${r.remark ?? 'null'}, spentTimeMills=${r.spentTimeMills}]`);
        return;
      }
      // Java's queryMessageByUniqKey keeps the earliest stored message only, so -a prints one message too.
      const msg = await admin.queryMessageByUniqKey(topic, msgId);
      await printMessageDetail(admin, msg, out, { offsetIdLine: false, index: 0, json: wantsJson(opts) });
    },
  },
  {
    name: 'queryMsgByOffset', desc: 'Query Message by offset',
    options: {
      t: opt('topic', 'topic name', true), b: opt('brokerName', 'Broker Name', true), i: opt('queueId', 'Queue Id', true),
      o: opt('offset', 'Queue Offset', true),
    },
    async run(admin, opts, out) {
      const mq = { topic: req(opts, 't'), brokerName: req(opts, 'b'), queueId: int(req(opts, 'i'), 'queueId') };
      const result = await admin.pullMessage(mq, '*', int(req(opts, 'o'), 'offset'), 1);
      if (result.pullStatus === PullStatus.FOUND && result.msgFoundList.length > 0) {
        await printMessageDetail(admin, result.msgFoundList[0], out, { json: wantsJson(opts) });
      } else if (wantsJson(opts)) {
        printJson(out, null);
      }
    },
  },
  {
    name: 'printMsg', desc: 'Print Message Detail',
    options: {
      t: opt('topic', 'topic name', true), c: opt('charsetName', 'CharsetName(eg: UTF-8,GBK)'),
      s: opt('subExpression', 'Subscribe Expression(eg: TagA || TagB)'),
      b: opt('beginTimestamp', 'Begin timestamp[currentTimeMillis|yyyy-MM-dd#HH:mm:ss:SSS]'),
      e: opt('endTimestamp', 'End timestamp[currentTimeMillis|yyyy-MM-dd#HH:mm:ss:SSS]'), d: opt('printBody', 'print body'),
    },
    async run(admin, opts, out) {
      const topic = req(opts, 't');
      const charsetName = opts.has('c') ? req(opts, 'c') : 'UTF-8';
      const subExpression = opts.has('s') ? req(opts, 's') : '*';
      const printBody = bool(opts.get('d'), true);
      const json = wantsJson(opts);
      const doc: Array<Record<string, unknown>> = [];
      // DefaultMQPullConsumer.fetchSubscribeMessageQueues answers a HashSet: Java walks the queues in its order.
      const mqs = javaHashOrderByHash(await admin.fetchSubscribeMessageQueues(topic), javaMessageQueueHashCode);
      for (const mq of mqs) {
        const [minOffset, maxOffset] = await offsetRange(admin, mq, opts);
        const messages: Array<Record<string, unknown>> = [];
        if (json) doc.push({ ...mq, minOffset, maxOffset, messages });
        else out(javaFormat('minOffset=%s, maxOffset=%s, %s%n', minOffset, maxOffset, mqString(mq)));
        for (let offset = minOffset; offset < maxOffset;) {
          const r = await pullOrReport(admin, mq, subExpression, offset);
          if (!r) break;
          offset = r.nextBeginOffset;
          if (r.pullStatus === PullStatus.FOUND) {
            for (const m of r.msgFoundList) {
              if (json) messages.push(messageToJson(m));
              else out(javaFormat('MSGID: %s %s BODY: %s%n', m.msgId, messageExtToString(m), printBody ? printBodyText(m, charsetName) : 'NOT PRINT BODY'));
            }
          } else if (r.pullStatus === PullStatus.NO_MATCHED_MSG) {
            if (!json) out(javaFormat('%s no matched msg. status=%s, offset=%s%n', mqString(mq), r.pullStatus, offset));
          } else {
            if (!json) out(javaFormat('%s print msg finished. status=%s, offset=%s%n', mqString(mq), r.pullStatus, offset));
            break;
          }
        }
        if (!json) out('--------------------------------------------------------\n');
      }
      if (json) printJson(out, doc);
    },
  },
  {
    name: 'consumeMessage', desc: 'Consume message',
    options: {
      t: opt('topic', 'Topic name', true), b: opt('brokerName', 'Broker name'), i: opt('queueId', 'Queue Id'), o: opt('offset', 'Queue offset'),
      g: opt('consumerGroup', 'Consumer group name'), s: opt('beginTimestamp', 'Begin timestamp[currentTimeMillis|yyyy-MM-dd#HH:mm:ss:SSS]'),
      e: opt('endTimestamp', 'End timestamp[currentTimeMillis|yyyy-MM-dd#HH:mm:ss:SSS]'), c: opt('MessageNumber', 'Number of message to be consumed'),
    },
    async run(admin, opts, out) {
      const group = opts.has('g') ? req(opts, 'g') : TOOLS_CONSUMER_GROUP;
      const topic = req(opts, 't');
      let messageCount = 128;
      if (opts.has('c')) {
        messageCount = int(req(opts, 'c'), 'MessageNumber');
        if (messageCount <= 0) return out('Please input a positive messageNumber!');
      }
      if (opts.has('i') && !opts.has('b')) return out('Please set the brokerName before queueId!');
      if (opts.has('o') && !opts.has('i')) return out('Please set queueId before offset!');
      const now = Date.now();
      let begin = 0;
      let end = 0;
      if (opts.has('s')) {
        begin = timestampFormat(req(opts, 's'));
        if (begin > now) return out('Please set the beginTimestamp before now!');
      }
      if (opts.has('e')) {
        end = timestampFormat(req(opts, 'e'));
        if (end > now) return out('Please set the endTimestamp before now!');
        if (begin > end) return out('Please make sure that the beginTimestamp is less than or equal to the endTimestamp');
      }
      const json = wantsJson(opts);
      const messages: Array<Record<string, unknown>> = [];
      /** ConsumeMessageCommand.pullMessageByQueue: offsets minOffset..maxOffset inclusive. */
      const pullMessageByQueue = async (mq: MessageQueue, minOffset: number, maxOffset: number) => {
        for (let offset = minOffset; offset <= maxOffset;) {
          let r;
          try {
            r = await admin.pullMessage(mq, '*', offset, maxOffset - offset + 1, group);
          } catch (err) {
            process.stderr.write(errorReport(err, 'error'));
            return;
          }
          offset = r.nextBeginOffset;
          if (r.pullStatus === PullStatus.FOUND) {
            if (json) messages.push(...r.msgFoundList.map((m) => messageToJson(m)));
            else {
              out('Consume ok\n');
              for (const m of r.msgFoundList) out(javaFormat('MSGID: %s %s BODY: %s%n', m.msgId, messageExtToString(m), printBodyText(m, 'UTF-8')));
            }
          } else if (r.pullStatus === PullStatus.NO_MATCHED_MSG) {
            if (!json) out(javaFormat('%s no matched msg. status=%s, offset=%s\n', mqString(mq), r.pullStatus, offset));
          } else {
            if (!json) out(javaFormat('%s print msg finished. status=%s, offset=%s\n', mqString(mq), r.pullStatus, offset));
            return;
          }
        }
      };
      if (!opts.has('i')) {
        let countLeft = messageCount;
        for (const mq of javaHashOrderByHash(await admin.fetchSubscribeMessageQueues(topic), javaMessageQueueHashCode)) {
          if (countLeft === 0) break;
          let minOffset = await admin.minOffset(mq);
          let maxOffset = await admin.maxOffset(mq);
          if (begin > 0) minOffset = await admin.searchOffset(mq, begin);
          if (end > 0) maxOffset = await admin.searchOffset(mq, end);
          if (maxOffset - minOffset > countLeft) {
            if (!json) out(javaFormat('The older %d message of the %d queue will be provided\n', countLeft, mq.queueId));
            maxOffset = minOffset + countLeft - 1;
            countLeft = 0;
          } else {
            countLeft = countLeft - (maxOffset - minOffset) - 1;
          }
          await pullMessageByQueue(mq, minOffset, maxOffset);
        }
      } else {
        const mq = { topic, brokerName: req(opts, 'b'), queueId: int(req(opts, 'i'), 'queueId') };
        const offset = opts.has('o') ? int(req(opts, 'o'), 'offset') : 0;
        let minOffset = await admin.minOffset(mq);
        let maxOffset = await admin.maxOffset(mq);
        if (begin > 0) minOffset = await admin.searchOffset(mq, begin);
        if (end > 0) maxOffset = await admin.searchOffset(mq, end);
        if (offset > maxOffset) {
          if (!json) out(javaFormat('%s no matched msg, offset=%s\n', mqString(mq), offset));
        } else {
          minOffset = Math.max(minOffset, offset);
          if (maxOffset - minOffset > messageCount) {
            if (!json) out(javaFormat('The oldler %d message will be provided\n', messageCount));
            maxOffset = minOffset + messageCount - 1;
          }
          await pullMessageByQueue(mq, minOffset, maxOffset);
        }
      }
      if (json) printJson(out, messages);
    },
  },
  {
    name: 'printMsgByQueue', desc: 'Print Message Detail',
    options: {
      t: opt('topic', 'topic name', true), a: opt('brokerName', 'broker name', true), i: opt('queueId', 'queue id', true),
      c: opt('charsetName', 'CharsetName(eg: UTF-8,GBK)'), s: opt('subExpression', 'Subscribe Expression(eg: TagA || TagB)'),
      b: opt('beginTimestamp', 'Begin timestamp[currentTimeMillis|yyyy-MM-dd#HH:mm:ss:SSS]'),
      e: opt('endTimestamp', 'End timestamp[currentTimeMillis|yyyy-MM-dd#HH:mm:ss:SSS]'),
      p: opt('print msg', 'print msg. eg: true | false(default)'), d: opt('printBody', 'print body. eg: true | false(default)'),
      f: opt('calculate', 'calculate by tag. eg: true | false(default)'),
    },
    async run(admin, opts, out) {
      const charsetName = opts.has('c') ? req(opts, 'c') : 'UTF-8';
      const printMsg = bool(opts.get('p'), false);
      const printBody = bool(opts.get('d'), false);
      const calByTag = bool(opts.get('f'), false);
      const subExpression = opts.has('s') ? req(opts, 's') : '*';
      const mq = { topic: req(opts, 't'), brokerName: req(opts, 'a'), queueId: int(req(opts, 'i'), 'queueId') };
      const json = wantsJson(opts);
      const [minOffset, maxOffset] = await offsetRange(admin, mq, opts);
      const tagCount = new Map<string, number>();
      const messages: Array<Record<string, unknown>> = [];
      for (let offset = minOffset; offset < maxOffset;) {
        const r = await pullOrReport(admin, mq, subExpression, offset);
        if (!r) break;
        offset = r.nextBeginOffset;
        if (r.pullStatus !== PullStatus.FOUND) break;
        for (const m of r.msgFoundList) {
          const tag = m.properties[MessageConst.PROPERTY_TAGS];
          if (calByTag && tag !== undefined && tag.trim().length > 0) tagCount.set(tag, (tagCount.get(tag) ?? 0) + 1);
          if (!printMsg) continue;
          if (json) messages.push(messageToJson(m));
          else out(javaFormat('MSGID: %s %s BODY: %s%n', m.msgId, messageExtToString(m), printBody ? printBodyText(m, charsetName) : 'NOT PRINT BODY'));
        }
      }
      // TagCountBean sort: count descending (a stable sort over the HashMap's order, as Collections.sort).
      const counts = javaHashOrder([...tagCount], (e) => e[0]).sort((a, b) => b[1] - a[1]);
      if (json) {
        printJson(out, { ...mq, minOffset, maxOffset, messages: printMsg ? messages : undefined, tagCounts: calByTag ? new Map(counts) : undefined });
        return;
      }
      if (calByTag) for (const [tag, count] of counts) out(javaFormat('Tag: %-30s Count: %s%n', tag, count));
    },
  },
];
