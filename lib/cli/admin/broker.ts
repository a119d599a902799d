/**
 * mqadmin's broker commands beyond brokerStatus and the broker config ones: sendMsgStatus, brokerConsumeStats, statsAll.
 *
 * @see org.apache.rocketmq.tools.command.broker.BrokerConsumeStatsSubCommad
 * @see org.apache.rocketmq.tools.command.stats.StatsAllSubCommand
 */
import type { DefaultMQAdminExt } from '../../admin/default-mq-admin-ext';
import type { BrokerStatsData } from '../../../protocol/body/broker-stats-data';
import { MASTER_ID } from '../../../protocol/body/topic-route-data';
import { MixAll } from '../../client/mix-all';
import type { SendResult } from '../../client/send-result';
import { DefaultMQProducer } from '../../producer/default-mq-producer';
import { createMessage } from '../../../protocol/message/message';
import { compareMessageQueue } from '../../../protocol/message/message-queue';
import { formatDateTime, frontStringAtLeast, javaFormat } from '../java-format';
import { type Command, type Out, bool, int, opt, printJson, req, wantsJson } from './command';

/** StatsAllSubCommand.compute24HourSum: the day's sum, else the hour's, else the minute's. */
export function compute24HourSum(bsd: BrokerStatsData): number {
  if (bsd.statsDay.sum !== 0) return bsd.statsDay.sum;
  if (bsd.statsHour.sum !== 0) return bsd.statsHour.sum;
  return bsd.statsMinute.sum;
}

interface StatsRow {
  topic: string;
  group: string | null;
  accumulation: number;
  inTps: number;
  outTps: number | null;
  inMsg24Hour: number;
  outMsg24Hour: number | null;
}

/** StatsAllSubCommand.printTopicDetail: one row per consumer group of the topic (or one NO_CONSUMER row). */
async function topicDetail(admin: DefaultMQAdminExt, topic: string, activeTopic: boolean): Promise<StatsRow[]> {
  const route = await admin.examineTopicRouteInfo(topic);
  const groups = (await admin.queryTopicConsumeByWho(topic)).groupList;
  const masters = route.brokerDatas.map((bd) => bd.brokerAddrs.get(MASTER_ID)).filter((a): a is string => a !== undefined);
  let inTps = 0;
  let inMsg = 0;
  for (const addr of masters) {
    try {
      const bsd = await admin.viewBrokerStatsData(addr, 'TOPIC_PUT_NUMS', topic);
      inTps += bsd.statsMinute.tps;
      inMsg += compute24HourSum(bsd);
    } catch {
      // as Java: a broker without the counter adds nothing
    }
  }
  const rows: StatsRow[] = [];
  if (groups.length === 0) {
    if (!activeTopic || inMsg > 0) rows.push({ topic, group: null, accumulation: 0, inTps, outTps: null, inMsg24Hour: inMsg, outMsg24Hour: null });
    return rows;
  }
  for (const group of groups) {
    let outTps = 0;
    let outMsg = 0;
    for (const addr of masters) {
      try {
        const bsd = await admin.viewBrokerStatsData(addr, 'GROUP_GET_NUMS', `${topic}@${group}`);
        outTps += bsd.statsMinute.tps;
        outMsg += compute24HourSum(bsd);
      } catch {
        // as Java
      }
    }
    let accumulation = 0;
    try {
      const stats = await admin.examineConsumeStats(group, topic);
      accumulation = Math.max(0, stats.offsetTable.reduce((sum, [, w]) => sum + w.brokerOffset - w.consumerOffset, 0));
    } catch {
      // as Java: 0 when the group has no stats
    }
    if (!activeTopic || inMsg > 0 || outMsg > 0) rows.push({ topic, group, accumulation, inTps, outTps, inMsg24Hour: inMsg, outMsg24Hour: outMsg });
  }
  return rows;
}

function printStatsRow(out: Out, r: StatsRow): void {
  if (r.group === null) {
    out(javaFormat('%-64s  %-64s %12d %11.2f %11s %14d %14s%n', frontStringAtLeast(r.topic, 64), '', 0, r.inTps, '', r.inMsg24Hour, 'NO_CONSUMER'));
  } else {
    out(javaFormat('%-64s  %-64s %12d %11.2f %11.2f %14d %14d%n', frontStringAtLeast(r.topic, 64), frontStringAtLeast(r.group, 64),
      r.accumulation, r.inTps, r.outTps, r.inMsg24Hour, r.outMsg24Hour));
  }
}

/** SendResult.toString. */
export function sendResultToString(r: SendResult): string {
  const mq = r.messageQueue;
  return `SendResult [sendStatus=${r.sendStatus}, msgId=${r.msgId}, offsetMsgId=${r.offsetMsgId ?? 'null'}, `
    + `messageQueue=MessageQueue [topic=${mq.topic}, brokerName=${mq.brokerName}, queueId=${mq.queueId}], queueOffset=${r.queueOffset}]`;
}

/** SendMsgStatusCommand.buildMessage: "hello jodie" repeated to at least `messageSize` bytes. */
function helloJodie(messageSize: number): Buffer {
  let s = '';
  for (let i = 0; i < messageSize; i += 11) s += 'hello jodie';
  return Buffer.from(s, 'utf8');
}

export const BROKER_COMMANDS: Command[] = [
  {
    name: 'sendMsgStatus', desc: 'send msg to broker.',
    options: {
      b: opt('brokerName', 'Broker Name', true), s: opt('messageSize', 'Message Size, Default: 128'), c: opt('count', 'send message count, Default: 50'),
    },
    async run(admin, opts, out) {
      const brokerName = req(opts, 'b');
      const messageSize = opts.has('s') ? int(opts.get('s')!, 'messageSize') : 128;
      const count = opts.has('c') ? int(opts.get('c')!, 'count') : 50;
      const producer = new DefaultMQProducer({
        producerGroup: 'PID_SMSC', namesrvAddr: admin.getNameServerAddressList().join(';'), instanceName: `PID_SMSC_${Date.now()}`,
      });
      const rows: Array<{ rt: number; sendResult: SendResult }> = [];
      await producer.start();
      try {
        // the broker's own topic (named as the broker), warmed with a 16-byte message first, as Java
        await producer.send(createMessage(brokerName, helloJodie(16)));
        for (let i = 0; i < count; i++) {
          const begin = Date.now();
          const result = await producer.send(createMessage(brokerName, helloJodie(messageSize)));
          const rt = Date.now() - begin;
          if (wantsJson(opts)) rows.push({ rt, sendResult: result });
          else out(javaFormat('rt=%sms, SendResult=%s%n', rt, sendResultToString(result)));
        }
      } finally {
        await producer.shutdown();
      }
      if (wantsJson(opts)) printJson(out, rows);
    },
  },
  {
    name: 'brokerConsumeStats', desc: 'Fetch broker consume stats data',
    options: {
      b: opt('brokerAddr', 'Broker address', true), t: opt('timeoutMillis', 'request timeout Millis'), l: opt('level', 'threshold of print diff'),
      o: opt('order', 'order topic'),
    },
    async run(admin, opts, out) {
      const brokerAddr = req(opts, 'b');
      const isOrder = bool(opts.get('o'), false);
      const timeoutMillis = opts.has('t') ? int(req(opts, 't'), 'timeoutMillis') : 50_000;
      const diffLevel = opts.has('l') ? int(req(opts, 'l'), 'level') : 0;
      const list = await admin.fetchConsumeStatsInBroker(brokerAddr, isOrder, timeoutMillis);
      if (wantsJson(opts)) return printJson(out, list);
      out(javaFormat('%-64s  %-64s  %-32s  %-4s  %-20s  %-20s  %-20s  %s%n',
        '#Topic', '#Group', '#Broker Name', '#QID', '#Broker Offset', '#Consumer Offset', '#Diff', '#LastTime'));
      for (const map of list.consumeStatsList) {
        for (const [group, statsArray] of map) {
          for (const stats of statsArray) {
            for (const [mq, w] of [...stats.offsetTable].sort((a, b) => compareMessageQueue(a[0], b[0]))) {
              const diff = w.brokerOffset - w.consumerOffset;
              if (diff < diffLevel || w.lastTimestamp <= 0) continue;
              out(javaFormat('%-64s  %-64s  %-32s  %-4d  %-20d  %-20d  %-20d  %s%n', frontStringAtLeast(mq.topic, 64), group,
                frontStringAtLeast(mq.brokerName, 32), mq.queueId, w.brokerOffset, w.consumerOffset, diff, formatDateTime(w.lastTimestamp)));
            }
          }
        }
      }
      out(javaFormat('%nDiff Total: %d%n', list.totalDiff));
    },
  },
  {
    name: 'statsAll', desc: 'Topic and Consumer tps stats',
    options: { a: opt('activeTopic', 'print active topic only', false, false), t: opt('topic', 'print select topic only') },
    async run(admin, opts, out) {
      const json = wantsJson(opts);
      const topics = (await admin.fetchAllTopicList()).topicList;
      if (!json) {
        out(javaFormat('%-64s  %-64s %12s %11s %11s %14s %14s%n', '#Topic', '#Consumer Group', '#Accumulation', '#InTPS', '#OutTPS', '#InMsg24Hour', '#OutMsg24Hour'));
      }
      const activeTopic = opts.has('a');
      const selectTopic = opts.get('t');
      const all: StatsRow[] = [];
      for (const topic of topics) {
        if (topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX) || topic.startsWith(MixAll.DLQ_GROUP_TOPIC_PREFIX)) continue;
        if (selectTopic !== undefined && selectTopic.length > 0 && topic !== selectTopic) continue;
        let rows: StatsRow[];
        try {
          rows = await topicDetail(admin, topic, activeTopic);
        } catch {
          continue; // as Java: a topic whose route fails is left out
        }
        if (json) all.push(...rows);
        else for (const r of rows) printStatsRow(out, r);
      }
      if (json) printJson(out, all);
    },
  },
];
