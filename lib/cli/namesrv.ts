/**
 * `rocketmq-ts namesrv [-c namesrv.properties] [-p port] [-P]`: runs the name server until SIGINT/SIGTERM.
 *
 *   -c, --configFile FILE   a Java namesrv.properties file (listenPort, kvConfigPath, orderMessageEnable, ...)
 *   -p, --listenPort PORT   the port to listen on (default 9876; overrides the file)
 *   -P, --printConfigItem   print every option with its value and exit (Java's `mqnamesrv -p`)
 *   --<option>=<value>      any other NamesrvConfig option, e.g. --kvConfigPath=/data/kvConfig.json
 *
 * @see org.apache.rocketmq.namesrv.NamesrvStartup
 */
import { configureRootLogger } from '../logger';
import { debugEnabled, UsageError } from './cli-errors';
import { untilSignal } from './until-signal';
import {
  DEFAULT_NAMESRV_CONFIG, type NamesrvConfig, createNamesrvConfig, loadNamesrvProperties, namesrvConfigToProperties,
} from '../namesrv/namesrv-config';
import { NamesrvController } from '../namesrv/namesrv-controller';
import { type ControllerConfig, DEFAULT_CONTROLLER_CONFIG, loadControllerProperties } from '../controller/controller-config';
import { applyProperties, readPropertiesFile } from '../util/properties-file';
import { TLS_KEYS, type TlsSystemConfig, partialTlsConfigFromProperties } from '../transport/tls-system-config';

export const NAMESRV_USAGE = `usage: rocketmq-ts namesrv [-c namesrv.properties] [-p port] [-P] [--option=value ...]

  -c, --configFile FILE   Java namesrv.properties file
  -p, --listenPort PORT   port to listen on (default ${DEFAULT_NAMESRV_CONFIG.listenPort})
  -P, --printConfigItem   print the configuration and exit
  -h, --help              this help
  --<option>=<value>      any name server option (kvConfigPath, orderMessageEnable, scanNotActiveBrokerInterval, ...)
`;

export interface NamesrvCliArgs {
  configFile?: string;
  listenPort?: number;
  printConfigItem: boolean;
  help: boolean;
  options: Record<string, string>;
}

export function parseNamesrvArgs(argv: string[]): NamesrvCliArgs {
  const out: NamesrvCliArgs = { printConfigItem: false, help: false, options: {} };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new UsageError(`option ${arg} needs a value`);
      return v;
    };
    if (arg === '-c' || arg === '--configFile') out.configFile = value();
    else if (arg === '-p' || arg === '--listenPort') {
      const raw = value();
      const port = Number(raw);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`bad port: ${raw}`);
      out.listenPort = port;
    } else if (arg === '-P' || arg === '--printConfigItem') out.printConfigItem = true;
    else if (arg === '-h' || arg === '--help') out.help = true;
    else if (arg.startsWith('--') && arg.includes('=')) {
      const eq = arg.indexOf('=');
      out.options[arg.slice(2, eq)] = arg.slice(eq + 1);
    } else throw new UsageError(`unknown option ${arg}`);
  }
  return out;
}

/** Builds the configuration from defaults, the properties file, --option=value and -p, in that order. */
export async function namesrvConfigFromArgs(args: NamesrvCliArgs): Promise<NamesrvConfig> {
  const config = createNamesrvConfig();
  if (args.configFile) await loadNamesrvProperties(args.configFile, config);
  const options = Object.fromEntries(Object.entries(args.options).filter(([k]) => !TLS_KEYS[k]));
  const unknown = applyProperties(config, options);
  if (unknown.length > 0) throw new UsageError(`unknown name server option(s): ${unknown.join(', ')}`);
  if (args.listenPort !== undefined) config.listenPort = args.listenPort;
  return createNamesrvConfig(config);
}

/** The tls.* keys of the properties file and of --tls.x=y options (Java passes them as system properties). */
export async function namesrvTlsFromArgs(args: NamesrvCliArgs): Promise<Partial<TlsSystemConfig>> {
  const props = args.configFile ? await readPropertiesFile(args.configFile) : new Map<string, string>();
  for (const [k, v] of Object.entries(args.options)) props.set(k, v);
  return partialTlsConfigFromProperties(props);
}

/** With enableControllerInNamesrv: the controller's keys from the same file (Java NamesrvStartup reads them there). */
export async function namesrvHostedControllerConfig(args: NamesrvCliArgs): Promise<ControllerConfig> {
  return args.configFile ? loadControllerProperties(args.configFile) : { ...DEFAULT_CONTROLLER_CONFIG };
}

/** Runs the subcommand; resolves with the exit code once the server has shut down. */
export async function runNamesrv(argv: string[]): Promise<number> {
  const args = parseNamesrvArgs(argv);
  if (args.help) {
    process.stdout.write(NAMESRV_USAGE);
    return 0;
  }
  const config = await namesrvConfigFromArgs(args);
  if (args.printConfigItem) {
    process.stdout.write(namesrvConfigToProperties(config));
    return 0;
  }
  const logger = configureRootLogger({ level: 'info', stacks: debugEnabled() });
  const controllerConfig = config.enableControllerInNamesrv ? await namesrvHostedControllerConfig(args) : undefined;
  const controller = new NamesrvController(config, { logger, tls: await namesrvTlsFromArgs(args), controllerConfig });
  await controller.start();
  return untilSignal(logger, () => controller.shutdown(), () => {
    process.stdout.write(`The Name Server boot success. serializeType=JSON address=${controller.address}\n`);
  });
}
