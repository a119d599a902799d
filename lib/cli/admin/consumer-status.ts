/**
 * mqadmin consumerStatus: what each consumer of a group reports of itself (GET_CONSUMER_RUNNING_INFO through the
 * broker): with `-i clientId` one client's ConsumerRunningInfo.formatString; without, one line per client, the
 * report written to `<now>/<clientId>` (relative to the working folder, as Java), and the subscription and
 * process-queue analysis.
 *
 * @see org.apache.rocketmq.tools.command.consumer.ConsumerStatusSubCommand
 * @see org.apache.rocketmq.common.protocol.body.ConsumerRunningInfo
 */
import fs from 'node:fs';
import path from 'node:path';
import { type ConsumerRunningInfo, ConsumerRunningInfoProp, type ProcessQueueInfo } from '../../../protocol/body/consumer-running-info';
import { javaPropertiesOrderKeys } from '../../../protocol/message/java-hash';
import { type MessageQueue, compareMessageQueue } from '../../../protocol/message/message-queue';
import { getVersionDesc } from '../../client/mq-version';
import { errorReport } from '../cli-errors';
import { javaFormat } from '../java-format';
import { type Command, opt, printJson, req, wantsJson } from './command';

/** UtilAll.timeMillisToHumanString: yyyyMMddHHmmssSSS in local time. */
function timeMillisToHumanString(t: number): string {
  const d = new Date(t);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(d.getFullYear(), 4)}${p(d.getMonth() + 1)}${p(d.getDate())}${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}${p(d.getMilliseconds(), 3)}`;
}

const mqString = (mq: MessageQueue) => `MessageQueue [topic=${mq.topic}, brokerName=${mq.brokerName}, queueId=${mq.queueId}]`;

/** ProcessQueueInfo.toString. */
function processQueueInfoString(pq: ProcessQueueInfo): string {
  return `ProcessQueueInfo [commitOffset=${pq.commitOffset}, cachedMsgMinOffset=${pq.cachedMsgMinOffset}, cachedMsgMaxOffset=${pq.cachedMsgMaxOffset}, `
    + `cachedMsgCount=${pq.cachedMsgCount}, cachedMsgSizeInMiB=${pq.cachedMsgSizeInMiB}, transactionMsgMinOffset=${pq.transactionMsgMinOffset}, `
    + `transactionMsgMaxOffset=${pq.transactionMsgMaxOffset}, transactionMsgCount=${pq.transactionMsgCount}, locked=${pq.locked}, `
    + `tryUnlockTimes=${pq.tryUnlockTimes}, lastLockTimestamp=${timeMillisToHumanString(pq.lastLockTimestamp)}, droped=${pq.droped}, `
    + `lastPullTimestamp=${timeMillisToHumanString(pq.lastPullTimestamp)}, lastConsumeTimestamp=${timeMillisToHumanString(pq.lastConsumeTimestamp)}]`;
}

const byTopicSub = (a: { topic: string; subString: string }, b: { topic: string; subString: string }) => {
  const x = `${a.topic}@${a.subString}`;
  const y = `${b.topic}@${b.subString}`;
  return x < y ? -1 : x > y ? 1 : 0;
};

/** ConsumerRunningInfo.formatString (properties in Java Properties order; tables in TreeMap / TreeSet order). */
export function consumerRunningInfoFormatString(info: ConsumerRunningInfo): string {
  let sb = '#Consumer Properties#\n';
  for (const k of javaPropertiesOrderKeys(info.properties.keys())) sb += javaFormat('%-40s: %s%n', k, info.properties.get(k));
  sb += '\n\n#Consumer Subscription#\n';
  let i = 0;
  for (const s of [...info.subscriptionSet].sort(byTopicSub)) {
    sb += javaFormat('%03d Topic: %-40s ClassFilter: %-8s SubExpression: %s%n', ++i, s.topic, String(s.classFilterMode), s.subString);
  }
  const mqs = [...info.mqTable].sort((a, b) => compareMessageQueue(a[0], b[0]));
  sb += '\n\n#Consumer Offset#\n';
  sb += javaFormat('%-64s  %-32s  %-4s  %-20s%n', '#Topic', '#Broker Name', '#QID', '#Consumer Offset');
  for (const [mq, pq] of mqs) sb += javaFormat('%-32s  %-32s  %-4d  %-20d%n', mq.topic, mq.brokerName, mq.queueId, pq.commitOffset);
  sb += '\n\n#Consumer MQ Detail#\n';
  sb += javaFormat('%-64s  %-32s  %-4s  %-20s%n', '#Topic', '#Broker Name', '#QID', '#ProcessQueueInfo');
  for (const [mq, pq] of mqs) sb += javaFormat('%-64s  %-32s  %-4d  %s%n', mq.topic, mq.brokerName, mq.queueId, processQueueInfoString(pq));
  sb += '\n\n#Consumer RT&TPS#\n';
  sb += javaFormat('%-64s  %14s %14s %14s %14s %18s %25s%n', '#Topic', '#Pull RT', '#Pull TPS', '#Consume RT', '#ConsumeOK TPS', '#ConsumeFailed TPS', '#ConsumeFailedMsgsInHour');
  for (const k of [...info.statusTable.keys()].sort()) {
    const s = info.statusTable.get(k)!;
    sb += javaFormat('%-32s  %14.2f %14.2f %14.2f %14.2f %18.2f %25d%n', k, s.pullRT, s.pullTPS, s.consumeRT, s.consumeOKTPS, s.consumeFailedTPS, s.consumeFailedMsgs);
  }
  if (info.jstack !== undefined) sb += `\n\n#Consumer jstack#\n${info.jstack}`;
  return sb;
}

const isPush = (info: ConsumerRunningInfo) => info.properties.get(ConsumerRunningInfoProp.PROP_CONSUME_TYPE) === 'CONSUME_PASSIVELY';

/** ConsumerRunningInfo.analyzeSubscription: every push client of a group started 2 minutes ago or more subscribes alike. */
export function analyzeSubscription(table: Array<[string, ConsumerRunningInfo]>, now: number): boolean {
  const first = table[0][1];
  const started = Number(first.properties.get(ConsumerRunningInfoProp.PROP_CONSUMER_START_TIMESTAMP) ?? '0');
  if (!(isPush(first) && now - started > 120_000)) return true;
  const key = (i: ConsumerRunningInfo) => JSON.stringify([...i.subscriptionSet].sort(byTopicSub).map((s) => [s.topic, s.subString, s.classFilterMode, s.tagsSet, s.codeSet, s.subVersion, s.expressionType]));
  let prev = first;
  for (const [, cur] of table) {
    if (key(cur) !== key(prev)) return false;
    prev = cur;
  }
  return prev.subscriptionSet.length > 0;
}

/** ConsumerRunningInfo.analyzeProcessQueue: queues that cannot lock (orderly) or have not consumed for a minute. */
export function analyzeProcessQueue(clientId: string, info: ConsumerRunningInfo, now: number): string {
  if (!isPush(info)) return '';
  const orderly = (info.properties.get(ConsumerRunningInfoProp.PROP_CONSUME_ORDERLY) ?? '').toLowerCase() === 'true';
  let sb = '';
  for (const [mq, pq] of [...info.mqTable].sort((a, b) => compareMessageQueue(a[0], b[0]))) {
    if (orderly) {
      if (!pq.locked) sb += javaFormat("%s %s can't lock for a while, %dms%n", clientId, mqString(mq), now - pq.lastLockTimestamp);
      else if (pq.droped && pq.tryUnlockTimes > 0) sb += javaFormat('%s %s unlock %d times, still failed%n', clientId, mqString(mq), pq.tryUnlockTimes);
    } else if (now - pq.lastConsumeTimestamp > 60_000 && pq.cachedMsgCount > 0) {
      sb += javaFormat("%s %s can't consume for a while, maybe blocked, %dms%n", clientId, mqString(mq), now - pq.lastConsumeTimestamp);
    }
  }
  return sb;
}

export const CONSUMER_STATUS_COMMANDS: Command[] = [
  {
    name: 'consumerStatus', desc: "Query consumer's internal data structure",
    options: {
      g: opt('consumerGroup', 'consumer group name', true), i: opt('clientId', "The consumer's client id"),
      b: opt('brokerAddr', 'broker address'), s: opt('jstack', 'Run jstack command in the consumer progress', false, false),
    },
    async run(admin, opts, out) {
      const group = req(opts, 'g');
      const cc = await admin.examineConsumerConnectionInfo(group, opts.has('b') ? req(opts, 'b') : undefined);
      const jstack = opts.has('s');
      if (opts.has('i')) {
        const info = await admin.getConsumerRunningInfo(group, req(opts, 'i'), jstack);
        if (wantsJson(opts)) return printJson(out, info);
        out(consumerRunningInfoFormatString(info));
        return;
      }
      const now = Date.now();
      const table = new Map<string, ConsumerRunningInfo>();
      if (!wantsJson(opts)) out(javaFormat('%-10s %-40s %-20s %s%n', '#Index', '#ClientId', '#Version', '#ConsumerRunningInfoFile'));
      let i = 1;
      for (const conn of cc.connectionSet) {
        try {
          const info = await admin.getConsumerRunningInfo(group, conn.clientId, jstack);
          table.set(conn.clientId, info);
          const file = `${now}/${conn.clientId}`;
          fs.mkdirSync(path.dirname(file), { recursive: true });
          fs.writeFileSync(file, consumerRunningInfoFormatString(info), 'utf8');
          if (!wantsJson(opts)) out(javaFormat('%-10d %-40s %-20s %s%n', i++, conn.clientId, getVersionDesc(conn.version), file));
        } catch (err) {
          process.stderr.write(errorReport(err, 'error'));
        }
      }
      if (wantsJson(opts)) return printJson(out, Object.fromEntries(table));
      if (table.size === 0) return;
      const sorted = [...table].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      if (!analyzeSubscription(sorted, now)) {
        out('\n\nWARN: Different subscription in the same group of consumer!!!');
        return;
      }
      out('\n\nSame subscription in the same group of consumer');
      out('\n\nRebalance OK\n');
      for (const [clientId, info] of sorted) out(analyzeProcessQueue(clientId, info, now));
    },
  },
];
