/**
 * Controller mode: the Java clients (4.9.8 and 5.3.3, through the driver) against a controller-mode set of ours
 * (startCluster({ controller: true, replicas: 2 }): a controller, a name server and 2 brokers with
 * allAckInSyncStateSet, in this process). The client produces and consumes through the set; the master is stopped,
 * the controller elects the other replica, the same client's sends are acknowledged by the new master, and a new
 * consumer group of the same client consumes everything acknowledged, before and after the failover. The row starts
 * its own set, so it runs in the "ours" column only.
 */
import { startCluster } from '../../lib/cluster';
import { DefaultMQAdminExt } from '../../lib/admin/default-mq-admin-ext';
import { newTopicConfig } from '../../protocol/body/topic-config';
import { type HarnessClient, harnessLines, harnessSkipReason, runHarness } from '../helpers/javaref';
import type { ClientId } from './matrix';
import { check, until, type Ctx, type Scenario } from './scenario';

const SECTION = 'controller mode: a Java client → a controller-mode set of ours (2 replicas, allAckInSyncStateSet)';
const ONLY_OURS = 'this row starts a controller-mode set of ours (see the "ours" column)';

/** The client consumes `expected` from the first offset with `group`; every key is checked. */
async function consume(client: HarnessClient, namesrvAddr: string, topic: string, group: string, expected: string[]): Promise<void> {
  const c = await runHarness(['consume', '--namesrv', namesrvAddr, '--topic', topic, '--group', group, '--from', 'first', '--expect', String(expected.length),
    '--timeout', '60'], { timeoutMs: 90_000, client });
  const keys = new Set(harnessLines(c.stdout, 'RECV').map((l) => l[6]));
  check(keys.size === expected.length && expected.every((k) => keys.has(k)), `Java ${client} consumed ${[...keys].sort().join(',')} (expected ${expected.join(',')})`);
}

async function produce(ctx: Ctx, client: HarnessClient, namesrvAddr: string, topic: string, keyPrefix: string): Promise<void> {
  const r = await runHarness(['produce', '--namesrv', namesrvAddr, '--topic', topic, '--count', '8', '--mode', 'sync', '--keys', `${keyPrefix}{i}`,
    '--send-timeout-ms', '15000'], { timeoutMs: 90_000, client });
  check(r.code === 0 && r.stdout.includes('SENT ok=8 fail=0'), `Java ${client} sent: ${(r.stdout.split('\n').filter((l) => /SENT|FAIL/.test(l)).join(' / ') || r.stderr).slice(-300)}`);
}

function controllerRow(client: Extract<ClientId, 'java' | 'java5'>, version: HarnessClient): Scenario {
  return {
    section: SECTION, row: 'produce and consume; the master stopped: produce again, consume everything acknowledged', client, timeoutMs: 300_000,
    na: { '4.9.8': ONLY_OURS, '5.3.3': ONLY_OURS, external: ONLY_OURS },
    async run(ctx) {
      const skip = harnessSkipReason(version);
      check(skip === null, skip ?? '');
      const cluster = await startCluster({ controller: true, replicas: 2 });
      ctx.defer(() => cluster.stop());
      const admin = new DefaultMQAdminExt({ namesrvAddr: cluster.namesrvAddr, instanceName: ctx.name('ctl_admin') });
      await admin.start();
      ctx.defer(() => admin.shutdown());
      const topic = ctx.name('CTL');
      for (const b of cluster.brokers) await admin.createAndUpdateTopicConfig(b.brokerAddr, newTopicConfig(topic, { readQueueNums: 4, writeQueueNums: 4 }));
      await until(async () => (await admin.examineTopicRouteInfo(topic)).queueDatas.length > 0, 30_000, `route of ${topic}`);
      await produce(ctx, version, cluster.namesrvAddr, topic, 'c');
      // allAckInSyncStateSet: each SEND_OK was on both replicas
      const master = cluster.master()!;
      const offsets = cluster.brokers.map((b) => b.messageStore.getMaxPhyOffset());
      check(offsets[0] === offsets[1] && offsets[0] > 0, `replicas at ${offsets.join(' / ')}`);
      const before = [...Array(8).keys()].map((i) => `c${i}`);
      await consume(version, cluster.namesrvAddr, topic, ctx.name('JG_CTL'), before);
      await cluster.stopBroker(cluster.brokers.indexOf(master));
      await until(() => cluster.master() !== null, 30_000, 'a new master');
      const next = cluster.master()!;
      await until(async () => (await admin.examineBrokerClusterInfo()).brokerAddrTable.get('broker-a')?.brokerAddrs.get(0) === next.brokerAddr, 30_000,
        'the new master registered as broker id 0');
      await produce(ctx, version, cluster.namesrvAddr, topic, 'd');
      // after the failover: everything acknowledged, by either master, is consumed from the new one
      await consume(version, cluster.namesrvAddr, topic, ctx.name('JG_CTL_AFTER'), [...before, ...[...Array(8).keys()].map((i) => `d${i}`)]);
    },
  };
}

export const CONTROLLER_ROWS: Scenario[] = [controllerRow('java', '4.9.8'), controllerRow('java5', '5.3.3')];
