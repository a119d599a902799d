/**
 * The one background-loop helper every periodic task uses (Java's ServiceThread / scheduled executors):
 * runs `task` every `intervalMillis` (first run after `initialDelayMillis`), never overlapping itself, with
 * an unref()ed timer that `stop()` clears. A task that throws is logged and the loop goes on.
 */
import type { Logger } from '../logger';

export interface ServiceLoopOptions {
  name: string;
  intervalMillis: number;
  initialDelayMillis?: number;
  logger?: Logger;
}

export class ServiceLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private wakeRequested = false;

  constructor(private readonly options: ServiceLoopOptions, private readonly task: () => Promise<void> | void) {}

  get isRunning(): boolean {
    return !this.stopped;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(this.options.initialDelayMillis ?? this.options.intervalMillis);
  }

  /** Runs the task as soon as possible (after the current run, if one is under way). */
  wakeup(): void {
    if (this.stopped) return;
    if (this.running) {
      this.wakeRequested = true;
      return;
    }
    this.schedule(0);
  }

  /** Stops the loop and waits for a run under way to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.running) await this.running;
  }

  private schedule(delay: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.runOnce();
    }, delay);
    this.timer.unref();
  }

  private async runOnce(): Promise<void> {
    if (this.stopped || this.running) return;
    this.running = (async () => {
      try {
        await this.task();
      } catch (err) {
        this.options.logger?.error({ err, service: this.options.name }, 'service loop task failed');
      }
    })();
    await this.running;
    this.running = null;
    if (this.stopped) return;
    if (this.wakeRequested) {
      this.wakeRequested = false;
      this.schedule(0);
    } else {
      this.schedule(this.options.intervalMillis);
    }
  }
}
