/**
 * Logging through pino. Every component takes an optional logger and derives `componentLogger(name, parent)`.
 *
 * - The SDK is quiet: the default root logger writes to stderr at `ROCKETMQ_LOG_LEVEL`, default "warn" (a producer
 *   or consumer that works prints nothing); under mocha it is silent unless ROCKETMQ_LOG_LEVEL is set.
 * - The servers' commands call `configureRootLogger({ level: 'info' })`: short human lines on a terminal, JSON lines
 *   when stderr is not a terminal or `--log-format json` (ROCKETMQ_LOG_FORMAT=json) is given.
 * - `setRootLogger(app)` routes every logger into an application's pino instance, including module-level loggers
 *   created before the call (`moduleLogger`).
 * - A component logger derived from another component's logger replaces its `component` binding instead of adding a
 *   second one, so no line carries a key twice.
 * Frame dumps are logged at debug only when ROCKETMQ_DEBUG_FRAMES=1.
 */
import pino, { type Logger } from 'pino';
import { prettyStream } from './util/pretty-log';

export type { Logger };

export type LogFormat = 'pretty' | 'json';

let root: Logger | undefined;
/** Bumped by every root change, so module-level loggers re-derive their child. */
let generation = 0;

/** The logger a component logger was derived from (before its `component` binding), inherited by pino children. */
const BASE = Symbol('rocketmq-ts.baseLogger');
type Based = Logger & { [BASE]?: Logger };

function envLevel(fallback: string): string {
  if (process.env.ROCKETMQ_LOG_LEVEL) return process.env.ROCKETMQ_LOG_LEVEL;
  const underTest = typeof (globalThis as Record<string, unknown>).describe === 'function' || process.env.NODE_ENV === 'test';
  return underTest ? 'silent' : fallback;
}

/** The package's root logger (created on first use: stderr, JSON, level `warn` unless ROCKETMQ_LOG_LEVEL says). */
export function rootLogger(): Logger {
  if (!root) root = pino({ name: 'rocketmq-ts', level: envLevel('warn') }, pino.destination({ fd: 2, sync: false }));
  return root;
}

/** Replaces the root logger, e.g. to route logs into an application's own pino instance. */
export function setRootLogger(logger: Logger): void {
  root = logger;
  generation++;
}

export interface RootLoggerOptions {
  /** Level when ROCKETMQ_LOG_LEVEL is unset (servers: "info"). */
  level?: string;
  /** `pretty`: short human lines; `json`: pino's JSON lines; default: ROCKETMQ_LOG_FORMAT, else pretty when
   * `stream` is a terminal. */
  format?: LogFormat;
  /** Where lines go (default stderr, leaving stdout to the commands' own output). */
  stream?: NodeJS.WriteStream;
  /** Pretty lines show the stack of logged errors (`--debug`). */
  stacks?: boolean;
}

/** The logger a server command runs with: human lines on a terminal, JSON otherwise. Becomes the root logger. */
export function configureRootLogger(options: RootLoggerOptions = {}): Logger {
  const stream = options.stream ?? process.stderr;
  const envFormat = process.env.ROCKETMQ_LOG_FORMAT;
  const format = options.format ?? (envFormat === 'json' || envFormat === 'pretty' ? envFormat : stream.isTTY ? 'pretty' : 'json');
  const level = envLevel(options.level ?? 'info');
  // Server logs are a few lines a second: written synchronously, they stay in order with what the command prints
  // itself (a boot line, a one-line error) and none is lost when the process exits.
  const logger = format === 'pretty'
    ? pino({ name: 'rocketmq-ts', level }, prettyStream(stream, { colors: stream.isTTY === true, stacks: options.stacks }))
    : pino({ name: 'rocketmq-ts', level }, pino.destination({ fd: stream === process.stderr ? 2 : 1, sync: true }));
  setRootLogger(logger);
  return logger;
}

/** A child logger for one component, from the given parent or the root logger. */
export function componentLogger(component: string, parent?: Logger): Logger {
  const from = (parent ?? rootLogger()) as Based;
  const base = from[BASE];
  let child: Based;
  if (base) {
    // `from` is (a child of) another component's logger: keep its other bindings, replace its component.
    const bindings = from.bindings();
    const inherited = base.bindings();
    const own: Record<string, unknown> = {};
    for (const key of Object.keys(bindings)) {
      if (key !== 'component' && inherited[key] !== bindings[key]) own[key] = bindings[key];
    }
    own.component = component;
    child = base.child(own) as Based;
  } else {
    child = from.child({ component }) as Based;
  }
  child[BASE] = base ?? from;
  return child;
}

/**
 * A logger for module-level code (no owner to inject one): it follows the root logger, so `setRootLogger()` called
 * after the module loaded still reaches it.
 */
export function moduleLogger(component: string): Logger {
  let cached: Logger | undefined;
  let cachedGeneration = -1;
  const current = (): Logger => {
    if (!cached || cachedGeneration !== generation) {
      cached = componentLogger(component);
      cachedGeneration = generation;
    }
    return cached;
  };
  return new Proxy({} as Logger, {
    get(_target, prop) {
      const logger = current();
      const value = Reflect.get(logger, prop, logger) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(logger) : value;
    },
  });
}

export const debugFrames = process.env.ROCKETMQ_DEBUG_FRAMES === '1';
