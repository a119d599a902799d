/**
 * `rocketmq-ts controller -c controller.conf` and `rocketmq-ts namesrv` with `enableControllerInNamesrv=true` as
 * child processes: they read Java's keys from the file, serve on the controller's DLedger port, and a controller
 * killed with SIGKILL comes back with its state replayed from its log.
 */
import { expect } from 'chai';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../../lib/cluster';
import { RemotingClient } from '../../../lib/transport';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { ApplyBrokerIdRequestHeader, GetMetaDataResponseHeader, GetNextBrokerIdRequestHeader, GetNextBrokerIdResponseHeader } from '../../../protocol/header';
import { waitFor } from '../../helpers/wait-for';

const MAIN = path.resolve(__dirname, '..', '..', '..', 'lib', 'cli', 'main.js');

interface Child { child: ChildProcess; output(): string; stop(): Promise<void> }

function spawnCli(args: string[], home: string): Child {
  const child = spawn(process.execPath, [MAIN, ...args], { env: { ...process.env, HOME: home, ROCKETMQ_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => { out += d; });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => { out += d; });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    child,
    output: () => out,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

describe('controller: the rocketmq-ts controller command and enableControllerInNamesrv', function () {
  this.timeout(60_000);
  let dir: string;
  const children: Child[] = [];
  const client = new RemotingClient();

  beforeEach(async () => {
    dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'controller-cli-'));
  });
  afterEach(async () => {
    for (const c of children.splice(0)) await c.stop();
    await fs.promises.rm(dir, { recursive: true, force: true });
  });
  after(() => client.shutdown());

  const metadata = async (addr: string) => GetMetaDataResponseHeader.decode((await client.invoke(addr, RemotingCommand.createRequest(RequestCode.CONTROLLER_GET_METADATA_INFO, null), 3000)).extFields);
  const nextId = async (addr: string) => {
    const r = await client.invoke(addr, RemotingCommand.createRequest(RequestCode.CONTROLLER_GET_NEXT_BROKER_ID, GetNextBrokerIdRequestHeader.encode({ clusterName: 'C', brokerName: 'bs' })), 3000);
    return r.code === ResponseCode.SUCCESS ? GetNextBrokerIdResponseHeader.decode(r.extFields).nextBrokerId : -r.code;
  };

  it('prints the configuration read from controller.conf with -p', () => {
    const conf = path.join(dir, 'controller.conf');
    fs.writeFileSync(conf, 'controllerDLegerGroup=g1\ncontrollerDLegerPeers=n0-127.0.0.1:19999\ncontrollerDLegerSelfId=n0\nenableElectUncleanMaster=true\nnotifyBrokerRoleChanged=false\nprocessReadEvent=true\n');
    const out = execFileSync(process.execPath, [MAIN, 'controller', '-c', conf, '-p'], { encoding: 'utf8' });
    for (const line of ['controllerDLegerGroup=g1', 'controllerDLegerPeers=n0-127.0.0.1:19999', 'enableElectUncleanMaster=true', 'notifyBrokerRoleChanged=false',
      'processReadEvent=true', 'scanNotActiveBrokerInterval=5000', 'electMasterMaxRetryCount=3']) {
      expect(out).to.contain(`${line}\n`);
    }
  });

  it('serves on its DLedger port, and after SIGKILL a restarted controller has the broker ids it had', async () => {
    const port = await freePort();
    const addr = `127.0.0.1:${port}`;
    const conf = path.join(dir, 'controller.conf');
    fs.writeFileSync(conf, `controllerDLegerGroup=g1\ncontrollerDLegerPeers=n0-${addr}\ncontrollerDLegerSelfId=n0\ncontrollerStorePath=${path.join(dir, 'store')}\n`
      + 'mappedFileSize=1048576\ncontrollerDLegerMinVoteIntervalMs=20\ncontrollerDLegerMaxVoteIntervalMs=60\n');
    const first = spawnCli(['controller', '-c', conf], dir);
    children.push(first);
    await waitFor(() => /The Controller Server boot success/.test(first.output()), 20_000, 'the boot line');
    await waitFor(async () => (await nextId(addr)) === 1, 10_000, 'the controller to lead');
    expect(await metadata(addr)).to.deep.include({ group: 'g1', controllerLeaderId: 'n0', controllerLeaderAddress: addr, isLeader: true });
    for (const id of [1, 2]) {
      const r = await client.invoke(addr, RemotingCommand.createRequest(RequestCode.CONTROLLER_APPLY_BROKER_ID,
        ApplyBrokerIdRequestHeader.encode({ clusterName: 'C', brokerName: 'bs', appliedBrokerId: id, registerCheckCode: `127.0.0.1:${id};1` })), 3000);
      expect(r.code, r.remark ?? '').to.equal(ResponseCode.SUCCESS);
    }
    expect(await nextId(addr)).to.equal(3);
    await first.stop();
    const second = spawnCli(['controller', '-c', conf], dir);
    children.push(second);
    await waitFor(async () => (await nextId(addr).catch(() => -1)) === 3, 20_000, 'the restarted controller to lead with the replayed state');
  });

  it('runs inside the name server with enableControllerInNamesrv=true, the name server answering on its own port', async () => {
    const [nsPort, cPort] = [await freePort(), await freePort()];
    const conf = path.join(dir, 'namesrv.properties');
    fs.writeFileSync(conf, `listenPort=${nsPort}\nkvConfigPath=${path.join(dir, 'kv.json')}\nenableControllerInNamesrv=true\n`
      + `controllerDLegerGroup=g2\ncontrollerDLegerPeers=n0-127.0.0.1:${cPort}\ncontrollerDLegerSelfId=n0\ncontrollerStorePath=${path.join(dir, 'cstore')}\n`
      + 'mappedFileSize=1048576\ncontrollerDLegerMinVoteIntervalMs=20\ncontrollerDLegerMaxVoteIntervalMs=60\n');
    const ns = spawnCli(['namesrv', '-c', conf], dir);
    children.push(ns);
    await waitFor(() => /The Name Server boot success/.test(ns.output()), 20_000, 'the boot line');
    await waitFor(async () => (await nextId(`127.0.0.1:${cPort}`).catch(() => -1)) === 1, 10_000, 'the hosted controller to lead');
    expect((await metadata(`127.0.0.1:${cPort}`)).group).to.equal('g2');
    const cluster = await client.invoke(`127.0.0.1:${nsPort}`, RemotingCommand.createRequest(RequestCode.GET_BROKER_CLUSTER_INFO, null), 3000);
    expect(cluster.code).to.equal(ResponseCode.SUCCESS);
    // the name server's port does not serve the controller's codes
    const wrong = await client.invoke(`127.0.0.1:${nsPort}`, RemotingCommand.createRequest(RequestCode.CONTROLLER_GET_METADATA_INFO, null), 3000);
    expect(wrong.code).to.equal(ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
  });
});
