/**
 * The dashboard's JSON API over HTTP against our in-process cluster (no browser): answers, bad input (400 with a
 * message, the server stays up), unknown routes (404), writes only with a JSON body, and the sampler's series.
 */
import { expect } from 'chai';
import { startCluster, type Cluster } from '../../../lib/server';
import { DashboardServer } from '../../../lib/dashboard/dashboard-server';
import { parseDashboardArgs } from '../../../lib/cli/dashboard';
import { randomName, waitFor } from '../../helpers/cluster';
import { RequestCode } from '../../../protocol/code/request-code';
import type { RemotingCommand } from '../../../protocol/remoting-command';
import { newSubscriptionGroupConfig } from '../../../protocol/body/subscription-group-wrapper';

describe('dashboard JSON API', function () {
  this.timeout(60_000);
  let cluster: Cluster;
  let dashboard: DashboardServer;
  let base = '';

  before(async () => {
    cluster = await startCluster({});
    dashboard = new DashboardServer({ namesrvAddr: cluster.namesrvAddr, port: 0, sampleIntervalMillis: 200, maxSamples: 5 });
    await dashboard.start();
    base = dashboard.url;
  });

  after(async () => {
    await dashboard?.shutdown();
    await cluster?.stop();
  });

  const get = async (p: string) => {
    const r = await fetch(base + p);
    return { status: r.status, body: await r.json() as Record<string, unknown> & unknown[] };
  };
  const send = async (p: string, method: string, body: unknown, type = 'application/json') => {
    const r = await fetch(base + p, { method, headers: { 'Content-Type': type }, body: typeof body === 'string' ? body : JSON.stringify(body) });
    return { status: r.status, body: await r.json() as Record<string, unknown> };
  };

  it('serves the page and its files without a build step', async () => {
    for (const [p, type] of [['', 'text/html'], ['app.js', 'text/javascript'], ['style.css', 'text/css']]) {
      const r = await fetch(base + p);
      expect(r.status, p).to.equal(200);
      expect(r.headers.get('content-type')).to.contain(type);
      expect((await r.text()).length).to.be.greaterThan(100);
    }
    expect((await fetch(`${base}nope.js`)).status).to.equal(404);
  });

  it('creates a topic, shows its queues, deletes it', async () => {
    const topic = randomName('ApiTopic');
    const created = await send('api/topic', 'POST', { topic, readQueueNums: 2, writeQueueNums: 2 });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    const t = await get(`api/topic?topic=${topic}`);
    expect(t.status).to.equal(200);
    expect((t.body.queues as unknown[]).length).to.equal(2);
    expect((await send(`api/topic?topic=${topic}`, 'DELETE', '')).status).to.equal(200);
    expect(((await get('api/topics')).body as Array<{ topic: string }>).map((x) => x.topic)).not.to.include(topic);
  });

  it('lists 300 groups with a few requests per broker and one per group, no route lookups', async () => {
    const broker = cluster.brokers[0];
    const groups = Array.from({ length: 300 }, () => randomName('DG'));
    for (const g of groups) await broker.subscriptionGroupManager.updateSubscriptionGroupConfig(newSubscriptionGroupConfig(g));
    const seen = new Map<number, number>();
    const count = (_addr: string, request: RemotingCommand) => seen.set(request.code, (seen.get(request.code) ?? 0) + 1);
    broker.remotingServer.registerRPCHook({ doBeforeRequest: count, doAfterResponse: () => undefined });
    cluster.namesrv.remotingServer.registerRPCHook({ doBeforeRequest: count, doAfterResponse: () => undefined });
    const r = await get('api/groups');
    expect(r.status).to.equal(200);
    const listed = new Set((r.body as Array<{ group: string; members: number }>).map((g) => g.group));
    for (const g of groups) expect(listed.has(g), g).to.equal(true);
    expect(seen.get(RequestCode.GET_ROUTEINFO_BY_TOPIC) ?? 0).to.equal(0);
    expect(seen.get(RequestCode.GET_CONSUME_STATS) ?? 0).to.equal(0);
    // one for the list (the live-chart sampler asks too, every 200 ms here)
    expect(seen.get(RequestCode.GET_BROKER_CONSUME_STATS)).to.be.within(1, 20);
    expect(seen.get(RequestCode.GET_CONSUMER_CONNECTION_LIST)).to.equal(listed.size);
  });

  it('answers bad input with 400 and a message, and unknown routes with 404; the server stays up', async () => {
    const cases: Array<Promise<{ status: number; body: Record<string, unknown> }>> = [
      send('api/topic', 'POST', { topic: 'bad topic!' }),
      send('api/topic', 'POST', { topic: 'T', readQueueNums: 0 }),
      send('api/topic', 'POST', { topic: 'T' }, 'text/plain'),
      send('api/topic', 'POST', '{not json'),
      send('api/topic', 'POST', '[1,2]'),
      send('api/group/reset-offset', 'POST', { group: 'G' }),
      get('api/topic'),
      get('api/message?id=xyz'),
      get('api/messages?topic=T&begin=abc'),
    ];
    for (const r of await Promise.all(cases)) {
      expect(r.status, JSON.stringify(r.body)).to.equal(400);
      expect(r.body.error).to.be.a('string').that.is.not.empty;
    }
    expect((await get('api/nothing')).status).to.equal(404);
    expect((await send('api/cluster', 'POST', {})).status).to.equal(404);
    const cluster = await get('api/cluster');
    expect(cluster.status).to.equal(200);
    expect((cluster.body.brokers as Array<{ brokerName: string }>)[0].brokerName).to.equal('broker-a');
  });

  it('keeps at most maxSamples chart samples, each with every broker', async () => {
    await waitFor(() => dashboard.samples.length === 5, 20_000, 'five samples');
    const series = await get('api/series');
    const samples = series.body.samples as Array<{ t: number; brokers: Record<string, unknown> }>;
    expect(samples.length).to.be.at.most(5);
    expect(Object.keys(samples[0].brokers)).to.deep.equal(['broker-a']);
  });

  it('parses the command line: -n is required, ports are checked', () => {
    expect(parseDashboardArgs(['-n', 'h:1', '--port', '0'], {})).to.include({ namesrvAddr: 'h:1', port: 0 });
    expect(parseDashboardArgs([], { NAMESRV_ADDR: 'h:2' })).to.include({ namesrvAddr: 'h:2' });
    expect(parseDashboardArgs(['--help'], {})).to.equal('help');
    expect(() => parseDashboardArgs([], {})).to.throw(/needs a name server/);
    expect(() => parseDashboardArgs(['-n', 'h:1', '--port', '70000'], {})).to.throw(/--port/);
    expect(() => parseDashboardArgs(['-n', 'h:1', '--bogus'], {})).to.throw(/unknown dashboard option/);
  });

  it('start and shutdown are idempotent', async () => {
    const d = new DashboardServer({ namesrvAddr: cluster.namesrvAddr, port: 0, sampleIntervalMillis: 0 });
    await Promise.all([d.start(), d.start()]);
    expect(d.port).to.be.greaterThan(0);
    await Promise.all([d.shutdown(), d.shutdown()]);
    await d.shutdown();
  });
});
