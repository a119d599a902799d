/**
 * Idempotent start/shutdown that merges concurrent calls: `start()` twice starts once; `shutdown()` while
 * starting waits for the start, then shuts down (nothing to shut down when that start failed: a failed start undoes
 * what it did); shutdown after shutdown is a no-op, and start after shutdown starts again.
 */
export class Lifecycle {
  private state: 'created' | 'starting' | 'running' | 'stopping' | 'stopped' = 'created';
  private starting: Promise<void> | null = null;
  private stopping: Promise<void> | null = null;

  constructor(private readonly doStart: () => Promise<void>, private readonly doShutdown: () => Promise<void>) {}

  get isRunning(): boolean {
    return this.state === 'running';
  }

  get current(): string {
    return this.state;
  }

  start(): Promise<void> {
    if (this.state === 'running') return Promise.resolve();
    if (this.starting) return this.starting;
    if (this.stopping) return this.stopping.then(() => this.start());
    this.state = 'starting';
    this.starting = this.doStart().then(
      () => {
        this.state = 'running';
        this.starting = null;
      },
      (err: unknown) => {
        this.state = 'stopped';
        this.starting = null;
        throw err;
      },
    );
    return this.starting;
  }

  shutdown(): Promise<void> {
    if (this.stopping) return this.stopping;
    if (this.state === 'created' || this.state === 'stopped') return Promise.resolve();
    let started = true;
    const wait = this.starting ? this.starting.catch(() => { started = false; }) : Promise.resolve();
    this.state = 'stopping';
    this.stopping = wait
      .then(() => (started ? this.doShutdown() : undefined))
      .finally(() => {
        this.state = 'stopped';
        this.stopping = null;
      });
    return this.stopping;
  }
}
