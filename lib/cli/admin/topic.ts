/**
 * mqadmin's topic commands beyond the ones in lib/cli/admin.ts: topicClusterList, updateTopicPerm, updateOrderConf,
 * allocateMQ.
 *
 * @see org.apache.rocketmq.tools.command.topic
 */
import { toFastjson } from '../../../protocol/body/fastjson';
import { newTopicConfig, type TopicConfig } from '../../../protocol/body/topic-config';
import { perm2String } from '../../../protocol/body/perm-name';
import { MASTER_ID } from '../../../protocol/body/topic-route-data';
import { javaHashOrderByHash, javaHashOrderKeys } from '../../../protocol/message/java-hash';
import { type MessageQueue, javaMessageQueueHashCode } from '../../../protocol/message/message-queue';
import { AllocateMessageQueueAveragely } from '../../consumer/rebalance/allocate-message-queue-averagely';
import { ConfigError } from '../../errors';
import { javaFormat } from '../java-format';
import { type Command, int, masterAddrsOfCluster, opt, printJson, req, wantsJson } from './command';

/** TopicConfig.toString. */
export function topicConfigToString(t: TopicConfig): string {
  return `TopicConfig [topicName=${t.topicName}, readQueueNums=${t.readQueueNums}, writeQueueNums=${t.writeQueueNums}, `
    + `perm=${perm2String(t.perm)}, topicFilterType=${t.topicFilterType}, topicSysFlag=${t.topicSysFlag}, order=${t.order}]`;
}

export const TOPIC_COMMANDS: Command[] = [
  {
    name: 'topicClusterList', desc: 'get cluster info for topic', options: { t: opt('topic', 'topic name', true) },
    async run(admin, opts, out) {
      const clusters = javaHashOrderKeys(await admin.getTopicClusterList(req(opts, 't')));
      if (wantsJson(opts)) return printJson(out, clusters);
      for (const c of clusters) out(javaFormat('%s%n', c));
    },
  },
  {
    name: 'updateTopicPerm', desc: 'Update topic perm',
    options: {
      b: opt('brokerAddr', 'create topic to which broker'), c: opt('clusterName', 'create topic to which cluster'),
      t: opt('topic', 'topic name', true), p: opt('perm', 'set topic\'s permission(2|4|6), intro[2:W; 4:R; 6:RW]', true),
    },
    async run(admin, opts, out) {
      const topic = req(opts, 't');
      const route = await admin.examineTopicRouteInfo(topic);
      const queueData = route.queueDatas[0];
      if (!queueData) throw new ConfigError(`topic ${topic} has no queue data`);
      const perm = int(req(opts, 'p'), 'perm');
      const config = newTopicConfig(topic, {
        readQueueNums: queueData.readQueueNums, writeQueueNums: queueData.writeQueueNums, topicSysFlag: queueData.topicSysFlag, perm,
      });
      if (opts.has('b')) {
        const brokerAddr = req(opts, 'b');
        const brokerName = route.brokerDatas.find((bd) => bd.brokerAddrs.get(MASTER_ID) === brokerAddr)?.brokerName;
        if (brokerName === undefined) {
          out(javaFormat('updateTopicPerm error broker not exit or broker is not master!.%n'));
          return;
        }
        let oldPerm = 0;
        const old = route.queueDatas.find((q) => q.brokerName === brokerName);
        if (old) {
          oldPerm = old.perm;
          if (perm === oldPerm) {
            out(javaFormat('new perm equals to the old one!%n'));
            return;
          }
        }
        await admin.createAndUpdateTopicConfig(brokerAddr, config);
        out(javaFormat('update topic perm from %s to %s in %s success.%n', oldPerm, perm, brokerAddr));
        out(javaFormat('%s.%n', topicConfigToString(config)));
        return;
      }
      if (!opts.has('c')) throw new ConfigError('updateTopicPerm needs -b brokerAddr or -c clusterName');
      for (const addr of masterAddrsOfCluster(await admin.examineBrokerClusterInfo(), req(opts, 'c'))) {
        await admin.createAndUpdateTopicConfig(addr, config);
        out(javaFormat('update topic perm from %s to %s in %s success.%n', queueData.perm, perm, addr));
      }
    },
  },
  {
    name: 'updateOrderConf', desc: 'Create or update or delete order conf',
    options: {
      t: opt('topic', 'topic name', true), v: opt('orderConf', 'set order conf [eg. brokerName1:num;brokerName2:num]'),
      m: opt('method', 'option type [eg. put|get|delete', true),
    },
    async run(admin, opts, out) {
      const topic = req(opts, 't');
      const type = req(opts, 'm');
      if (type === 'get') {
        const orderConf = await admin.getKVConfig('ORDER_TOPIC_CONFIG', topic);
        if (wantsJson(opts)) return printJson(out, { topic, orderConf });
        out(javaFormat('get orderConf success. topic=[%s], orderConf=[%s] ', topic, orderConf));
      } else if (type === 'put') {
        const orderConf = (opts.get('v') ?? '').trim();
        if (orderConf.length === 0) throw new ConfigError('please set orderConf with option -v.');
        await admin.createOrUpdateOrderConf(topic, orderConf);
        out(javaFormat('update orderConf success. topic=[%s], orderConf=[%s]', topic, orderConf));
      } else if (type === 'delete') {
        await admin.deleteKVConfig('ORDER_TOPIC_CONFIG', topic);
        out(javaFormat('delete orderConf success. topic=[%s]', topic));
      } else {
        throw new ConfigError(`method must be put, get or delete: ${type}`);
      }
    },
  },
  {
    name: 'allocateMQ', desc: 'Allocate MQ',
    options: { t: opt('topic', 'topic name', true), i: opt('ipList', 'ipList', true) },
    async run(admin, opts, out) {
      const topic = req(opts, 't');
      const ipList = req(opts, 'i').split(',');
      // MQClientInstance.topicRouteData2TopicSubscribeInfo builds a HashSet: Java's allocation works on its order.
      const mqs = javaHashOrderByHash(await admin.fetchSubscribeMessageQueues(topic), javaMessageQueueHashCode);
      const averagely = new AllocateMessageQueueAveragely();
      const result = new Map<string, MessageQueue[]>();
      for (const ip of ipList) result.set(ip, averagely.allocate('aa', ip, mqs, ipList));
      const ordered = new Map(javaHashOrderKeys(result.keys()).map((ip) => [ip, result.get(ip)!.map((q) => ({ ...q }))]));
      if (wantsJson(opts)) return printJson(out, { result: ordered });
      out(javaFormat('%s%n', toFastjson({ result: ordered })));
    },
  },
];
