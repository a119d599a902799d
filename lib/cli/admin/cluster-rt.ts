/**
 * mqadmin clusterRT: sends `-a` messages of `-s` bytes to each broker of each cluster (the topic named after the
 * broker, which every broker serves) and prints the mean send RT, round after round every `-i` seconds until
 * stopped. `--rounds N` (ours, not Java's) stops after N rounds, for scripts and tests.
 *
 * @see org.apache.rocketmq.tools.command.cluster.CLusterSendMsgRTCommand
 */
import { DefaultMQProducer } from '../../producer/default-mq-producer';
import { createMessage } from '../../../protocol/message/message';
import { javaHashOrderKeys } from '../../../protocol/message/java-hash';
import { bool, type Command, int, opt, req, wantsJson } from './command';
import { javaFormat } from '../java-format';

/** SimpleDateFormat("yyyy-MM-dd HH:mm:ss") in GMT+8, as Java's getCurTime. */
function curTimeGmt8(now = Date.now()): string {
  const d = new Date(now + 8 * 3_600_000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
}

export const CLUSTER_RT_COMMANDS: Command[] = [
  {
    name: 'clusterRT', desc: 'List All clusters Message Send RT',
    options: {
      a: opt('amount', 'message amount | default 100'), s: opt('size', 'message size | default 128 Byte'),
      c: opt('cluster', 'cluster name | default display all cluster'), p: opt('print log', 'print as tlog | default false'),
      m: opt('machine room', 'machine room name | default noname'), i: opt('interval', 'print interval | default 10 seconds'),
      rounds: opt('rounds', 'stop after this many rounds (ours; Java runs until stopped)'),
    },
    async run(admin, opts, out) {
      const info = await admin.examineBrokerClusterInfo();
      const amount = opts.has('a') ? int(req(opts, 'a'), 'amount') : 100;
      const size = opts.has('s') ? int(req(opts, 's'), 'size') : 128;
      const interval = opts.has('i') ? int(req(opts, 'i'), 'interval') : 10;
      const printAsTlog = opts.has('p') && bool(opts.get('p'), false);
      const machineRoom = opts.has('m') ? req(opts, 'm') : 'noname';
      const rounds = opts.has('rounds') ? int(req(opts, 'rounds'), 'rounds') : Infinity;
      const clusterNames = opts.has('c') ? [req(opts, 'c')] : javaHashOrderKeys(info.clusterAddrTable.keys());
      const json = wantsJson(opts);
      const producer = new DefaultMQProducer({
        producerGroup: String(Date.now()), namesrvAddr: admin.getNameServerAddressList().join(';'), instanceName: `clusterRT-${Date.now()}`,
      });
      await producer.start();
      try {
        if (!printAsTlog && !json) out(javaFormat('%-24s  %-24s  %-4s  %-8s  %-8s%n', '#Cluster Name', '#Broker Name', '#RT', '#successCount', '#failCount'));
        for (let round = 0; round < rounds; round++) {
          if (round > 0) await new Promise((resolve) => setTimeout(resolve, interval * 1000));
          for (const clusterName of clusterNames) {
            const brokerNames = info.clusterAddrTable.get(clusterName);
            if (!brokerNames) {
              out(javaFormat('cluster [%s] not exist', clusterName));
              break;
            }
            for (const brokerName of javaHashOrderKeys(new Set(brokerNames))) {
              const body = Buffer.alloc(size, 'a');
              let elapsed = 0;
              let successCount = 0;
              let failCount = 0;
              for (let i = 0; i < amount; i++) {
                const start = Date.now();
                try {
                  await producer.send(createMessage(brokerName, body));
                  successCount++;
                } catch {
                  failCount++;
                }
                if (i !== 0) elapsed += Date.now() - start;
              }
              const rt = elapsed / (amount - 1);
              if (json) out(`${JSON.stringify({ clusterName, brokerName, rt, successCount, failCount })}\n`);
              else if (!printAsTlog) out(javaFormat('%-24s  %-24s  %-8s  %-16s  %-16s%n', clusterName, brokerName, javaFormat('%.2f', rt), successCount, failCount));
              else out(`${curTimeGmt8()}|${machineRoom}|${clusterName}|${brokerName}|${Math.round(rt)}\n`);
            }
          }
        }
      } finally {
        await producer.shutdown();
      }
    },
  },
];
