/**
 * `rocketmq-ts controller -c controller.conf [-P] [--option=value ...]`: runs the controller of controller mode
 * until SIGINT/SIGTERM. The file is Java's controller.conf (ControllerStartup's keys: controllerDLegerGroup,
 * controllerDLegerPeers, controllerDLegerSelfId, controllerStorePath, enableElectUncleanMaster,
 * notifyBrokerRoleChanged, scanNotActiveBrokerInterval, electMasterMaxRetryCount, ...). The controller answers on
 * its DLedger peer port, the one brokers' `controllerAddr` names.
 *
 * @see org.apache.rocketmq.controller.ControllerStartup
 */
import { configureRootLogger } from '../logger';
import { debugEnabled, UsageError } from './cli-errors';
import { untilSignal } from './until-signal';
import {
  type ControllerConfig, DEFAULT_CONTROLLER_CONFIG, controllerConfigToProperties, createControllerConfig, loadControllerProperties,
} from '../controller/controller-config';
import { ControllerManager } from '../controller/controller-manager';
import { applyProperties } from '../util/properties-file';

export const CONTROLLER_USAGE = `usage: rocketmq-ts controller -c controller.conf [-P] [--option=value ...]

  -c, --configFile FILE   Java controller.conf (controllerDLegerGroup, controllerDLegerPeers, controllerDLegerSelfId, ...)
  -P, --printConfigItem   print the configuration and exit
  -h, --help              this help
  --<option>=<value>      any controller option (controllerStorePath, enableElectUncleanMaster, ...)
`;

export interface ControllerCliArgs {
  configFile?: string;
  printConfigItem: boolean;
  help: boolean;
  options: Record<string, string>;
}

export function parseControllerArgs(argv: string[]): ControllerCliArgs {
  const out: ControllerCliArgs = { printConfigItem: false, help: false, options: {} };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '-c' || arg === '--configFile') {
      const v = argv[++i];
      if (v === undefined) throw new UsageError(`option ${arg} needs a value`);
      out.configFile = v;
    } else if (arg === '-P' || arg === '--printConfigItem' || arg === '-p') out.printConfigItem = true;
    else if (arg === '-h' || arg === '--help') out.help = true;
    else if (arg.startsWith('--') && arg.includes('=')) {
      const eq = arg.indexOf('=');
      out.options[arg.slice(2, eq)] = arg.slice(eq + 1);
    } else throw new UsageError(`unknown option ${arg}`);
  }
  return out;
}

/** Defaults, then the file, then --option=value (Java: the file, then the command line). Not yet validated. */
export async function controllerConfigFromArgs(args: ControllerCliArgs): Promise<ControllerConfig> {
  const config: ControllerConfig = args.configFile ? await loadControllerProperties(args.configFile) : { ...DEFAULT_CONTROLLER_CONFIG };
  const unknown = applyProperties(config, args.options);
  if (unknown.length > 0) throw new UsageError(`unknown controller option(s): ${unknown.join(', ')}`);
  return config;
}

/** Runs the subcommand; resolves with the exit code once the controller has shut down. */
export async function runController(argv: string[]): Promise<number> {
  const args = parseControllerArgs(argv);
  if (args.help) {
    process.stdout.write(CONTROLLER_USAGE);
    return 0;
  }
  const config = await controllerConfigFromArgs(args);
  if (args.printConfigItem) {
    process.stdout.write(controllerConfigToProperties(config));
    return 0;
  }
  const logger = configureRootLogger({ level: 'info', stacks: debugEnabled() });
  const manager = new ControllerManager(createControllerConfig(config), { logger });
  await manager.start();
  return untilSignal(logger, () => manager.shutdown(), () => {
    process.stdout.write(`The Controller Server boot success. serializeType=JSON address=${manager.address}\n`);
  });
}
