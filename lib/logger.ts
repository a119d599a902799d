/**
 * Logging through pino. Every component takes an optional logger and derives `child({ component })`.
 * The default logger writes to stderr at `ROCKETMQ_LOG_LEVEL` (default "info"); under mocha it is silent
 * unless ROCKETMQ_LOG_LEVEL is set. Frame dumps are logged at debug only when ROCKETMQ_DEBUG_FRAMES=1.
 */
import pino, { type Logger } from 'pino';

export type { Logger };

let root: Logger | undefined;

function defaultLevel(): string {
  if (process.env.ROCKETMQ_LOG_LEVEL) return process.env.ROCKETMQ_LOG_LEVEL;
  const underTest = typeof (globalThis as Record<string, unknown>).describe === 'function' || process.env.NODE_ENV === 'test';
  return underTest ? 'silent' : 'info';
}

/** The package's root logger (created on first use). */
export function rootLogger(): Logger {
  if (!root) root = pino({ name: 'rocketmq-ts', level: defaultLevel() }, pino.destination({ fd: 2, sync: false }));
  return root;
}

/** Replaces the root logger, e.g. to route logs into an application's own pino instance. */
export function setRootLogger(logger: Logger): void {
  root = logger;
}

/** A child logger for one component, from the given parent or the root logger. */
export function componentLogger(component: string, parent?: Logger): Logger {
  return (parent ?? rootLogger()).child({ component });
}

export const debugFrames = process.env.ROCKETMQ_DEBUG_FRAMES === '1';
