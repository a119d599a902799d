/**
 * The dashboard in a real browser: headless Chromium (Debian's `chromium`, driven by playwright-core) opens each
 * view against our in-process cluster and against a Java 4.9.8 name server + broker, uses the forms (create and
 * delete a topic, reset a group's offset, query messages), and checks screenshots of the main views: not blank,
 * and the chart's line colour present where the chart is (the SVG drew).
 *
 * Skips with a clear line without chromium (and the Java part without Java). Set DASHBOARD_SCREENSHOTS=<dir> to keep
 * the screenshots.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { startCluster, type Cluster } from '../../../lib/server';
import { DashboardServer } from '../../../lib/dashboard/dashboard-server';
import { DefaultMQAdminExt } from '../../../lib/admin/default-mq-admin-ext';
import { DefaultMQProducer } from '../../../lib/producer/default-mq-producer';
import { DefaultMQPushConsumer } from '../../../lib/consumer/push-consumer';
import { ConsumeConcurrentlyStatus } from '../../../lib/consumer/listener';
import { newSubscriptionGroupConfig } from '../../../protocol/body/subscription-group-wrapper';
import { newTopicConfig } from '../../../protocol/body/topic-config';
import { createMessage } from '../../../protocol/message/message';
import { randomName, waitFor } from '../../helpers/cluster';
import { chromiumSkipReason, launchChromium } from '../../helpers/browser';
import { countColor, decodePng, distinctColors, inkRatio, type Image } from '../../helpers/png';
import { javaSkipReason, startJavaBroker, startJavaNamesrv, type JavaBroker, type JavaNamesrv } from '../../helpers/javaref';

/** The first series colours of the page's charts (lib/dashboard/static/app.js COLORS). */
const SERIES_COLORS = ['#e8590c', '#1f6feb'];

/**
 * The box of the element `selector` on the page, found and measured in one step inside the page (one task of its
 * event loop): the live charts are redrawn (replaced) every interval, so a locate in one round trip and a measure in
 * the next could meet two different elements, the first already detached (no box). Waits until the element is there
 * with a non-empty box.
 */
async function boxOf(page: Page, selector: string): Promise<{ x: number; y: number; width: number; height: number }> {
  const handle = await page.waitForFunction(`(() => {
    const el = document.querySelector(${JSON.stringify(selector)});
    if (!el) return null;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 ? { x: r.x, y: r.y, width: r.width, height: r.height } : null;
  })()`);
  const box = await handle.jsonValue() as { x: number; y: number; width: number; height: number } | null;
  await handle.dispose();
  if (!box) throw new Error(`${selector} has no box on the page`);
  return box;
}

async function shot(page: Page, name: string, selector?: string): Promise<Image> {
  // An element is shot by its box on the page (a clip of the page), not as the element itself: the live charts are
  // replaced every interval, so a shot of the element could find it detached; the box of the new one is the same.
  let png: Buffer;
  if (selector) {
    png = await page.screenshot({ clip: await boxOf(page, selector) });
  } else {
    png = await page.screenshot({ fullPage: true });
  }
  if (process.env.DASHBOARD_SCREENSHOTS) {
    fs.mkdirSync(process.env.DASHBOARD_SCREENSHOTS, { recursive: true });
    fs.writeFileSync(path.join(process.env.DASHBOARD_SCREENSHOTS, `${name}.png`), png);
  }
  return decodePng(png);
}

/** A page screenshot a person would call a page: text, tables and colours, not a blank or error page. */
function expectNotBlank(img: Image): void {
  expect(img.width).to.be.greaterThan(600);
  expect(inkRatio(img), 'share of non-white pixels').to.be.greaterThan(0.02);
  expect(distinctColors(img), 'distinct colours').to.be.greaterThan(8);
}

/** The chart drew its series: their colours cover a line's worth of pixels inside the chart (a later series may hide an earlier one). */
async function expectChartDrew(page: Page, selector: string, name: string): Promise<void> {
  // a flat series (TPS 0) has a zero-height box, which Playwright calls hidden: wait for it in the DOM
  await page.waitForSelector(`${selector} .series`, { state: 'attached' });
  const img = await shot(page, name, selector);
  const inked = SERIES_COLORS.reduce((n, c) => n + countColor(img, c, 30), 0);
  expect(inked, 'pixels of the series colours').to.be.greaterThan(300);
}

async function open(page: Page, url: string, view: string): Promise<void> {
  await page.goto(url);
  await page.waitForSelector(`body[data-ready="${view}"]`);
  expect(await page.locator('#view-error').count(), await page.locator('#view').innerText()).to.equal(0);
}

async function waitView(page: Page, view: string): Promise<void> {
  await page.waitForSelector(`body[data-ready="${view}"]`);
}

const rows = (page: Page, table: string) => page.locator(`#${table} tbody tr`);

/** The row of a table whose first cell links to exactly `name`. */
const rowOf = (page: Page, table: string, name: string) =>
  page.locator(`#${table} tbody tr`).filter({ has: page.locator('td:first-child').getByRole('link', { name, exact: true }) });

function localInput(ms: number): string {
  return new Date(ms - new Date(ms).getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
}

interface Env {
  namesrvAddr: string;
  brokerName: string;
  admin: DefaultMQAdminExt;
  topic: string;
  group: string;
  received: string[];
  sent: Array<{ msgId: string; offsetMsgId: string; body: string; key: string }>;
  consumer: DefaultMQPushConsumer;
  dashboard: DashboardServer;
  firstStore: number;
  stop(): Promise<void>;
}

/** A topic of 4 queues with `count` messages, a push consumer that took them all, and a dashboard on port 0. */
async function setUp(namesrvAddr: string, brokerAddr: string, brokerName: string, count: number): Promise<Env> {
  const admin = new DefaultMQAdminExt({ namesrvAddr, instanceName: randomName('dash-admin') });
  await admin.start();
  const topic = randomName('DashTopic');
  const group = randomName('DashGroup');
  await admin.createAndUpdateTopicConfig(brokerAddr, newTopicConfig(topic, { readQueueNums: 4, writeQueueNums: 4 }));
  await waitFor(async () => (await admin.fetchSubscribeMessageQueues(topic).catch(() => [])).length === 4, 20_000, 'the topic route');
  const producer = new DefaultMQProducer({ producerGroup: randomName('DashPG'), namesrvAddr, instanceName: randomName('dash-p') });
  await producer.start();
  const sent: Env['sent'] = [];
  const firstStore = Date.now();
  try {
    for (let i = 0; i < count; i++) {
      const body = `dashboard body ${i}`;
      const r = await producer.send(createMessage(topic, body, { tags: 'TagA', keys: `dash-key-${i}` }));
      sent.push({ msgId: r.msgId, offsetMsgId: r.offsetMsgId!, body, key: `dash-key-${i}` });
    }
  } finally {
    await producer.shutdown();
  }
  const received: string[] = [];
  const consumer = new DefaultMQPushConsumer({ consumerGroup: group, namesrvAddr, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: randomName('dash-c') });
  consumer.subscribe(topic, '*');
  consumer.registerMessageListener((msgs) => {
    for (const m of msgs) received.push(m.body.toString());
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
  });
  await consumer.start();
  await waitFor(() => received.length >= count, 60_000, 'the consumer took every message');
  // the offsets reach the broker with the next pull or the 5 s persist: the consume tracks read them there
  await waitFor(async () => {
    const stats = await admin.examineConsumeStats(group).catch(() => null);
    return stats !== null && stats.offsetTable.filter(([mq]) => mq.topic === topic).every(([, o]) => o.consumerOffset >= o.brokerOffset)
      && stats.offsetTable.some(([mq]) => mq.topic === topic);
  }, 30_000, 'the committed offsets');
  // A second group that committed nothing past 0 on every queue: a lag the charts draw.
  const lagging = `${group}_LAG`;
  await admin.createAndUpdateSubscriptionGroupConfig(brokerAddr, newSubscriptionGroupConfig(lagging));
  await admin.createAndUpdateTopicConfig(brokerAddr, newTopicConfig(`%RETRY%${lagging}`, { readQueueNums: 1, writeQueueNums: 1 }));
  for (const mq of await admin.fetchSubscribeMessageQueues(topic)) await admin.updateConsumeOffset(brokerAddr, lagging, mq, 0);
  void brokerName;
  const dashboard = new DashboardServer({ namesrvAddr, port: 0, sampleIntervalMillis: 300 });
  await dashboard.start();
  await waitFor(() => dashboard.samples.length >= 3 && dashboard.samples.at(-1)!.groups[lagging] !== undefined, 30_000, 'chart samples');
  return {
    namesrvAddr, brokerName, admin, topic, group, received, sent, consumer, dashboard, firstStore,
    async stop() {
      await dashboard.shutdown();
      await consumer.shutdown();
      await admin.shutdown();
    },
  };
}

function describeViews(label: string, start: () => Promise<{ env: Env; version: string; role: string; stop(): Promise<void> }>, timeout: number): void {
  describe(`dashboard in headless Chromium: ${label}`, function () {
    this.timeout(timeout);
    let browser: Browser;
    let page: Page;
    let env: Env;
    let ctx: Awaited<ReturnType<typeof start>>;
    let base = '';

    before(async function () {
      const skip = chromiumSkipReason() ?? (label.includes('Java') ? javaSkipReason('4.9.8') : null);
      if (skip) {
        console.log(`      ${skip}`);
        this.skip();
      }
      ctx = await start();
      env = ctx.env;
      base = env.dashboard.url;
      browser = await launchChromium();
      page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    });

    after(async () => {
      await browser?.close();
      await ctx?.stop();
    });

    it('cluster view: the broker with its role, version and TPS, and the live TPS chart', async () => {
      await open(page, `${base}#/cluster`, 'cluster');
      const text = await page.locator('#broker-table').innerText();
      expect(text).to.contain(env.brokerName).and.to.contain(ctx.role).and.to.contain(ctx.version);
      expect(await rows(page, 'broker-table').count()).to.equal(1);
      expect(await page.locator('#tps-chart polyline.series').count()).to.be.greaterThanOrEqual(2);
      expectNotBlank(await shot(page, `${label}-cluster`));
      await expectChartDrew(page, '#tps-chart', `${label}-tps-chart`);
    });

    it('topics: list, create through the form, route and offsets, delete', async () => {
      await open(page, `${base}#/topics`, 'topics');
      expect(await page.locator('#topic-table').innerText()).to.contain(env.topic);
      const created = randomName('DashCreated');
      await page.fill('#create-topic input[name=topic]', created);
      await page.fill('#create-topic input[name=readQueueNums]', '3');
      await page.fill('#create-topic input[name=writeQueueNums]', '3');
      await page.click('#create-topic button[type=submit]');
      await page.waitForFunction(`document.body.dataset.ready === 'topic' && document.getElementById('topic-name')?.textContent === ${JSON.stringify(created)}`);
      expect(await rows(page, 'queue-table').count()).to.equal(3);
      expect((await env.admin.examineTopicRouteInfo(created)).queueDatas[0].readQueueNums).to.equal(3);

      await open(page, `${base}#/topic/${encodeURIComponent(env.topic)}`, 'topic');
      expect(await rows(page, 'queue-table').count()).to.equal(4);
      const stored = await page.locator('#queue-table tbody tr td:nth-child(5)').allInnerTexts();
      expect(stored.map(Number).reduce((a, b) => a + b, 0)).to.equal(env.sent.length);
      expect(await page.locator('#topic-group-table').innerText()).to.contain(env.group);
      expectNotBlank(await shot(page, `${label}-topic`));

      await open(page, `${base}#/topic/${encodeURIComponent(created)}`, 'topic');
      page.once('dialog', (d) => { void d.accept(); });
      await page.click('#delete-topic');
      await page.waitForFunction("document.body.dataset.ready === 'topics'");
      expect((await env.admin.fetchAllTopicList()).topicList).not.to.include(created);
      expect(await page.locator('#topic-table').innerText()).not.to.contain(created);
    });

    it('messages: by topic and time, by key, by id, with properties, body and the groups that consumed it', async () => {
      await open(page, `${base}#/messages?topic=${encodeURIComponent(env.topic)}&begin=${env.firstStore - 60_000}`, 'messages');
      await page.waitForSelector('#message-table');
      expect(await rows(page, 'message-table').count()).to.equal(env.sent.length);

      const pick = env.sent[Math.floor(env.sent.length / 2)];
      await page.fill('#by-key input[name=key]', pick.key);
      await page.click('#by-key button[type=submit]');
      await page.waitForFunction("document.querySelectorAll('#message-table tbody tr').length === 1");
      await page.click('#message-table tbody tr a');
      await waitView(page, 'message');
      expect(await page.locator('#message-id').innerText()).to.equal(pick.msgId);
      expect(await page.locator('#message-body').innerText()).to.equal(pick.body);
      expect(await page.locator('#property-table').innerText()).to.contain('KEYS').and.to.contain(pick.key);
      const tracks = await page.locator('#track-table').innerText();
      expect(tracks).to.match(new RegExp(`${env.group}\\s+CONSUMED`));
      expect(tracks).to.match(new RegExp(`${env.group}_LAG\\s+NOT_ONLINE`));
      expectNotBlank(await shot(page, `${label}-message`));

      // the unique key (client msgId) with its topic, through the by-id form
      await open(page, `${base}#/messages`, 'messages');
      await page.fill('#by-id input[name=id]', pick.msgId);
      await page.fill('#by-id input[name=topic]', env.topic);
      await page.click('#by-id button[type=submit]');
      await waitView(page, 'message');
      expect(await page.locator('dd[data-field=offsetMsgId]').innerText()).to.equal(pick.offsetMsgId);
    });

    it('consumer groups: members, lag per queue, the live lag chart, reset offset', async () => {
      await open(page, `${base}#/groups`, 'groups');
      const groupRow = rowOf(page, 'group-table', env.group);
      expect(await groupRow.locator('td:nth-child(2)').innerText()).to.equal('1');
      const lagRow = rowOf(page, 'group-table', `${env.group}_LAG`);
      expect(Number(await lagRow.locator('td:nth-child(6)').innerText())).to.equal(env.sent.length);
      expectNotBlank(await shot(page, `${label}-groups`));
      await expectChartDrew(page, '#lag-chart', `${label}-lag-chart`);
      // the lagging group's line (second colour) stands above the zero line, in the chart's upper 80 %
      const chart = await shot(page, `${label}-lag-chart-top`, '#lag-chart');
      expect(countColor(chart, SERIES_COLORS[1], 30, [0, Math.floor(chart.height * 0.8)]), 'lag line above zero').to.be.greaterThan(300);

      await open(page, `${base}#/group/${encodeURIComponent(env.group)}`, 'group');
      expect(await rows(page, 'member-table').count()).to.equal(1);
      const lagRows = page.locator('#lag-table tbody tr', { hasText: env.topic });
      expect(await lagRows.count()).to.equal(4);
      expect(await page.locator('#total-lag').innerText()).to.equal('0');

      const before = env.received.length;
      await page.selectOption('#reset-offset select[name=topic]', env.topic);
      await page.fill('#reset-offset input[name=time]', localInput(env.firstStore - 60_000));
      await page.click('#reset-offset button[type=submit]');
      await page.waitForSelector('#status .ok, #status .error');
      expect(await page.locator('#status').innerText()).to.contain('reset (online)');
      // the consumer was told to start over: every message comes again
      await waitFor(() => env.received.length >= before + env.sent.length, 60_000, 'the consumer took the messages again');
    });
  });
}

describeViews('our cluster', async () => {
  const cluster: Cluster = await startCluster({});
  try {
    const host = cluster.brokers[0].storeHost;
    const addr = `${host.address}:${host.port}`;
    const env = await setUp(cluster.namesrvAddr, addr, 'broker-a', 12);
    return { env, version: 'V4_9_8', role: 'ASYNC_MASTER', async stop() { await env.stop(); await cluster.stop(); } };
  } catch (err) {
    await cluster.stop();
    throw err;
  }
}, 180_000);

describeViews('Java 4.9.8 name server and broker', async () => {
  let namesrv: JavaNamesrv | undefined;
  let broker: JavaBroker | undefined;
  try {
    namesrv = await startJavaNamesrv('4.9.8');
    broker = await startJavaBroker('4.9.8', { namesrvAddr: namesrv.addr });
    const env = await setUp(namesrv.addr, broker.addr, broker.brokerName, 8);
    const b = broker;
    const n = namesrv;
    return { env, version: 'V4_9_8', role: 'ASYNC_MASTER', async stop() { await env.stop(); await b.stop(); await n.stop(); } };
  } catch (err) {
    await broker?.stop();
    await namesrv?.stop();
    throw err;
  }
}, 400_000);
