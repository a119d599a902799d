/**
 * Records the AutoSwitch HA stream between two Java 5.3.3 brokers in controller mode (the golden data of
 * test/unit/protocol/ha/autoswitch-ha-codec.test.ts). Our controller and name server run in process; the name server
 * hands the slave a TCP proxy's address as the master's HA address (REGISTER_BROKER's haServerAddr is rewritten),
 * and the proxy writes what passes each way, unchanged, to
 * `<out>/slave-to-master.bin` and `<out>/master-to-slave.bin`, with `<out>/index.json` (ids, offsets, bodies sent);
 * and each broker's GET_BROKER_EPOCH_CACHE answer body (`get-broker-epoch-cache.json`) and each store's
 * `brokerIdentity` and `epochFileCheckpoint` to `<out>/master/` and `<out>/slave/`.
 *
 *   node dist/test/helpers/capture-autoswitch-ha.js test/fixtures/golden/ha-autoswitch-5.3.3
 *
 * Never regenerate these files from our own encoder.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ControllerManager } from '../../lib/controller';
import { freePort } from '../../lib/cluster';
import { NamesrvController } from '../../lib/namesrv/namesrv-controller';
import { DefaultMQProducer } from '../../lib/index';
import { createMessage } from '../../protocol/message/message';
import { RemotingClient } from '../../lib/transport';
import { RemotingCommand } from '../../protocol/remoting-command';
import { RequestCode } from '../../protocol/code/request-code';
import { freeBrokerPort, javaSkipReason, startJavaBroker, type JavaBroker } from './javaref';
import { waitFor } from './wait-for';

interface Recorded {
  s2m: Buffer[];
  m2s: Buffer[];
}

async function proxy(target: number, conns: Recorded[]): Promise<net.Server> {
  const server = net.createServer((client) => {
    const rec: Recorded = { s2m: [], m2s: [] };
    conns.push(rec);
    const up = net.connect(target, '127.0.0.1');
    client.on('data', (d) => {
      rec.s2m.push(Buffer.from(d));
      up.write(d);
    });
    up.on('data', (d) => {
      rec.m2s.push(Buffer.from(d));
      client.write(d);
    });
    const end = () => {
      client.destroy();
      up.destroy();
    };
    client.on('close', end);
    up.on('close', end);
    client.on('error', end);
    up.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

async function main(out: string): Promise<void> {
  const skip = javaSkipReason('5.3.3');
  if (skip) throw new Error(skip);
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'capture-autoswitch-'));
  const namesrv = new NamesrvController({ listenPort: 0, bindAddress: '127.0.0.1', kvConfigPath: path.join(dir, 'kv.json'), configStorePath: path.join(dir, 'ns.properties') });
  await namesrv.start();
  const cport = await freePort();
  const cm = new ControllerManager({
    controllerDLegerGroup: 'cg', controllerDLegerPeers: `n0-127.0.0.1:${cport}`, controllerDLegerSelfId: 'n0', controllerStorePath: path.join(dir, 'controller'),
    configStorePath: path.join(dir, 'controller.properties'), mappedFileSize: 1024 * 1024, scanNotActiveBrokerInterval: 1000, scanInactiveMasterInterval: 1000,
  });
  await cm.start();
  await waitFor(() => cm.isLeaderState, 10_000, 'the controller to lead');
  const ports = [await freeBrokerPort([1]), 0];
  ports[1] = await freeBrokerPort([1]);
  while (ports[1] === ports[0] || Math.abs(ports[1] - ports[0]) <= 2) ports[1] = await freeBrokerPort([1]);
  const conns: Recorded[] = [];
  const proxies = new Map<string, string>();
  const servers: net.Server[] = [];
  for (const p of ports) {
    const s = await proxy(p + 1, conns);
    servers.push(s);
    proxies.set(`127.0.0.1:${p + 1}`, `127.0.0.1:${(s.address() as net.AddressInfo).port}`);
  }
  const rim = namesrv.routeInfoManager;
  const register = rim.registerBroker.bind(rim);
  rim.registerBroker = (args) => register({ ...args, haServerAddr: proxies.get(args.haServerAddr) ?? args.haServerAddr });

  const brokerName = 'cap';
  const conf = {
    brokerClusterName: 'CC', brokerName, enableControllerMode: true, controllerAddr: cm.address, brokerIP2: '127.0.0.1',
    syncBrokerMetadataPeriod: 1000, checkSyncStateSetPeriod: 1000, syncControllerMetadataPeriod: 2000, controllerHeartBeatTimeoutMills: 6000,
    brokerHeartbeatInterval: 500, haMaxTimeSlaveNotCatchup: 6000, mappedFileSizeCommitLog: 16 * 1024 * 1024, mappedFileSizeConsumeQueue: 60000,
  };
  const javas: JavaBroker[] = [];
  let producer: DefaultMQProducer | null = null;
  try {
    javas.push(await startJavaBroker('5.3.3', { namesrvAddr: namesrv.address, brokerName, conf, listenPort: ports[0], storeDir: path.join(dir, 'j1') }));
    await waitFor(() => rim.brokerAddrTable.get(brokerName)?.brokerAddrs.get(0) === javas[0].addr, 60_000, 'the first Java broker as master');
    const topic = 'CaptureTopic';
    producer = new DefaultMQProducer({ producerGroup: 'capture-pg', namesrvAddr: namesrv.address, instanceName: 'capture', sendMsgTimeout: 3000, pollNameServerInterval: 200 });
    await producer.start();
    const bodies: string[] = [];
    let sent = 0;
    await waitFor(async () => {
      try {
        await producer!.send(createMessage(topic, `before-slave-${sent}`));
        bodies.push(`before-slave-${sent}`);
        sent++;
      } catch { /* topic being created */ }
      return sent >= 5;
    }, 60_000, '5 sends before the slave', 100);
    javas.push(await startJavaBroker('5.3.3', { namesrvAddr: namesrv.address, brokerName, conf, listenPort: ports[1], storeDir: path.join(dir, 'j2') }));
    const sse = () => cm.controller.replicasInfoManager.syncStateSetInfoTable.get(brokerName)!;
    await waitFor(() => sse().syncStateSet.size === 2, 60_000, 'the slave in the SyncStateSet');
    for (let i = 0; i < 5; i++) {
      await producer.send(createMessage(topic, `with-slave-${i}`));
      bodies.push(`with-slave-${i}`);
    }
    // a few heartbeats and the acknowledgements of the last sends
    await new Promise((r) => setTimeout(r, 8000));
    const rec = conns.find((c) => c.s2m.length > 0 && c.m2s.length > 0);
    if (!rec) throw new Error('no HA connection passed the proxy');
    await fs.promises.mkdir(out, { recursive: true });
    await fs.promises.writeFile(path.join(out, 'slave-to-master.bin'), Buffer.concat(rec.s2m));
    await fs.promises.writeFile(path.join(out, 'master-to-slave.bin'), Buffer.concat(rec.m2s));
    const info = cm.controller.replicasInfoManager.replicaInfoTable.get(brokerName)!;
    const masterId = sse().masterBrokerId;
    const slaveId = [...info.brokerIdInfo.keys()].find((id) => id !== masterId);
    await fs.promises.writeFile(path.join(out, 'index.json'), `${JSON.stringify({
      about: 'AutoSwitch HA stream between two Java 5.3.3 brokers in controller mode, recorded by test/helpers/capture-autoswitch-ha.ts through a TCP proxy; whole streams of one connection, unchanged',
      masterBrokerId: masterId, slaveBrokerId: slaveId, masterEpoch: sse().masterEpoch, topic, bodies,
      slaveToMasterChunks: rec.s2m.map((b) => b.length), masterToSlaveChunks: rec.m2s.map((b) => b.length), connections: conns.length,
    }, null, 1)}\n`);
    // GET_BROKER_EPOCH_CACHE answered by both (the answer's body)
    const client = new RemotingClient();
    try {
      for (const j of javas) {
        const res = await client.invoke(j.addr, RemotingCommand.createRequest(RequestCode.GET_BROKER_EPOCH_CACHE, null), 5000);
        if (res.code !== 0 || !res.body) throw new Error(`GET_BROKER_EPOCH_CACHE: ${res.code} ${res.remark}`);
        const role = j === javas[0] ? (masterId === 1 ? 'master' : 'slave') : (masterId === 1 ? 'slave' : 'master');
        await fs.promises.mkdir(path.join(out, role), { recursive: true });
        await fs.promises.writeFile(path.join(out, role, 'get-broker-epoch-cache.json'), res.body);
      }
    } finally {
      await client.shutdown();
    }
    // the identity and epoch files of both stores, as Java wrote them (after a clean stop)
    await producer.shutdown();
    producer = null;
    for (const j of javas.splice(0)) await j.stop();
    for (const [role, store] of [[masterId === 1 ? 'master' : 'slave', 'j1'], [masterId === 1 ? 'slave' : 'master', 'j2']] as const) {
      await fs.promises.mkdir(path.join(out, role), { recursive: true });
      for (const f of ['brokerIdentity', 'epochFileCheckpoint']) await fs.promises.copyFile(path.join(dir, store, f), path.join(out, role, f));
    }
    console.log(`wrote ${out}: ${Buffer.concat(rec.s2m).length} bytes slave->master, ${Buffer.concat(rec.m2s).length} bytes master->slave`);
  } finally {
    await producer?.shutdown();
    for (const j of javas) await j.stop();
    await cm.shutdown();
    await namesrv.shutdown();
    for (const s of servers) s.close();
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

main(process.argv[2] ?? 'test/fixtures/golden/ha-autoswitch-5.3.3').then(() => process.exit(0), (err: unknown) => {
  console.error(err);
  process.exit(1);
});
