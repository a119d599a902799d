/**
 * `rocketmq-ts start [--namesrv-port P] [--broker-port Q] [--store DIR] [-c broker.conf]`: a name server and a
 * broker in one process with embedded defaults (name server 9876, broker 10911, store under ~/store as Java).
 * `--dledger N`: a DLedger group of N peers instead; `--controller [--replicas N]`: a controller (its own, or the
 * name server's with `--controller-in-namesrv`) and a broker set of N replicas in controller mode.
 * SIGINT/SIGTERM: the broker unregisters, persists its config and flushes the store, then the name server stops.
 */
import os from 'node:os';
import path from 'node:path';
import { BrokerController } from '../broker/broker-controller';
import { applyBrokerProperties } from '../broker/broker-config';
import { NamesrvController } from '../namesrv/namesrv-controller';
import { readPropertiesFile } from '../util/properties-file';
import { ControllerManager } from '../controller/controller-manager';
import type { ControllerConfig } from '../controller/controller-config';
import { freePort } from '../cluster';
import { configureRootLogger } from '../logger';
import { debugEnabled, UsageError } from './cli-errors';
import { untilSignal } from './until-signal';

export const START_USAGE = `usage: rocketmq-ts start [--namesrv-port P] [--broker-port Q] [--grpc-port G] [--store DIR] [--dledger N]
                         [--controller [--replicas N] [--controller-port C] [--controller-in-namesrv]] [-c broker.conf]

  --namesrv-port P   name server port (default 9876)
  --broker-port Q    broker port (default 10911)
  --grpc-port G      also serve RocketMQ 5.x gRPC clients on port G (broker.conf grpcServerPort; 0: any free port)
  --store DIR        store root (default ~/store)
  --dledger N        a DLedger group of N broker peers (ports Q, Q+10, ...; peers on 40911, 40912, ...; stores DIR/node00, ...)
  --controller       controller mode: a controller and a broker set of --replicas brokers (ports Q, Q+10, ...; HA on
                     the port + 1; stores DIR/replica0, ...) with enableControllerMode and allAckInSyncStateSet
  --replicas N       brokers of the controller-mode set (default 2)
  --controller-port C  the controller's port (default 9878; 0: any free port); its store DIR/controller
  --controller-in-namesrv  run the controller inside the name server (enableControllerInNamesrv)
  -c FILE            Java broker.conf for everything else
`;

export interface StartArgs {
  namesrvPort: number;
  brokerPort?: number;
  /** The gRPC endpoint's port (grpcServerPort). */
  grpcPort?: number;
  store?: string;
  configFile?: string;
  /** Peers of a DLedger group (0: one plain broker). */
  dledger: number;
  /** Controller mode: a controller and `replicas` brokers in one broker set. */
  controller: boolean;
  replicas: number;
  controllerPort: number;
  controllerInNamesrv: boolean;
  help: boolean;
}

export function parseStartArgs(argv: string[]): StartArgs {
  const out: StartArgs = { namesrvPort: 9876, dledger: 0, controller: false, replicas: 2, controllerPort: 9878, controllerInNamesrv: false, help: false };
  let controllerOnly: string | null = null;
  const port = (raw: string | undefined, name: string): number => {
    const n = Number(raw);
    if (raw === undefined || !Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError(`bad ${name}: ${raw}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--namesrv-port') out.namesrvPort = port(argv[++i], arg);
    else if (arg === '--broker-port') out.brokerPort = port(argv[++i], arg);
    else if (arg === '--grpc-port') out.grpcPort = port(argv[++i], arg);
    else if (arg === '--store') {
      const v = argv[++i];
      if (!v) throw new UsageError('--store needs a directory');
      out.store = v;
    } else if (arg === '-c' || arg === '--configFile') {
      const v = argv[++i];
      if (!v) throw new UsageError(`${arg} needs a file`);
      out.configFile = v;
    } else if (arg === '--dledger') {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 1 || n > 9) throw new UsageError(`--dledger needs a peer count 1..9, got ${argv[i]}`);
      out.dledger = n;
    } else if (arg === '--controller') out.controller = true;
    else if (arg === '--replicas') {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 1 || n > 9) throw new UsageError(`--replicas needs a broker count 1..9, got ${argv[i]}`);
      out.replicas = n;
      controllerOnly = arg;
    } else if (arg === '--controller-port') {
      out.controllerPort = port(argv[++i], arg);
      controllerOnly = arg;
    } else if (arg === '--controller-in-namesrv') {
      out.controllerInNamesrv = true;
      controllerOnly = arg;
    } else if (arg === '-h' || arg === '--help') out.help = true;
    else throw new UsageError(`unknown option ${arg}`);
  }
  if (controllerOnly && !out.controller) throw new UsageError(`${controllerOnly} goes with --controller`);
  if (out.controller && out.dledger) throw new UsageError('--controller and --dledger exclude each other');
  return out;
}

export async function runStart(argv: string[]): Promise<number> {
  const t0 = Date.now();
  const args = parseStartArgs(argv);
  if (args.help) {
    process.stdout.write(START_USAGE);
    return 0;
  }
  const props = args.configFile ? await readPropertiesFile(args.configFile) : new Map<string, string>();
  if (args.store) props.set('storePathRootDir', path.resolve(args.store));
  if (args.brokerPort !== undefined) props.set('listenPort', String(args.brokerPort));
  if (args.grpcPort !== undefined) props.set('grpcServerPort', String(args.grpcPort));
  if (!props.has('brokerIP1')) props.set('brokerIP1', '127.0.0.1');
  if (!props.has('brokerName')) props.set('brokerName', 'broker-a');
  const conf = applyBrokerProperties(props);
  for (const key of conf.unknownKeys) process.stderr.write(`rocketmq-ts start: unknown configuration key ignored: ${key}\n`);
  const logger = configureRootLogger({ level: 'info', stacks: debugEnabled() });
  const home = os.homedir();
  const storeRoot = conf.messageStoreConfig.storePathRootDir;
  // Controller mode: one DLedger node of Java's controller.conf keys, its log under the store root.
  let controllerConfig: Partial<ControllerConfig> | null = null;
  if (args.controller) {
    const cport = args.controllerPort || await freePort();
    controllerConfig = {
      controllerDLegerGroup: 'DefaultControllerGroup', controllerDLegerPeers: `n0-127.0.0.1:${cport}`, controllerDLegerSelfId: 'n0',
      controllerStorePath: path.join(storeRoot, 'controller'), configStorePath: path.join(storeRoot, 'controller', 'controller.properties'),
    };
  }
  // The tls.* keys of broker.conf apply to both servers.
  const namesrv = new NamesrvController({
    listenPort: args.namesrvPort,
    kvConfigPath: path.join(home, 'namesrv', 'kvConfig.json'),
    ...(args.controllerInNamesrv ? { enableControllerInNamesrv: true } : {}),
  }, {
    logger, ...(conf.remotingServerConfig.tls ? { tls: conf.remotingServerConfig.tls } : {}),
    ...(args.controllerInNamesrv && controllerConfig ? { controllerConfig } : {}),
  });
  await namesrv.start();
  let controller = namesrv.controllerManager;
  if (controllerConfig && !controller) {
    controller = new ControllerManager(controllerConfig, { logger });
    try {
      await controller.start();
    } catch (err) {
      await controller.shutdown();
      await namesrv.shutdown();
      throw err;
    }
  }
  const ownController = controller !== namesrv.controllerManager ? controller : null;
  conf.brokerConfig.namesrvAddr = namesrv.address;
  const brokers: BrokerController[] = [];
  if (controller) {
    for (let k = 0; k < args.replicas; k++) {
      const root = path.join(storeRoot, `replica${k}`);
      const port = conf.brokerConfig.listenPort === 0 ? 0 : conf.brokerConfig.listenPort + 10 * k;
      const grpcServerPort = conf.brokerConfig.grpcServerPort > 0 ? conf.brokerConfig.grpcServerPort + 10 * k : conf.brokerConfig.grpcServerPort;
      brokers.push(new BrokerController({
        brokerConfig: {
          ...conf.brokerConfig, listenPort: port, storePathRootDir: root, grpcServerPort, enableControllerMode: true,
          controllerAddr: props.has('controllerAddr') ? conf.brokerConfig.controllerAddr : controller.address,
          brokerIP2: props.has('brokerIP2') ? conf.brokerConfig.brokerIP2 : conf.brokerConfig.brokerIP1,
        },
        messageStoreConfig: {
          ...conf.messageStoreConfig, storePathRootDir: root, storePathCommitLog: '',
          allAckInSyncStateSet: props.has('allAckInSyncStateSet') ? conf.messageStoreConfig.allAckInSyncStateSet : true,
        },
        remotingServerConfig: { ...conf.remotingServerConfig, listenPort: port },
        logger,
      }));
    }
  }
  const peers = controller ? 0 : args.dledger;
  const dLegerPeers = Array.from({ length: peers }, (_, k) => `n${k}-127.0.0.1:${40911 + k}`).join(';');
  for (let k = 0; k < (controller ? 0 : Math.max(1, peers)); k++) {
    const root = peers ? path.join(conf.messageStoreConfig.storePathRootDir, `node0${k}`) : conf.messageStoreConfig.storePathRootDir;
    const port = peers ? (args.brokerPort ?? conf.brokerConfig.listenPort) + 10 * k : conf.brokerConfig.listenPort;
    // The gRPC endpoint: one per peer, on G, G+10, ... like the remoting ports.
    const grpcServerPort = conf.brokerConfig.grpcServerPort > 0 && peers ? conf.brokerConfig.grpcServerPort + 10 * k : conf.brokerConfig.grpcServerPort;
    brokers.push(new BrokerController({
      brokerConfig: { ...conf.brokerConfig, listenPort: port, storePathRootDir: root, grpcServerPort },
      messageStoreConfig: peers
        ? { ...conf.messageStoreConfig, storePathRootDir: root, storePathCommitLog: '', enableDLegerCommitLog: true, dLegerGroup: conf.brokerConfig.brokerName, dLegerPeers, dLegerSelfId: `n${k}` }
        : conf.messageStoreConfig,
      remotingServerConfig: { ...conf.remotingServerConfig, listenPort: port },
      logger,
    }));
  }
  try {
    // One after the other: in controller mode the first to ask for an election is the first master.
    for (const b of brokers) await b.start();
  } catch (err) {
    for (const b of brokers) await b.shutdown().catch(() => undefined);
    await ownController?.shutdown();
    await namesrv.shutdown();
    throw err;
  }
  const role = (b: BrokerController): string => {
    const rm = b.replicasManager;
    if (!rm) return '';
    const id = rm.brokerControllerId === null ? 'no id yet' : `controller id ${rm.brokerControllerId}`;
    const what = rm.isMasterState ? `master (epoch ${rm.masterEpoch}), HA ${b.brokerConfig.brokerIP2 || b.brokerConfig.brokerIP1}:${rm.haListenPort}`
      : rm.masterAddress ? `slave of ${rm.masterAddress}` : 'no role yet';
    return `, ${id}, ${what}`;
  };
  return untilSignal(logger, async () => {
    for (const b of brokers) await b.shutdown();
    await ownController?.shutdown();
    await namesrv.shutdown();
  }, () => {
    process.stdout.write(
      `rocketmq-ts is running (${Date.now() - t0} ms)\n` +
      `  name server: ${namesrv.address}   (NAMESRV_ADDR=${namesrv.address})\n` +
      (controller ? `  controller:  ${controller.address}   (controllerAddr=${controller.address}; ${ownController ? 'DLedger group DefaultControllerGroup, node n0' : 'inside the name server'})\n` : '') +
      brokers.map((b) => `  broker:      ${b.brokerAddr}   cluster ${conf.brokerConfig.brokerClusterName}, name ${conf.brokerConfig.brokerName}` +
        `${peers ? `, DLedger ${b.messageStoreConfig.dLegerSelfId}` : ''}${role(b)}\n` +
        (b.grpcEndpoint ? `  gRPC:        ${b.brokerConfig.brokerIP1}:${b.grpcEndpoint.port}   (5.x clients: endpoints=${b.brokerConfig.brokerIP1}:${b.grpcEndpoint.port})\n` : '')).join('') +
      `  store:       ${conf.messageStoreConfig.storePathRootDir}\n` +
      (controller ? `  controller mode: allAckInSyncStateSet=${brokers[0].messageStoreConfig.allAckInSyncStateSet}; the SyncStateSet grows as slaves catch up\n` : ''),
    );
  });
}
