/**
 * `rocketmq-ts bench consume` as a child process against the in-process cluster: exit codes, --print lines, the
 * per-second and final reports, tag and SQL filters, broadcasting and orderly modes.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { DefaultMQAdminExt, DefaultMQProducer, createMessage, putUserProperty } from '../../../lib/index';
import { getCluster, randomName, waitFor, type TestCluster } from '../../helpers/cluster';

const MAIN = path.resolve(__dirname, '../../../lib/cli/main.js');
let offsetDir = '';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], killAfterMs = 40_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, 'bench', 'consume', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ROCKETMQ_NAMESRV_ADDR: '', ROCKETMQ_CLIENT_LOCAL_OFFSET_STORE_DIR: offsetDir } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('rocketmq-ts bench consume (child process)', function () {
  this.timeout(60_000);
  let tc: TestCluster;
  let admin: DefaultMQAdminExt;
  let producer: DefaultMQProducer;

  before(async function () {
    if (process.env.ROCKETMQ_NAMESRV_ADDR) this.skip();
    offsetDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-consume-offsets-'));
    tc = await getCluster({ brokerConfig: { enablePropertyFilter: true } });
    admin = new DefaultMQAdminExt({ namesrvAddr: tc.namesrvAddr, instanceName: randomName('admin') });
    await admin.start();
    producer = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: tc.namesrvAddr, instanceName: randomName('inst'), sendMsgTimeout: 30_000 });
    await producer.start();
  });

  after(async () => {
    await producer?.shutdown();
    await admin?.shutdown();
    await tc?.stop();
    if (offsetDir) fs.rmSync(offsetDir, { recursive: true, force: true });
  });

  async function topicWith(n: number, tags = 'TagA', queues = 4): Promise<string> {
    const topic = randomName('BC');
    await admin.createTopic('TBW102', topic, queues);
    await waitFor(async () => {
      try {
        return (await admin.examineTopicRouteInfo(topic)).queueDatas.length > 0;
      } catch {
        return false;
      }
    }, 10_000, `route of ${topic}`);
    for (let i = 0; i < n; i++) {
      const msg = createMessage(topic, `body-${i}`, { tags, keys: [`k${i}`] });
      putUserProperty(msg, 'n', String(i));
      await producer.send(msg);
    }
    return topic;
  }

  it('--count --print: one line per message, the reports, exit 0', async () => {
    const topic = await topicWith(12);
    const r = await run(['--namesrv', tc.namesrvAddr, '--topic', topic, '--group', randomName('G'), '--count', '12', '--timeout', '30', '--print']);
    expect(r.code, r.stderr).to.equal(0);
    const lines = r.stdout.split('\n').filter((l) => l.startsWith('topic='));
    expect(lines).to.have.length(12);
    expect(lines[0]).to.match(new RegExp(`^topic=${topic} queueId=\\d queueOffset=\\d+ msgId=[0-9A-F]{32} tags=TagA keys=k\\d+ bodyLength=\\d+ reconsumeTimes=0$`));
    expect(r.stdout).to.match(/\[total\] consumed=12 tps=\d+ e2e_p50=\d+ms e2e_p99=\d+ms e2e_max=\d+ms/);
  });

  it('exits non-zero when the count is not reached in time', async () => {
    const topic = await topicWith(3);
    // --timeout counts from before the consumer starts: long enough for a busy machine to start it and get the 3
    const r = await run(['--namesrv', tc.namesrvAddr, '--topic', topic, '--group', randomName('G'), '--count', '10', '--timeout', '8']);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.match(/3 of 10 messages arrived within 8 s/);
    expect(r.stdout).to.match(/\[\d+s\] consumed=3 /);
  });

  it('without --count runs until --timeout and exits 0', async () => {
    const topic = await topicWith(2);
    const r = await run(['--namesrv', tc.namesrvAddr, '--topic', topic, '--group', randomName('G'), '--timeout', '6']);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/\[total\] consumed=2 /);
  });

  it('--tag-expr and --sql filter', async () => {
    const topic = await topicWith(4, 'TagA');
    for (let i = 0; i < 3; i++) await producer.send(createMessage(topic, `b${i}`, { tags: 'TagB' }));
    const byTag = await run(['--namesrv', tc.namesrvAddr, '--topic', topic, '--group', randomName('G'), '--tag-expr', 'TagB', '--count', '3', '--timeout', '20', '--print']);
    expect(byTag.code, byTag.stderr).to.equal(0);
    expect(byTag.stdout.split('\n').filter((l) => l.startsWith('topic=')).every((l) => l.includes('tags=TagB'))).to.equal(true);
    const bySql = await run(['--namesrv', tc.namesrvAddr, '--topic', topic, '--group', randomName('G'), '--sql', 'n >= 2', '--count', '2', '--timeout', '20', '--print']);
    expect(bySql.code, bySql.stderr).to.equal(0);
    expect(bySql.stdout.split('\n').filter((l) => l.startsWith('topic=')).map((l) => /keys=(\S+)/.exec(l)![1]).sort()).to.deep.equal(['k2', 'k3']);
  });

  it('--broadcast and --orderly consume everything', async () => {
    const topic = await topicWith(8);
    const b = await run(['--namesrv', tc.namesrvAddr, '--topic', topic, '--group', randomName('G'), '--broadcast', '--count', '8', '--timeout', '20']);
    expect(b.code, b.stderr).to.equal(0);
    const o = await run(['--namesrv', tc.namesrvAddr, '--topic', topic, '--group', randomName('G'), '--orderly', '--count', '8', '--timeout', '20', '--print']);
    expect(o.code, o.stderr).to.equal(0);
    const offsetsByQueue = new Map<string, number[]>();
    for (const l of o.stdout.split('\n').filter((x) => x.startsWith('topic='))) {
      const [, q, off] = /queueId=(\d+) queueOffset=(\d+)/.exec(l)!;
      offsetsByQueue.set(q, [...(offsetsByQueue.get(q) ?? []), Number(off)]);
    }
    for (const offs of offsetsByQueue.values()) expect(offs).to.deep.equal([...offs].sort((x, y) => x - y));
  });

  it('refuses bad arguments with exit 2', async () => {
    const r = await run(['--topic', 'x', '--group', 'g']);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.match(/usage: rocketmq-ts bench consume/);
  });
});
