/**
 * One retry loop for the client paths that retry (the producer's sends, the name-server failover). The caller
 * states its policy as data and small functions; the loop owns counting and bookkeeping, so every path reports
 * the same things (attempts made, last error, why it ended).
 *
 * - `attempts`: how many attempts in all.
 * - `beforeAttempt(n)`: runs before attempt n (0-based); false ends the loop with `end: 'budget'` (a used-up time
 *   budget) without starting it.
 * - `accept(result, n)`: false keeps the result as the fallback and tries again (a stored-but-not-OK send with
 *   retryAnotherBrokerWhenNotStoreOK); true ends with `end: 'accepted'`. Default: accept.
 * - `onError(err, n, state)`: 'retry' goes on, 'stop' ends the loop (`end: 'stopped'`), 'throw' rethrows `err`
 *   at once. Default: the error's `retriable` flag ('retry' when true, else 'throw').
 *
 * Modelled on KafkaJS src/retry/index.js (`isErrorRetriable`), without its backoff: RocketMQ's clients retry at once,
 * on another broker.
 */
import { RocketMQError } from '../errors';

export type RetryDecision = 'retry' | 'stop' | 'throw';

export interface RetryState<T> {
  /** The last result not accepted, if any. */
  readonly result: T | undefined;
  readonly hasResult: boolean;
  /** The last error, if any. */
  readonly lastError: unknown;
}

export interface RetryPolicy<T> {
  readonly attempts: number;
  readonly beforeAttempt?: (attempt: number) => boolean;
  readonly accept?: (result: T, attempt: number) => boolean;
  readonly onError?: (err: unknown, attempt: number, state: RetryState<T>) => RetryDecision;
}

export interface RetryOutcome<T> extends RetryState<T> {
  /** The attempt index the loop ended at: attempts made, or the one refused by `beforeAttempt`. */
  readonly attempts: number;
  readonly end: 'accepted' | 'exhausted' | 'budget' | 'stopped';
}

/** Whether an error says that repeating the same operation may succeed (RocketMQError.retriable). */
export function isRetriable(err: unknown): boolean {
  return err instanceof RocketMQError && err.retriable;
}

const byFlag = (err: unknown): RetryDecision => (isRetriable(err) ? 'retry' : 'throw');

export async function retry<T>(fn: (attempt: number) => Promise<T>, policy: RetryPolicy<T>): Promise<RetryOutcome<T>> {
  const state: { result: T | undefined; hasResult: boolean; lastError: unknown } = { result: undefined, hasResult: false, lastError: undefined };
  const onError = policy.onError ?? byFlag;
  let n = 0;
  for (; n < policy.attempts; n++) {
    if (policy.beforeAttempt && !policy.beforeAttempt(n)) return { ...state, attempts: n, end: 'budget' };
    try {
      const result = await fn(n);
      if (!policy.accept || policy.accept(result, n)) return { result, hasResult: true, lastError: state.lastError, attempts: n + 1, end: 'accepted' };
      state.result = result;
      state.hasResult = true;
    } catch (err) {
      state.lastError = err;
      const decision = onError(err, n, state);
      if (decision === 'throw') throw err;
      if (decision === 'stop') return { ...state, attempts: n, end: 'stopped' };
    }
  }
  return { ...state, attempts: n, end: 'exhausted' };
}
