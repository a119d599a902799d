/**
 * The broker's traffic counters and Prometheus endpoint, the name server's endpoint, and VIEW_BROKER_STATS_DATA, over
 * real sockets: every figure checked against what the test did (no timing in any assertion).
 */
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { expect } from 'chai';
import { ConsumeConcurrentlyStatus, DefaultMQProducer, DefaultMQPushConsumer, createMessage } from '../../../lib/index';
import { NamesrvController, startCluster, type Cluster } from '../../../lib/server';
import { RemotingClient } from '../../../lib/transport';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { decodeBrokerStatsData } from '../../../protocol/body/broker-stats-data';

function get(url: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    http.get(url, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => { body += d; }).on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
    }).on('error', reject);
  });
}

/** The value of one series line `name{labels} value` whose labels include all of `want`. */
function value(page: string, name: string, want: Record<string, string> = {}): number | undefined {
  for (const line of page.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labels = line.slice(name.length, line.lastIndexOf(' '));
    if (Object.entries(want).every(([k, v]) => labels.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('broker metrics: stats items, VIEW_BROKER_STATS_DATA, Prometheus endpoints', function () {
  this.timeout(60_000);
  let cluster: Cluster;
  const topic = `MetricsTopic${process.pid}`;
  const group = `MetricsGroup${process.pid}`;

  before(async () => {
    cluster = await startCluster({ brokers: 1, brokerConfig: { metricsPort: 0, metricsPromExporterHost: '127.0.0.1' } });
  });
  after(async () => { await cluster?.stop(); });

  it('counts puts and gets per topic and group, and publishes them with the lag', async () => {
    const broker = cluster.brokers[0];
    const producer = new DefaultMQProducer({ producerGroup: 'MetricsPG', namesrvAddr: cluster.namesrvAddr, instanceName: `metrics-${process.pid}` });
    await producer.start();
    try {
      for (let i = 0; i < 10; i++) await producer.send(createMessage(topic, `m${i}`));
    } finally {
      await producer.shutdown();
    }
    const consumer = new DefaultMQPushConsumer({
      consumerGroup: group, namesrvAddr: cluster.namesrvAddr, instanceName: `metrics-c-${process.pid}`, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    });
    const seen = new Set<string>();
    let allSeen!: () => void;
    const done = new Promise<void>((resolve) => { allSeen = resolve; });
    consumer.subscribe(topic, '*');
    consumer.registerMessageListener((msgs) => {
      for (const m of msgs) seen.add(m.body.toString());
      if (seen.size === 10) allSeen();
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    });
    await consumer.start();
    try {
      await done;
    } finally {
      await consumer.shutdown();
    }
    // A known committed position: 3 messages of the first queue that has any, none of the others.
    const queues = [...broker.messageStore.consumeQueueTable.get(topic)!.keys()];
    const total = queues.reduce((n, q) => n + broker.messageStore.getMaxOffsetInQueue(topic, q), 0);
    expect(total).to.equal(10);
    broker.consumerOffsetManager.offsetTable.delete(`${topic}@${group}`);
    const q0 = queues.find((q) => broker.messageStore.getMaxOffsetInQueue(topic, q) >= 3)!;
    broker.consumerOffsetManager.commitOffset('test', group, topic, q0, 3);

    const page = (await get(`http://${broker.metricsService!.address}/metrics`));
    expect(page.status).to.equal(200);
    expect(page.type).to.match(/^text\/plain; version=0\.0\.4/);
    const labels = { cluster: 'DefaultCluster', broker: 'broker-a', topic };
    expect(value(page.body, 'rocketmq_producer_messages_total', labels)).to.equal(10);
    expect(value(page.body, 'rocketmq_consumer_messages_total', { ...labels, group })).to.be.at.least(10);
    expect(value(page.body, 'rocketmq_broker_put_messages_total', { cluster: 'DefaultCluster' })).to.be.at.least(10);
    expect(value(page.body, 'rocketmq_producer_offset', labels)).to.equal(10);
    expect(value(page.body, 'rocketmq_consumer_offset', { ...labels, group })).to.equal(3);
    expect(value(page.body, 'rocketmq_group_diff', { ...labels, group })).to.equal(broker.messageStore.getMaxOffsetInQueue(topic, q0) - 3);
    expect(value(page.body, 'rocketmq_broker_put_latency_seconds_count', { cluster: 'DefaultCluster' })).to.be.at.least(10);
    expect(value(page.body, 'rocketmq_broker_put_latency_seconds_bucket', { le: '+Inf' })).to.equal(value(page.body, 'rocketmq_broker_put_latency_seconds_count'));
    expect(value(page.body, 'rocketmq_store_commitlog_max_offset')).to.equal(broker.messageStore.getMaxPhyOffset());
    expect(value(page.body, 'process_resident_memory_bytes')).to.be.greaterThan(0);
    for (const line of page.body.split('\n').filter((l) => l && !l.startsWith('#'))) expect(line, line).to.match(/^[a-z_]+(\{[^}]*\})? [-+0-9.eInfNa]+$/);
    expect((await get(`http://${broker.metricsService!.address}/other`)).status).to.equal(404);
  });

  it('VIEW_BROKER_STATS_DATA answers an item with its minute figures, and a missing one with Java\'s error', async () => {
    const broker = cluster.brokers[0];
    broker.brokerStatsManager.sampleNow(); // a sampling tick: the item's minute window now spans the 10 sends
    const client = new RemotingClient();
    try {
      const ask = (statsName: string, statsKey: string) =>
        client.invoke(broker.brokerAddr, RemotingCommand.createRequest(RequestCode.VIEW_BROKER_STATS_DATA, { statsName, statsKey }), 5000);
      const ok = await ask('TOPIC_PUT_NUMS', topic);
      expect(ok.code).to.equal(ResponseCode.SUCCESS);
      const data = decodeBrokerStatsData(ok.body!);
      expect(data.statsMinute.sum).to.equal(10);
      expect(data.statsMinute.avgpt).to.equal(1);
      expect(data.statsMinute.tps).to.be.greaterThan(0);
      expect(ok.body!.toString()).to.match(/^\{"statsDay":\{"avgpt":[0-9.]+,"sum":\d+,"tps":[0-9.E-]+\},"statsHour":/);
      const missing = await ask('TOPIC_PUT_NUMS', 'NoSuchTopic');
      expect([missing.code, missing.remark]).to.deep.equal([ResponseCode.SYSTEM_ERROR, 'The stats <TOPIC_PUT_NUMS> <NoSuchTopic> not exist']);
    } finally {
      await client.shutdown();
    }
  });

  it('the name server publishes brokers, clusters and topics', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ns-metrics-'));
    const ns = new NamesrvController({ listenPort: 0, bindAddress: '127.0.0.1', metricsPort: 0, metricsPromExporterHost: '127.0.0.1', kvConfigPath: path.join(dir, 'kv.json'), configStorePath: path.join(dir, 'ns.properties') });
    try {
      await ns.start();
      const before = await get(`http://${ns.metricsAddress}/metrics`);
      expect(value(before.body, 'rocketmq_namesrv_live_brokers')).to.equal(0);
      const cns = cluster.namesrv;
      expect(value(cns.collectMetrics(), 'rocketmq_namesrv_live_brokers')).to.equal(1);
      expect(value(cns.collectMetrics(), 'rocketmq_namesrv_clusters')).to.equal(1);
      expect(value(cns.collectMetrics(), 'rocketmq_namesrv_broker_groups', { role: 'with_master' })).to.equal(1);
      expect(value(cns.collectMetrics(), 'rocketmq_namesrv_topics')).to.be.at.least(1);
      expect(cns.metricsAddress).to.equal(null);
    } finally {
      await ns.shutdown();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
