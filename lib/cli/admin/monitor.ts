/**
 * mqadmin startMonitoring: Java's MonitorService with its DefaultMonitorListener. Every round (first after 20 s, then
 * every 60 s) it walks the `%RETRY%` topics of the name server, and for each group with consumers online reports the
 * messages not consumed yet per topic (UndoneMsgs) and what the clients' running info shows wrong; a push consumer of
 * group `__MONITOR_CONSUMER` on OFFSET_MOVED_EVENT reports offsets the brokers moved (DeleteMsgsEvent). Java writes
 * these lines to its client log; ours prints them. `--first-delay MS`, `--round-interval MS` and `--rounds N` are
 * ours (Java runs until stopped).
 *
 * @see org.apache.rocketmq.tools.monitor.MonitorService
 * @see org.apache.rocketmq.tools.monitor.DefaultMonitorListener
 */
import type { DefaultMQAdminExt } from '../../admin/default-mq-admin-ext';
import { PullStatus } from '../../client/mq-client-api-consumer';
import { DefaultMQPushConsumer } from '../../consumer/push-consumer';
import { ConsumeConcurrentlyStatus } from '../../consumer/listener';
import type { ConsumerRunningInfo } from '../../../protocol/body/consumer-running-info';
import type { OffsetWrapper } from '../../../protocol/body/consume-stats';
import { javaHashOrderKeys } from '../../../protocol/message/java-hash';
import type { MessageQueue } from '../../../protocol/message/message-queue';
import { type Command, type Out, int, opt, req } from './command';
import { analyzeProcessQueue, analyzeSubscription } from './consumer-status';

const LOG_PREFIX = '[MONITOR] ';
const LOG_NOTIFY = `${LOG_PREFIX} [NOTIFY] `;

const mqString = (mq: MessageQueue) => `MessageQueue [topic=${mq.topic}, brokerName=${mq.brokerName}, queueId=${mq.queueId}]`;

async function reportUndoneMsgs(admin: DefaultMQAdminExt, group: string, out: Out): Promise<void> {
  let offsetTable: Array<[MessageQueue, OffsetWrapper]>;
  try {
    offsetTable = (await admin.examineConsumeStats(group)).offsetTable;
    await admin.examineConsumerConnectionInfo(group);
  } catch {
    return;
  }
  const byTopic = new Map<string, Array<[MessageQueue, OffsetWrapper]>>();
  for (const e of offsetTable) {
    const list = byTopic.get(e[0].topic) ?? [];
    list.push(e);
    byTopic.set(e[0].topic, list);
  }
  for (const topic of javaHashOrderKeys(byTopic.keys())) {
    let total = 0;
    let singleMax = 0;
    let delayMax = 0;
    for (const [mq, ow] of byTopic.get(topic)!) {
      const diff = ow.brokerOffset - ow.consumerOffset;
      if (diff > singleMax) singleMax = diff;
      if (diff > 0) total += diff;
      if (ow.lastTimestamp > 0) {
        try {
          const maxOffset = await admin.maxOffset(mq);
          if (maxOffset > 0) {
            const pull = await admin.pullMessage(mq, '*', maxOffset - 1, 1);
            if (pull.pullStatus === PullStatus.FOUND && pull.msgFoundList.length > 0) {
              const delay = pull.msgFoundList[0].storeTimestamp - ow.lastTimestamp;
              if (delay > delayMax) delayMax = delay;
            }
          }
        } catch {
          // as Java: the delay of this queue is not counted
        }
      }
    }
    out(`${LOG_PREFIX}reportUndoneMsgs: UndoneMsgs [consumerGroup=${group}, topic=${topic}, undoneMsgsTotal=${total}, `
      + `undoneMsgsSingleMQ=${singleMax}, undoneMsgsDelayTimeMills=${delayMax}]\n`);
  }
}

async function reportConsumerRunningInfo(admin: DefaultMQAdminExt, group: string, out: Out, now: number): Promise<void> {
  const cc = await admin.examineConsumerConnectionInfo(group);
  const table: Array<[string, ConsumerRunningInfo]> = [];
  for (const c of cc.connectionSet) {
    try {
      table.push([c.clientId, await admin.getConsumerRunningInfo(group, c.clientId, false)]);
    } catch {
      // a client that does not answer is left out
    }
  }
  if (table.length === 0) return;
  table.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const groupProp = table[0][1].properties.get('consumerGroup') ?? 'null';
  if (!analyzeSubscription(table, now)) out(`${LOG_NOTIFY}reportConsumerRunningInfo: ConsumerGroup: ${groupProp}, Subscription different\n`);
  for (const [clientId, info] of table) {
    const result = analyzeProcessQueue(clientId, info, now);
    if (result) out(`${LOG_NOTIFY}reportConsumerRunningInfo: ConsumerGroup: ${groupProp}, ClientId: ${clientId}, ${result}\n`);
  }
}

/** MonitorService.doMonitorWork: one round. */
export async function monitorRound(admin: DefaultMQAdminExt, out: Out): Promise<void> {
  out(`${LOG_PREFIX}=========================================beginRound\n`);
  for (const topic of (await admin.fetchAllTopicList()).topicList) {
    if (!topic.startsWith('%RETRY%')) continue;
    const group = topic.slice('%RETRY%'.length);
    await reportUndoneMsgs(admin, group, out).catch(() => undefined);
    await reportConsumerRunningInfo(admin, group, out, Date.now()).catch(() => undefined);
  }
  out(`${LOG_PREFIX}=========================================endRound\n`);
}

export const MONITOR_COMMANDS: Command[] = [
  {
    name: 'startMonitoring', desc: 'Start Monitoring',
    options: {
      firstDelay: opt('first-delay', 'ms before the first round (ours; Java: 20000)'),
      roundInterval: opt('round-interval', 'ms between rounds (ours; Java: 60000)'),
      rounds: opt('rounds', 'stop after this many rounds (ours; Java runs until stopped)'),
    },
    async run(admin, opts, out) {
      const firstDelay = opts.has('firstDelay') ? int(req(opts, 'firstDelay'), 'first-delay') : 20_000;
      const roundInterval = opts.has('roundInterval') ? int(req(opts, 'roundInterval'), 'round-interval') : 60_000;
      const rounds = opts.has('rounds') ? int(req(opts, 'rounds'), 'rounds') : Infinity;
      const consumer = new DefaultMQPushConsumer({
        consumerGroup: '__MONITOR_CONSUMER', namesrvAddr: admin.getNameServerAddressList().join(';'), instanceName: `monitor-${Date.now()}`,
        consumeThreadMin: 1, consumeThreadMax: 1,
      });
      consumer.subscribe('OFFSET_MOVED_EVENT', '*');
      consumer.registerMessageListener((msgs) => {
        try {
          const e = JSON.parse(msgs[0].body.toString('utf8')) as { consumerGroup: string; messageQueue: MessageQueue; offsetRequest: number; offsetNew: number };
          out(`${LOG_PREFIX}reportDeleteMsgsEvent: DeleteMsgsEvent [offsetMovedEvent=OffsetMovedEvent [consumerGroup=${e.consumerGroup}, `
            + `messageQueue=${mqString(e.messageQueue)}, offsetRequest=${e.offsetRequest}, offsetNew=${e.offsetNew}], eventTimestamp=${msgs[0].storeTimestamp}]\n`);
        } catch {
          // as Java: an event that does not decode is skipped
        }
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
      });
      await consumer.start();
      try {
        for (let round = 0; round < rounds; round++) {
          await new Promise((resolve) => setTimeout(resolve, round === 0 ? firstDelay : roundInterval));
          const begin = Date.now();
          await monitorRound(admin, out);
          out(`Execute one round monitor work, spent timemills: ${Date.now() - begin}\n`);
        }
      } finally {
        await consumer.shutdown();
      }
    },
  },
];
