/**
 * `rocketmq-ts broker -c broker.conf [-n namesrvAddr]`: the broker alone, configured by a Java broker.conf.
 *
 * @see org.apache.rocketmq.broker.BrokerStartup
 */
import { BrokerController } from '../broker/broker-controller';
import { type LoadedBrokerConf, applyBrokerProperties, loadBrokerConf } from '../broker/broker-config';
import { configureRootLogger } from '../logger';
import { debugEnabled, UsageError } from './cli-errors';
import { untilSignal } from './until-signal';

export const BROKER_USAGE = `usage: rocketmq-ts broker [-c broker.conf] [-n namesrvAddr] [--option=value ...]

  -c, --configFile FILE   Java broker.conf properties (BrokerConfig, MessageStoreConfig and server keys)
  -n, --namesrvAddr ADDR  name server list, "host:port;host:port"
  -h, --help              this help
  --<option>=<value>      any broker or store option (brokerName, listenPort, storePathRootDir, ...)
`;

export interface BrokerCliArgs {
  configFile?: string;
  namesrvAddr?: string;
  help: boolean;
  options: Map<string, string>;
}

export function parseBrokerArgs(argv: string[]): BrokerCliArgs {
  const out: BrokerCliArgs = { help: false, options: new Map() };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new UsageError(`option ${arg} needs a value`);
      return v;
    };
    if (arg === '-c' || arg === '--configFile') out.configFile = value();
    else if (arg === '-n' || arg === '--namesrvAddr') out.namesrvAddr = value();
    else if (arg === '-h' || arg === '--help') out.help = true;
    else if (arg.startsWith('--') && arg.includes('=')) {
      const eq = arg.indexOf('=');
      out.options.set(arg.slice(2, eq), arg.slice(eq + 1));
    } else throw new UsageError(`unknown option ${arg}`);
  }
  return out;
}

/** The broker.conf (if any), then --option=value, then -n; unknown keys are reported on stderr, not fatal. */
export async function brokerConfFromArgs(args: BrokerCliArgs): Promise<LoadedBrokerConf> {
  let props = new Map<string, string>();
  if (args.configFile) {
    const { readPropertiesFile } = await import('../util/properties-file');
    props = await readPropertiesFile(args.configFile);
  }
  for (const [k, v] of args.options) props.set(k, v);
  if (args.namesrvAddr) props.set('namesrvAddr', args.namesrvAddr);
  return applyBrokerProperties(props);
}


export async function runBroker(argv: string[]): Promise<number> {
  const args = parseBrokerArgs(argv);
  if (args.help) {
    process.stdout.write(BROKER_USAGE);
    return 0;
  }
  const conf = await brokerConfFromArgs(args);
  for (const key of conf.unknownKeys) process.stderr.write(`rocketmq-ts broker: unknown configuration key ignored: ${key}\n`);
  const logger = configureRootLogger({ level: 'info', stacks: debugEnabled() });
  const broker = new BrokerController({
    brokerConfig: conf.brokerConfig,
    messageStoreConfig: conf.messageStoreConfig,
    remotingServerConfig: conf.remotingServerConfig,
    logger,
  });
  await broker.start();
  const ns = conf.brokerConfig.namesrvAddr;
  return untilSignal(logger, () => broker.shutdown(), () => {
    process.stdout.write(`The broker[${conf.brokerConfig.brokerName}, ${broker.brokerAddr}] boot success. serializeType=JSON${ns ? ` and name server is ${ns}` : ''}\n`);
  });
}

export { loadBrokerConf };
