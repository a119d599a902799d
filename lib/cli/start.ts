/**
 * `rocketmq-ts start [--namesrv-port P] [--broker-port Q] [--store DIR] [-c broker.conf]`: a name server and a
 * broker in one process with embedded defaults (name server 9876, broker 10911, store under ~/store as Java).
 * SIGINT/SIGTERM: the broker unregisters, persists its config and flushes the store, then the name server stops.
 */
import os from 'node:os';
import path from 'node:path';
import { BrokerController } from '../broker/broker-controller';
import { applyBrokerProperties } from '../broker/broker-config';
import { NamesrvController } from '../namesrv/namesrv-controller';
import { readPropertiesFile } from '../util/properties-file';
import { ConfigError } from '../errors';
import { configureRootLogger } from '../logger';
import { debugEnabled } from './cli-errors';
import { untilSignal } from './until-signal';

export const START_USAGE = `usage: rocketmq-ts start [--namesrv-port P] [--broker-port Q] [--grpc-port G] [--store DIR] [--dledger N] [-c broker.conf]

  --namesrv-port P   name server port (default 9876)
  --broker-port Q    broker port (default 10911)
  --grpc-port G      also serve RocketMQ 5.x gRPC clients on port G (broker.conf grpcServerPort; 0: any free port)
  --store DIR        store root (default ~/store)
  --dledger N        a DLedger group of N broker peers (ports Q, Q+10, ...; peers on 40911, 40912, ...; stores DIR/node00, ...)
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
  help: boolean;
}

export function parseStartArgs(argv: string[]): StartArgs {
  const out: StartArgs = { namesrvPort: 9876, dledger: 0, help: false };
  const port = (raw: string | undefined, name: string): number => {
    const n = Number(raw);
    if (raw === undefined || !Number.isInteger(n) || n < 0 || n > 65535) throw new ConfigError(`bad ${name}: ${raw}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--namesrv-port') out.namesrvPort = port(argv[++i], arg);
    else if (arg === '--broker-port') out.brokerPort = port(argv[++i], arg);
    else if (arg === '--grpc-port') out.grpcPort = port(argv[++i], arg);
    else if (arg === '--store') {
      const v = argv[++i];
      if (!v) throw new ConfigError('--store needs a directory');
      out.store = v;
    } else if (arg === '-c' || arg === '--configFile') {
      const v = argv[++i];
      if (!v) throw new ConfigError(`${arg} needs a file`);
      out.configFile = v;
    } else if (arg === '--dledger') {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 1 || n > 9) throw new ConfigError(`--dledger needs a peer count 1..9, got ${argv[i]}`);
      out.dledger = n;
    } else if (arg === '-h' || arg === '--help') out.help = true;
    else throw new ConfigError(`unknown option ${arg}`);
  }
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
  // The tls.* keys of broker.conf apply to both servers.
  const namesrv = new NamesrvController({
    listenPort: args.namesrvPort,
    kvConfigPath: path.join(home, 'namesrv', 'kvConfig.json'),
  }, { logger, ...(conf.remotingServerConfig.tls ? { tls: conf.remotingServerConfig.tls } : {}) });
  await namesrv.start();
  conf.brokerConfig.namesrvAddr = namesrv.address;
  const brokers: BrokerController[] = [];
  const peers = args.dledger;
  const dLegerPeers = Array.from({ length: peers }, (_, k) => `n${k}-127.0.0.1:${40911 + k}`).join(';');
  for (let k = 0; k < Math.max(1, peers); k++) {
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
    for (const b of brokers) await b.start();
  } catch (err) {
    for (const b of brokers) await b.shutdown().catch(() => undefined);
    await namesrv.shutdown();
    throw err;
  }
  return untilSignal(logger, async () => {
    for (const b of brokers) await b.shutdown();
    await namesrv.shutdown();
  }, () => {
    process.stdout.write(
      `rocketmq-ts is running (${Date.now() - t0} ms)\n` +
      `  name server: ${namesrv.address}   (NAMESRV_ADDR=${namesrv.address})\n` +
      brokers.map((b) => `  broker:      ${b.brokerAddr}   cluster ${conf.brokerConfig.brokerClusterName}, name ${conf.brokerConfig.brokerName}` +
        `${peers ? `, DLedger ${b.messageStoreConfig.dLegerSelfId}` : ''}\n` +
        (b.grpcEndpoint ? `  gRPC:        ${b.brokerConfig.brokerIP1}:${b.grpcEndpoint.port}   (5.x clients: endpoints=${b.brokerConfig.brokerIP1}:${b.grpcEndpoint.port})\n` : '')).join('') +
      `  store:       ${conf.messageStoreConfig.storePathRootDir}\n`,
    );
  });
}
