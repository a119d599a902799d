/**
 * How the server commands wait for SIGINT / SIGTERM and shut down.
 */
import { type Logger, componentLogger } from '../logger';

/**
 * Waits for SIGINT/SIGTERM, then runs `stop` and resolves with the exit code. `ready` (the boot line) runs once the
 * handlers are in place: a supervisor that signals as soon as it reads that line must not kill the process.
 */
export function untilSignal(logger: Logger, stop: () => Promise<void>, ready?: () => void): Promise<number> {
  return new Promise<number>((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      componentLogger('cli', logger).info({ signal }, 'shutting down');
      stop().then(() => resolve(0), (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        resolve(1);
      });
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    ready?.();
  });
}
