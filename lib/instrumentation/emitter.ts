/**
 * Namespaced instrumentation events (`producer.send`, `consumer.rebalance`, `network.request_timeout`, ...).
 * Payloads are built only when someone listens (`hasListeners`), and `on()` returns its remover.
 */
export interface InstrumentationEvent<P> {
  id: number;
  type: string;
  timestamp: number;
  payload: P;
}

type Listener = (event: InstrumentationEvent<unknown>) => void;

let nextId = 0;

export class InstrumentationEmitter<Events extends Record<string, unknown>> {
  private readonly listeners = new Map<string, Set<Listener>>();

  on<K extends keyof Events & string>(type: K, listener: (event: InstrumentationEvent<Events[K]>) => void): () => void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(listener as Listener);
    return () => {
      set!.delete(listener as Listener);
      if (set!.size === 0) this.listeners.delete(type);
    };
  }

  hasListeners(type: keyof Events & string): boolean {
    return this.listeners.has(type);
  }

  /** Emits; `payload` may be a thunk so nothing is built when nobody listens. */
  emit<K extends keyof Events & string>(type: K, payload: Events[K] | (() => Events[K])): void {
    const set = this.listeners.get(type);
    if (!set) return;
    const event: InstrumentationEvent<Events[K]> = {
      id: nextId++,
      type,
      timestamp: Date.now(),
      payload: typeof payload === 'function' ? (payload as () => Events[K])() : payload,
    };
    for (const l of [...set]) {
      try {
        l(event as InstrumentationEvent<unknown>);
      } catch {
        // a listener's failure is not the emitter's business
      }
    }
  }

  removeAllListeners(): void {
    this.listeners.clear();
  }
}
