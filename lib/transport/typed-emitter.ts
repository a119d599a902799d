/**
 * A typed facade over Node's EventEmitter: event names and listener signatures come from an interface.
 */
import { EventEmitter } from 'node:events';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Listener = (...args: any[]) => void;
export type EventMap = { [event: string]: Listener };

export class TypedEmitter<E extends EventMap> {
  readonly #emitter = new EventEmitter();

  /** Adds a listener and returns a function that removes it. */
  on<K extends keyof E & string>(event: K, listener: E[K]): () => void {
    this.#emitter.on(event, listener);
    return () => this.#emitter.off(event, listener);
  }

  once<K extends keyof E & string>(event: K, listener: E[K]): () => void {
    this.#emitter.once(event, listener);
    return () => this.#emitter.off(event, listener);
  }

  off<K extends keyof E & string>(event: K, listener: E[K]): void {
    this.#emitter.off(event, listener);
  }

  listenerCount<K extends keyof E & string>(event: K): number {
    return this.#emitter.listenerCount(event);
  }

  /** Calls the listeners; a listener that throws is reported to `onListenerError` and does not stop the others. */
  protected emit<K extends keyof E & string>(event: K, ...args: Parameters<E[K]>): void {
    for (const listener of this.#emitter.rawListeners(event) as Listener[]) {
      try {
        listener(...args);
      } catch (err) {
        this.onListenerError(event, err);
      }
    }
  }

  /** Subclasses log listener failures; the default rethrows asynchronously so nothing is swallowed silently. */
  protected onListenerError(_event: string, err: unknown): void {
    queueMicrotask(() => {
      throw err;
    });
  }
}
