/**
 * mqadmin's consumer and offset commands beyond the ones in lib/cli/admin.ts: getConsumerConfig, cloneGroupOffset,
 * skipAccumulatedMessage.
 *
 * @see org.apache.rocketmq.tools.command.consumer.GetConsumerConfigSubCommand
 * @see org.apache.rocketmq.tools.command.offset.SkipAccumulationSubCommand
 */
import type { SubscriptionGroupConfig } from '../../../protocol/body/subscription-group-wrapper';
import { selectBrokerAddr } from '../../../protocol/body/topic-route-data';
import { javaHashOrderKeys } from '../../../protocol/message/java-hash';
import { ConfigError } from '../../errors';
import { frontStringAtLeast, javaFormat } from '../java-format';
import { type Command, bool, clusterOfBroker, opt, printJson, req, wantsJson } from './command';

/** SubscriptionGroupConfig's declared fields, in declaration order (what getConsumerConfig prints by reflection). */
const SUBSCRIPTION_GROUP_FIELDS = [
  'groupName', 'consumeEnable', 'consumeFromMinEnable', 'consumeBroadcastEnable', 'retryQueueNums', 'retryMaxTimes', 'brokerId',
  'whichBrokerWhenConsumeSlowly', 'notifyConsumerIdsChangedEnable',
] as const;

export const CONSUMER_COMMANDS: Command[] = [
  {
    name: 'getConsumerConfig', desc: 'Get consumer config by subscription group name!',
    options: { g: opt('groupName', 'subscription group name', true) },
    async run(admin, opts, out) {
      const groupName = req(opts, 'g');
      const info = await admin.examineBrokerClusterInfo();
      const found: Array<{ clusterName: string | null; brokerName: string; config: SubscriptionGroupConfig }> = [];
      for (const brokerName of javaHashOrderKeys(info.brokerAddrTable.keys())) {
        const addr = selectBrokerAddr(info.brokerAddrTable.get(brokerName)!);
        if (!addr) continue;
        const config = await admin.examineSubscriptionGroupConfig(addr, groupName);
        if (config) found.push({ clusterName: clusterOfBroker(info, brokerName), brokerName, config });
      }
      if (wantsJson(opts)) return printJson(out, found);
      for (const f of found) {
        out(javaFormat('=============================%s:%s=============================\n', f.clusterName, f.brokerName));
        for (const field of SUBSCRIPTION_GROUP_FIELDS) out(javaFormat('%s%-40s=  %s\n', '', field, f.config[field]));
      }
    },
  },
  {
    name: 'cloneGroupOffset', desc: 'clone offset from other group.',
    options: {
      s: opt('srcGroup', 'set source consumer group', true), d: opt('destGroup', 'set destination consumer group', true),
      t: opt('topic', 'set the topic', true), o: opt('offline', 'the group or the topic is offline'),
    },
    async run(admin, opts, out) {
      const srcGroup = req(opts, 's');
      const destGroup = req(opts, 'd');
      const topic = req(opts, 't');
      const stats = await admin.examineConsumeStats(srcGroup);
      if (stats.offsetTable.length > 0) {
        const route = await admin.examineTopicRouteInfo(topic);
        for (const [mq, w] of stats.offsetTable) {
          const bd = route.brokerDatas.find((b) => b.brokerName === mq.brokerName);
          const addr = bd ? selectBrokerAddr(bd) : undefined;
          if (w.consumerOffset < 0) continue;
          if (!addr) throw new ConfigError(`no broker ${mq.brokerName} in the route of ${topic}`);
          await admin.updateConsumeOffset(addr, destGroup, mq, w.consumerOffset);
        }
      }
      out(javaFormat('clone group offset success. srcGroup[%s], destGroup=[%s], topic[%s]', srcGroup, destGroup, topic));
    },
  },
  {
    name: 'skipAccumulatedMessage', desc: 'Skip all messages that are accumulated (not consumed) currently',
    options: {
      g: opt('group', 'set the consumer group', true), t: opt('topic', 'set the topic', true),
      f: opt('force', 'set the force rollback by timestamp switch[true|false]'),
    },
    async run(admin, opts, out) {
      const table = await admin.resetOffsetByTimestamp(req(opts, 't'), req(opts, 'g'), -1, bool(opts.get('f'), true));
      if (wantsJson(opts)) return printJson(out, table.map(([mq, offset]) => ({ ...mq, offset })));
      out(javaFormat('%-40s  %-40s  %-40s%n', '#brokerName', '#queueId', '#offset'));
      for (const [q, offset] of table) out(javaFormat('%-40s  %-40d  %-40d%n', frontStringAtLeast(q.brokerName, 32), q.queueId, offset));
    },
  },
];
