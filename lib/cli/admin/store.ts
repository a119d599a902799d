/**
 * mqadmin's store maintenance commands: cleanExpiredCQ, deleteExpiredCommitLog, cleanUnusedTopic (each goes to
 * `-b brokerAddr`, or to every broker (masters and slaves) of `-c cluster`, or of every cluster; it prints
 * `success` (no newline, as Java) when the last broker answered SUCCESS); and `producer -b`, a broker's producers.
 *
 * @see org.apache.rocketmq.tools.command.broker.CleanExpiredCQSubCommand
 * @see org.apache.rocketmq.tools.command.broker.DeleteExpiredCommitLogSubCommand
 * @see org.apache.rocketmq.tools.command.broker.CleanUnusedTopicCommand
 * @see org.apache.rocketmq.tools.command.producer.ProducerSubCommand
 */
import type { DefaultMQAdminExt } from '../../admin/default-mq-admin-ext';
import { producerInfoToString } from '../../../protocol/body/producer-table-info';
import { javaHashOrderKeys } from '../../../protocol/message/java-hash';
import { javaFormat } from '../java-format';
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
