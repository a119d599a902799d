/**
 * One run at a time of a background job (a store's flush, its cleanup) that others wait out by awaiting the run
 * under way, never by polling: `tryRun` skips while a run is under way (a periodic service), `run` waits for it and
 * then runs (an explicit flush), `Exclusive.runAll` waits until several are idle together and runs while holding all
 * of them (a truncation no flush or cleanup may write beside). A run's error goes to its own caller only.
 */
export class Exclusive {
  #current: Promise<unknown> | null = null;

  /** True while a run holds the slot. */
  get busy(): boolean {
    return this.#current !== null;
  }

  /** Runs `fn` unless a run is under way; then resolves to undefined without running it. */
  tryRun<T>(fn: () => Promise<T>): Promise<T | undefined> {
    if (this.#current) return Promise.resolve(undefined);
    return this.#hold(started(fn));
  }

  /** Waits for the run under way (and any that began meanwhile), then runs `fn`. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    // checked again after each wait, in the same turn as the start: a run begun meanwhile is waited for too
    while (this.#current) await settled(this.#current);
    return this.#hold(started(fn));
  }

  /** Waits until every one of `slots` is idle at once, then runs `fn` holding all of them. */
  static async runAll<T>(slots: readonly Exclusive[], fn: () => Promise<T>): Promise<T> {
    for (;;) {
      const busy = slots.find((s) => s.#current !== null);
      if (!busy) break;
      await settled(busy.#current as Promise<unknown>);
    }
    const run = started(fn);
    for (const s of slots) s.#hold(run);
    return run;
  }

  #hold<T>(run: Promise<T>): Promise<T> {
    this.#current = run;
    const release = (): void => {
      if (this.#current === run) this.#current = null;
    };
    run.then(release, release);
    return run;
  }
}

/** `fn` run a microtask later: the slot is held before any of its code runs, and a synchronous throw rejects. */
function started<T>(fn: () => Promise<T>): Promise<T> {
  return Promise.resolve().then(fn);
}

function settled(p: Promise<unknown>): Promise<void> {
  return p.then(
    () => undefined,
    () => undefined,
  );
}
