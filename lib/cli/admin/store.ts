/**
 * mqadmin's store maintenance commands: cleanExpiredCQ, deleteExpiredCommitLog, cleanUnusedTopic (each goes to
 * `-b brokerAddr`, or to every broker (masters and slaves) of `-c cluster`, or of every cluster; it prints
 * `success` (no newline, as Java) when the last broker answered SUCCESS); and `producer -b`, a broker's producers; `queryCq`, the entries of a consume queue.
 *
 * @see org.apache.rocketmq.tools.command.broker.CleanExpiredCQSubCommand
 * @see org.apache.rocketmq.tools.command.broker.DeleteExpiredCommitLogSubCommand
 * @see org.apache.rocketmq.tools.command.broker.CleanUnusedTopicCommand
 * @see org.apache.rocketmq.tools.command.producer.ProducerSubCommand
 * @see org.apache.rocketmq.tools.command.queue.QueryConsumeQueueCommand
 */
import type { DefaultMQAdminExt } from '../../admin/default-mq-admin-ext';
import { producerInfoToString } from '../../../protocol/body/producer-table-info';
import { consumeQueueDataToString } from '../../../protocol/body/query-consume-queue-response-body';
import { subscriptionDataToJson } from '../../../protocol/body/heartbeat-data';
import { toFastjson } from '../../../protocol/body/fastjson';
import { ConfigError } from '../../errors';
import { prettyFastjson } from '../java-format';
import { javaHashOrderKeys } from '../../../protocol/message/java-hash';
import { javaFormat } from '../java-format';
import { int } from './command';
import { type Command, opt, printJson, req, wantsJson } from './command';

function storeCommand(name: string, desc: string, clusterDesc: string,
  byAddr: (admin: DefaultMQAdminExt, addr: string) => Promise<boolean>,
  byCluster: (admin: DefaultMQAdminExt, cluster: string | null) => Promise<boolean>): Command {
  return {
    name, desc,
    options: { b: opt('brokerAddr', 'Broker address'), c: opt('cluster', clusterDesc) },
    async run(admin, opts, out) {
      const result = opts.has('b') ? await byAddr(admin, req(opts, 'b')) : await byCluster(admin, opts.has('c') ? req(opts, 'c') : null);
      if (wantsJson(opts)) return printJson(out, { result });
      out(result ? 'success' : 'false');
    },
  };
}

export const STORE_COMMANDS: Command[] = [
  storeCommand('cleanExpiredCQ', 'Clean expired ConsumeQueue on broker.', 'clustername',
    (a, addr) => a.cleanExpiredConsumerQueueByAddr(addr), (a, c) => a.cleanExpiredConsumerQueue(c)),
  storeCommand('deleteExpiredCommitLog', 'Delete expired CommitLog files', 'clustername',
    (a, addr) => a.deleteExpiredCommitLogByAddr(addr), (a, c) => a.deleteExpiredCommitLog(c)),
  storeCommand('cleanUnusedTopic', 'Clean unused topic on broker.', 'cluster name',
    (a, addr) => a.cleanUnusedTopicByAddr(addr), (a, c) => a.cleanUnusedTopic(c)),
  {
    name: 'queryCq', desc: 'Query cq command.',
    options: {
      t: opt('topic', 'topic name', true), q: opt('queue', 'queue num, ie. 1', true), i: opt('index', 'start queue index.', true),
      c: opt('count', 'how many.'), b: opt('broker', 'broker addr.'), g: opt('consumer', 'consumer group.'),
    },
    async run(admin, opts, out) {
      const topic = req(opts, 't');
      const queueId = int(req(opts, 'q'), 'queue');
      const index = int(req(opts, 'i'), 'index');
      const count = opts.has('c') ? int(req(opts, 'c'), 'count') : 10;
      let broker = opts.has('b') ? req(opts, 'b') : '';
      if (!broker) {
        const route = await admin.examineTopicRouteInfo(topic);
        broker = route.brokerDatas[0]?.brokerAddrs.get(0) ?? '';
        if (!broker) throw new ConfigError('No topic route data!');
      }
      const body = await admin.queryConsumeQueue(broker, topic, queueId, index, count, opts.has('g') ? req(opts, 'g') : null);
      if (wantsJson(opts)) return printJson(out, body);
      const line = '======================================\n';
      if (body.subscriptionData) out(`Subscription data: \n${prettyFastjson(toFastjson(subscriptionDataToJson(body.subscriptionData)))}\n${line}`);
      if (body.filterData !== null) out(`Filter data: \n${body.filterData}\n${line}`);
      out(`Queue data: \nmax: ${body.maxQueueIndex}, min: ${body.minQueueIndex}\n${line}`);
      let i = index;
      for (const d of body.queueData ?? []) out(`idx: ${i++}\n${consumeQueueDataToString(d)}\n${line}`);
    },
  },
  {
    name: 'producer', desc: "Query producer's instances, connection, status, etc.",
    options: { b: opt('broker', 'broker address', true) },
    async run(admin, opts, out) {
      const table = await admin.getAllProducerInfo(req(opts, 'b'));
      if (wantsJson(opts)) return printJson(out, table.data);
      // the client's HashMap of the decoded body: Java's iteration order
      for (const group of javaHashOrderKeys(table.data.keys())) {
        const list = table.data.get(group) ?? [];
        if (list.length === 0) {
          out(javaFormat('producer group (%s) instances are empty\n', group));
          continue;
        }
        for (const p of list) out(javaFormat('producer group (%s) instance : %s\n', group, producerInfoToString(p)));
      }
    },
  },
];
