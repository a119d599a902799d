/**
 * How the `rocketmq-ts` command reports a failure: one line a person can act on (port in use, a file that is not
 * there, a bad configuration value, a server that cannot be reached); the stack only with `--debug`.
 */
import { ConfigError } from '../errors';

/** A mistake on the command line (an unknown option, a missing or malformed value): exit code 2. */
export class UsageError extends ConfigError {}

/**
 * The exit code for a command that failed with `err`: 2 for a usage mistake (ours, or Node's parseArgs refusing an
 * option), 1 for anything else.
 */
export function exitCodeOf(err: unknown): number {
  if (err instanceof UsageError) return 2;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_') ? 2 : 1;
}

/** Whether `--debug` (or ROCKETMQ_DEBUG=1) asked for stacks. */
export function debugEnabled(): boolean {
  return process.env.ROCKETMQ_DEBUG === '1';
}

/** One line for an error, worded for the person at the terminal. */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const e = err as NodeJS.ErrnoException & { address?: string; port?: number };
  switch (e.code) {
    case 'EADDRINUSE':
      return `port ${e.port ?? '?'} is already in use${e.address ? ` on ${e.address}` : ''}: stop what holds it or choose another port`;
    case 'EACCES':
      return e.syscall === 'listen'
        ? `no permission to listen on port ${e.port ?? '?'}: use a port above 1024`
        : `permission denied: ${e.path ?? e.message}`;
    case 'EADDRNOTAVAIL':
      return `address ${e.address ?? ''} is not available on this machine`;
    case 'ENOENT':
      return `no such file or directory: ${e.path ?? e.message}`;
    case 'EISDIR':
      return `is a directory, not a file: ${e.path ?? e.message}`;
    default:
      break;
  }
  // Our typed errors (ConfigError, RemotingConnectError, MQClientError...) carry a message meant for people.
  return err.message || err.name;
}

/** The text to print for an error: `describeError`, plus the stack when debugging. */
export function errorReport(err: unknown, prefix = 'rocketmq-ts'): string {
  const line = `${prefix}: ${describeError(err)}\n`;
  if (debugEnabled() && err instanceof Error && err.stack) return `${line}${err.stack}\n`;
  return line;
}
