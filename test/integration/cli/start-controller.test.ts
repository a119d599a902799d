/**
 * `rocketmq-ts start --controller [--replicas N] [--controller-in-namesrv]` as a child process: a name server, a
 * controller (its own, or inside the name server) and N brokers of one broker set in controller mode, with the start
 * lines a person reads (the controller's address, each broker's controller id and role). A producer sends through
 * it (every replica holding each message: allAckInSyncStateSet); SIGINT stops everything cleanly with exit code 0.
 * The failover of such a set is tested in test/integration/ha/controller-cluster.test.ts. Plus the argument checks.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { parseStartArgs } from '../../../lib/cli/start';
import { ConfigError } from '../../../lib/errors';
import { DefaultMQAdminExt } from '../../../lib/admin/default-mq-admin-ext';
import { DefaultMQProducer } from '../../../lib/producer/default-mq-producer';
import { SendStatus } from '../../../lib/client/send-result';
import { newTopicConfig } from '../../../protocol/body/topic-config';
import { createMessage } from '../../../protocol/message/message';
import { randomName } from '../../helpers/cluster';
import { waitFor } from '../../helpers/wait-for';

const MAIN = path.resolve(__dirname, '../../../lib/cli/main.js');

interface Started { child: ChildProcess; stdout: string; stderr: () => string; exited: Promise<number | null> }

async function startCli(args: string[], home: string): Promise<Started> {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, ROCKETMQ_LOG_LEVEL: 'warn' };
  const child = spawn(process.execPath, [MAIN, 'start', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-8000); });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (/controller mode: .*\n/.test(stdout)) resolve();
    });
    void exited.then((code) => reject(new Error(`start exited ${code}: ${stderr}`)));
  });
  return { child, stdout, stderr: () => stderr, exited };
}

describe('cli: rocketmq-ts start --controller', function () {
  this.timeout(120_000);
  let home: string;
  let started: Started | null = null;
  beforeEach(() => { home = fs.mkdtempSync(path.join(os.tmpdir(), 'start-controller-')); });
  afterEach(async () => {
    if (started && started.child.exitCode === null && started.child.signalCode === null) {
      started.child.kill('SIGKILL');
      await started.exited;
    }
    started = null;
    fs.rmSync(home, { recursive: true, force: true });
  });

  const lines = (stdout: string): { namesrv: string; controller: string; brokers: string[] } => {
    const namesrv = stdout.match(/name server: (\S+)/)![1];
    const controller = stdout.match(/controller: {2}(\S+)/)![1];
    const brokers = [...stdout.matchAll(/broker: +(\S+) +cluster DefaultCluster, name broker-a, (.*)\n/g)].map((m) => `${m[1]} ${m[2]}`);
    return { namesrv, controller, brokers };
  };

  /** Sends `n` messages through the started set and checks each replica holds them (allAckInSyncStateSet). */
  const sendThrough = async (namesrvAddr: string, n: number): Promise<void> => {
    const admin = new DefaultMQAdminExt({ namesrvAddr, instanceName: randomName('adm') });
    const producer = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr, instanceName: randomName('p'), sendMsgTimeout: 5000 });
    try {
      await admin.start();
      let master = '';
      await waitFor(async () => {
        master = (await admin.examineBrokerClusterInfo()).brokerAddrTable.get('broker-a')?.brokerAddrs.get(0) ?? '';
        return master !== '';
      }, 30_000, 'the master in the name server', 200);
      const topic = randomName('SCT');
      await admin.createAndUpdateTopicConfig(master, newTopicConfig(topic, { readQueueNums: 4, writeQueueNums: 4 }));
      await producer.start();
      let ok = 0;
      await waitFor(async () => {
        const r = await producer.send(createMessage(topic, `m${ok}`)).catch(() => null);
        if (r?.sendStatus === SendStatus.SEND_OK) ok++;
        return ok >= n;
      }, 60_000, `${n} sends`, 50);
    } finally {
      await producer.shutdown();
      await admin.shutdown();
    }
  };

  it('a controller of its own and 2 replicas: start lines, sends, SIGINT', async () => {
    const store = path.join(home, 'store');
    started = await startCli(['--controller', '--namesrv-port', '0', '--broker-port', '0', '--controller-port', '0', '--store', store], home);
    const { namesrv, controller, brokers } = lines(started.stdout);
    expect(started.stdout).to.match(/controller: {2}127\.0\.0\.1:\d+ {3}\(controllerAddr=127\.0\.0\.1:\d+; DLedger group DefaultControllerGroup, node n0\)/);
    expect(brokers).to.have.length(2);
    expect(brokers[0]).to.match(/^127\.0\.0\.1:\d+ controller id 1, master \(epoch 1\), HA 127\.0\.0\.1:\d+$/);
    expect(brokers[1]).to.match(/^127\.0\.0\.1:\d+ controller id 2, slave of 127\.0\.0\.1:\d+$/);
    expect(brokers[1]).to.include(`slave of ${brokers[0].split(' ')[0]}`);
    expect(started.stdout).to.include('controller mode: allAckInSyncStateSet=true');
    expect(controller).to.match(/^127\.0\.0\.1:\d+$/);
    // the stores: one per replica, and the controller's log
    for (const d of ['replica0', 'replica1', 'controller']) expect(fs.existsSync(path.join(store, d)), d).to.equal(true);
    expect(fs.readFileSync(path.join(store, 'replica1', 'brokerIdentity'), 'utf8')).to.equal('DefaultCluster#broker-a#2');
    await sendThrough(namesrv, 20);
    started.child.kill('SIGINT');
    expect(await started.exited, started.stderr()).to.equal(0);
  });

  it('the controller inside the name server and 3 replicas', async () => {
    started = await startCli(['--controller', '--controller-in-namesrv', '--replicas', '3', '--namesrv-port', '0', '--broker-port', '0',
      '--controller-port', '0', '--store', path.join(home, 'store')], home);
    const { namesrv, brokers } = lines(started.stdout);
    expect(started.stdout).to.match(/controller: {2}127\.0\.0\.1:\d+ {3}\(controllerAddr=127\.0\.0\.1:\d+; inside the name server\)/);
    expect(brokers.map((b) => b.replace(/^\S+ /, '').replace(/ of \S+|, HA \S+/g, ''))).to.deep.equal([
      'controller id 1, master (epoch 1)', 'controller id 2, slave', 'controller id 3, slave']);
    await sendThrough(namesrv, 10);
    started.child.kill('SIGINT');
    expect(await started.exited, started.stderr()).to.equal(0);
  });

  it('parses --controller, --replicas, --controller-port and --controller-in-namesrv, and refuses what does not go together', () => {
    expect(parseStartArgs([])).to.include({ controller: false, replicas: 2, controllerPort: 9878, controllerInNamesrv: false });
    expect(parseStartArgs(['--controller', '--replicas', '3', '--controller-port', '0', '--controller-in-namesrv']))
      .to.include({ controller: true, replicas: 3, controllerPort: 0, controllerInNamesrv: true });
    expect(() => parseStartArgs(['--replicas', '2'])).to.throw(ConfigError, '--replicas goes with --controller');
    expect(() => parseStartArgs(['--controller-in-namesrv'])).to.throw(ConfigError, '--controller-in-namesrv goes with --controller');
    expect(() => parseStartArgs(['--controller', '--dledger', '3'])).to.throw(ConfigError, 'exclude each other');
    expect(() => parseStartArgs(['--controller', '--replicas', '0'])).to.throw(ConfigError, '--replicas needs a broker count 1..9');
    expect(() => parseStartArgs(['--controller', '--controller-port', 'x'])).to.throw(ConfigError, 'bad --controller-port');
  });
});
