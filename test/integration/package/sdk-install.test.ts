/**
 * The package as an application installs it: `npm pack` (from a copy of what the package holds, so the working tree
 * is never touched), then `npm install <tarball>` into an empty app. Checks: a handful of packages (iconv-lite, long,
 * pino and their trees; none of the servers' accelerators), no install script anywhere (none of ours packed, none
 * in the tree), the SDK working from the installed copy against our in-process cluster through `require` (CommonJS)
 * and `import` (an ES module), its types compiling from both, an LZ4 send failing with the typed error naming the
 * package, and the bundled servers starting from the install with every fallback reported.
 *
 * Needs the npm registry (the install fetches pino and the rest): skips with a line saying so when it cannot be
 * reached.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { DefaultMQAdminExt } from '../../../lib/admin/default-mq-admin-ext';
import { startCluster, type Cluster } from '../../../lib/server';
import { newTopicConfig } from '../../../protocol/body/topic-config';
import { CompressionType, isCompressionAvailable } from '../../../protocol/message/compression';
import { DefaultMQProducer } from '../../../lib/producer/default-mq-producer';
import { createMessage } from '../../../protocol/message/message';
import { randomName, waitFor } from '../../helpers/cluster';

const run = promisify(execFile);
const REPO = path.resolve(__dirname, '../../../..');
/** What `npm install rocketmq-ts` may bring besides iconv-lite, long and pino's tree (a bound, not an exact list). */
const MAX_PACKAGES = 20;
const ACCELERATORS = ['@riaskov/mmap-io', '@node-rs/crc32', 'lz4-napi', 'zstd-napi', '@toondepauw/node-zstd', 'js-yaml', 'node-gyp', 'prebuild-install'];

/** The environment of a child npm: the parent's, without what `npm test` set for its own run. */
function childEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')));
}

function npm(args: string[], cwd: string, timeout = 180_000) {
  return run('npm', args, { cwd, env: childEnv(), timeout, maxBuffer: 16 * 1024 * 1024 });
}

/** Runs `node file args` in the app; the line starting with RESULT is its JSON answer. */
function runApp(dir: string, file: string, args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: childEnv() });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith('RESULT '));
      if (code !== 0 || !line) reject(new Error(`${file} exited ${code}: ${err.slice(-2000)}${out.slice(-2000)}`));
      else resolve(JSON.parse(line.slice(7)) as Record<string, unknown>);
    });
  });
}

/** The client script: the same body run through require (.cjs) and import (.mjs). */
const CLIENT_BODY = `
async function main(SDK, namesrvAddr, topic, tag) {
  const { DefaultMQProducer, DefaultMQPushConsumer, ConsumeConcurrentlyStatus, createMessage } = SDK;
  const producer = new DefaultMQProducer({ producerGroup: 'PG_' + tag, namesrvAddr, instanceName: 'p_' + tag });
  await producer.start();
  const sent = [];
  for (let i = 0; i < 3; i++) sent.push((await producer.send(createMessage(topic, tag + ' body ' + i, { tags: tag }))).msgId);
  // LZ4 is not installed with the SDK: a compressed send fails with the typed error naming the package
  const lz4 = new DefaultMQProducer({ producerGroup: 'PGZ_' + tag, namesrvAddr, instanceName: 'pz_' + tag, compressType: 'LZ4' });
  await lz4.start();
  let lz4Error = null;
  try {
    await lz4.send(createMessage(topic, Buffer.alloc(8192, 'x'), { tags: 'LZ4' }));
  } catch (e) {
    lz4Error = { name: e.constructor.name, isTyped: e instanceof SDK.CompressionCodecUnavailableError, packageName: e.packageName, message: e.message };
  }
  await lz4.shutdown();
  await producer.shutdown();
  const received = [];
  const consumer = new DefaultMQPushConsumer({ consumerGroup: 'CG_' + tag, namesrvAddr, instanceName: 'c_' + tag, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
  consumer.subscribe(topic, tag);
  consumer.registerMessageListener((msgs) => {
    for (const m of msgs) received.push(m.body.toString());
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
  });
  await consumer.start();
  const deadline = Date.now() + 60000;
  while (received.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  await consumer.shutdown();
  return { sent, received: received.sort(), lz4Available: SDK.isCompressionAvailable(SDK.CompressionType.LZ4), lz4Error };
}
`;

const CJS = `'use strict';
const SDK = require('rocketmq-ts');
${CLIENT_BODY}
main(SDK, ...process.argv.slice(2)).then((r) => { console.log('RESULT ' + JSON.stringify({ ...r, loader: typeof require })); process.exit(0); },
  (e) => { console.error(e); process.exit(1); });
`;

const ESM = `import { DefaultMQProducer, DefaultMQPushConsumer, ConsumeConcurrentlyStatus, createMessage, CompressionCodecUnavailableError,
  CompressionType, isCompressionAvailable } from 'rocketmq-ts';
const SDK = { DefaultMQProducer, DefaultMQPushConsumer, ConsumeConcurrentlyStatus, createMessage, CompressionCodecUnavailableError, CompressionType, isCompressionAvailable };
${CLIENT_BODY}
main(SDK, ...process.argv.slice(2)).then((r) => { console.log('RESULT ' + JSON.stringify({ ...r, loader: typeof require })); process.exit(0); },
  (e) => { console.error(e); process.exit(1); });
`;

/** The bundled servers from the install: no accelerator there, each fallback reported. */
const SERVER = `'use strict';
const { startCluster } = require('rocketmq-ts/server');
(async () => {
  const cluster = await startCluster({});
  const accelerators = cluster.brokers[0].accelerators;
  await cluster.stop();
  console.log('RESULT ' + JSON.stringify({ accelerators }));
  process.exit(0);
})().catch((e) => { console.error(e); process.exit(1); });
`;

/** Types from both module systems; a misspelt option must fail, so the types are real. */
const TYPES = `import { ConsumeConcurrentlyStatus, DefaultMQProducer, DefaultMQPushConsumer, type MessageExt } from 'rocketmq-ts';
import { startCluster, type Cluster } from 'rocketmq-ts/server';
const producer: DefaultMQProducer = new DefaultMQProducer({ producerGroup: 'PG', namesrvAddr: '127.0.0.1:9876' });
const consumer = new DefaultMQPushConsumer({ consumerGroup: 'CG' });
consumer.registerMessageListener((msgs: MessageExt[]) => (msgs[0].body.length > 0 ? ConsumeConcurrentlyStatus.CONSUME_SUCCESS : ConsumeConcurrentlyStatus.RECONSUME_LATER));
const start: () => Promise<Cluster> = () => startCluster({ brokers: 1 });
// @ts-expect-error a misspelt option is a type error
void new DefaultMQProducer({ producerGroupe: 'PG' });
export { producer, start };
`;

describe('integration: the packed package installed into an empty app', function () {
  this.timeout(600_000);
  let tmp = '';
  let app = '';
  let cluster: Cluster | undefined;
  let admin: DefaultMQAdminExt | undefined;
  let installOutput = '';
  let packed: { scripts?: Record<string, string>; dependencies?: Record<string, string> } = {};

  before(async function () {
    try {
      await npm(['ping'], REPO, 30_000);
    } catch (err) {
      console.log(`      skipped: the npm registry cannot be reached (${(err as Error).message.split('\n')[0]}); the install test needs it`);
      this.skip();
    }
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rocketmq-ts-sdk-install-'));
    // pack a copy of what the package holds (the build of this run), with the pack scripts
    const stage = path.join(tmp, 'stage');
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { files: string[] };
    for (const f of [...pkg.files.filter((f) => !f.startsWith('!')), 'package.json', 'scripts/pack-manifest.mjs']) {
      fs.cpSync(path.join(REPO, f), path.join(stage, f), { recursive: true });
    }
    await npm(['pack', '--pack-destination', tmp], stage);
    const tarball = fs.readdirSync(tmp).find((f) => f.endsWith('.tgz'))!;
    expect(JSON.parse(fs.readFileSync(path.join(stage, 'package.json'), 'utf8')).scripts.prepare, 'postpack restored the manifest').to.be.a('string');
    const { stdout } = await run('tar', ['-xzOf', path.join(tmp, tarball), 'package/package.json']);
    packed = JSON.parse(stdout) as typeof packed;

    app = path.join(tmp, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'sdk-app', version: '1.0.0', private: true }, null, 2));
    const r = await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', path.join(tmp, tarball)], app);
    installOutput = r.stdout + r.stderr;

    cluster = await startCluster({});
    admin = new DefaultMQAdminExt({ namesrvAddr: cluster.namesrvAddr, instanceName: randomName('sdk-install-admin') });
    await admin.start();
  });

  after(async () => {
    await admin?.shutdown();
    await cluster?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('packs no script that runs on an install, and depends on iconv-lite, long and pino alone', () => {
    for (const s of ['prepare', 'preinstall', 'install', 'postinstall']) expect(packed.scripts ?? {}, s).not.to.have.property(s);
    expect(Object.keys(packed.dependencies ?? {}).sort()).to.deep.equal(['iconv-lite', 'long', 'pino']);
  });

  it('installs a handful of packages, none of the accelerators, and runs no install script', () => {
    const lock = JSON.parse(fs.readFileSync(path.join(app, 'package-lock.json'), 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> };
    const names = Object.keys(lock.packages).filter((k) => k !== '').map((k) => k.replace(/^.*node_modules\//, ''));
    expect(names).to.include.members(['rocketmq-ts', 'iconv-lite', 'long', 'pino']);
    expect(names.length, names.join(', ')).to.be.at.most(MAX_PACKAGES);
    for (const a of ACCELERATORS) expect(names, a).not.to.include(a);
    expect(Object.entries(lock.packages).filter(([, p]) => p.hasInstallScript).map(([k]) => k)).to.deep.equal([]);
    expect(installOutput).not.to.match(/install-scripts|gyp|prebuild/i);
  });

  it('require (CommonJS) and import (ES module) both send and consume against the cluster; LZ4 fails typed, naming lz4-napi', async () => {
    const topic = randomName('SdkInstall');
    await admin!.createAndUpdateTopicConfig(`${cluster!.brokers[0].storeHost.address}:${cluster!.brokers[0].storeHost.port}`, newTopicConfig(topic, { readQueueNums: 2, writeQueueNums: 2 }));
    await waitFor(async () => (await admin!.fetchSubscribeMessageQueues(topic).catch(() => [])).length === 2, 20_000, 'the topic route');
    fs.writeFileSync(path.join(app, 'client.cjs'), CJS);
    fs.writeFileSync(path.join(app, 'client.mjs'), ESM);
    for (const [file, tag, loader] of [['client.cjs', 'Cjs', 'function'], ['client.mjs', 'Esm', 'undefined']] as const) {
      const r = await runApp(app, file, [cluster!.namesrvAddr, topic, tag]);
      expect(r.loader, file).to.equal(loader);
      expect(r.sent as string[], file).to.have.length(3);
      expect(r.received, file).to.deep.equal([0, 1, 2].map((i) => `${tag} body ${i}`));
      expect(r.lz4Available, file).to.equal(false);
      expect(r.lz4Error, file).to.deep.include({ name: 'CompressionCodecUnavailableError', isTyped: true, packageName: 'lz4-napi' });
      expect((r.lz4Error as { message: string }).message).to.contain('npm install lz4-napi');
    }
    // and an LZ4 body sent from here (the clone has lz4-napi) is stored for whoever has the codec: nothing was lost
    if (isCompressionAvailable(CompressionType.LZ4)) {
      const p = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: cluster!.namesrvAddr, instanceName: randomName('p'), compressType: 'LZ4' });
      await p.start();
      try {
        expect((await p.send(createMessage(topic, Buffer.alloc(8192, 'y')))).sendStatus).to.equal('SEND_OK');
      } finally {
        await p.shutdown();
      }
    }
  });

  it('the types compile from a CommonJS and an ES module file (module nodenext, strict, no skipLibCheck)', async () => {
    fs.writeFileSync(path.join(app, 'types.cts'), TYPES);
    fs.writeFileSync(path.join(app, 'types.mts'), TYPES);
    fs.writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {
        module: 'nodenext', moduleResolution: 'nodenext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: false,
        typeRoots: [path.join(REPO, 'node_modules/@types')], types: ['node'],
      },
      files: ['types.cts', 'types.mts'],
    }));
    const tsc = path.join(REPO, 'node_modules/typescript/bin/tsc');
    const r = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app, timeout: 120_000 }).catch((e: { stdout?: string; message: string }) => {
      throw new Error(`tsc failed: ${e.stdout ?? e.message}`);
    });
    expect(r.stdout).to.equal('');
  });

  it('the bundled servers start from the install without accelerators, each reported with its fallback and its npm install', async () => {
    fs.writeFileSync(path.join(app, 'server.cjs'), SERVER);
    const r = await runApp(app, 'server.cjs', []);
    const list = r.accelerators as Array<{ what: string; packageName: string; inUse: boolean; uses: string }>;
    const by = (p: string) => list.find((a) => a.packageName === p)!;
    expect(by('@riaskov/mmap-io')).to.deep.include({ inUse: false, uses: 'write segments (not installed)' });
    expect(by('@node-rs/crc32').inUse).to.equal(false);
    expect(by('@node-rs/crc32').uses).to.be.oneOf(['zlib.crc32', 'a table in JavaScript']);
    expect(by('lz4-napi')).to.deep.include({ inUse: false, uses: 'none' });
    // ZSTD: Node's own where it has it (22.15+), else none
    expect(by('@toondepauw/node-zstd').uses).to.be.oneOf(['node:zlib', 'none']);
  });
});
