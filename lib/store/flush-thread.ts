/**
 * The SYNC_FLUSH group commit's fdatasync on a thread of its own, as Java's GroupCommitService is a thread woken by a
 * latch: a worker (lib/store/flush-thread-main.ts) sleeps in Atomics.wait on a few shared Int32 slots; a flush posts
 * the file descriptor and wakes it, the worker fdatasyncs and wakes the main thread back (Atomics.waitAsync). That
 * round trip is about half of libuv's threadpool's (queue, wake a pool thread, then the loop's async handle) on this
 * project's 2-core machines, and it is the whole cost of a lone SYNC_FLUSH put besides the fdatasync itself.
 *
 * One request runs at a time (the group commit flushes one file after another); others queue behind it. The worker
 * is unref'd while idle (it never keeps a process alive) and ref'd while a request is out (Atomics.waitAsync alone
 * does not keep the event loop alive). When the thread cannot start or dies, fdatasync goes through the threadpool.
 *
 * @see org.apache.rocketmq.store.CommitLog.GroupCommitService
 */
import fs from 'node:fs';
import path from 'node:path';
import { getSystemErrorName } from 'node:util';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { MessageStoreError } from '../errors';
import { FLUSH_SLOTS, FlushSlot } from './flush-thread-slots';

/** Atomics.waitAsync (ES2024; in Node since 16): not in this project's TypeScript lib yet. */
type WaitAsync = (ta: Int32Array, index: number, value: number) =>
  { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };
const waitAsync = (Atomics as unknown as { waitAsync?: WaitAsync }).waitAsync;

/** fdatasync failed on the flush thread: `code` is the errno's name (EIO, ENOSPC, ...). */
export class FlushFailedError extends MessageStoreError {
  constructor(readonly code: string, readonly errno: number) {
    super(`fdatasync failed: ${code}`);
  }
}

/** The file descriptors' sync, as MappedFile uses it. */
export interface DataSyncer {
  datasync(fd: number): Promise<void>;
}

interface Pending {
  fd: number;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export class FlushThread implements DataSyncer {
  #worker: Worker | null = null;
  #slots: Int32Array | null = null;
  #request = 0;
  /** The request out, settled by the worker's answer (or its exit). */
  #pending: Pending | null = null;
  /** The end of the queue of requests (each waits for the one before). */
  #tail: Promise<void> | null = null;
  #queued = 0;
  #closed = false;
  /** Why the thread is not used (it could not start or it died); fdatasync goes through the threadpool then. */
  failure: Error | null = null;
  /** fdatasyncs answered by the thread (tests count them). */
  syncs = 0;

  constructor(private readonly log: Logger) {}

  /** True while the worker runs (started by the first datasync). */
  get running(): boolean {
    return this.#worker !== null;
  }

  /** fdatasync(fd) on the flush thread; `fd` must stay open until this settles. */
  datasync(fd: number): Promise<void> {
    if (this.#closed || this.failure || !waitAsync) return poolDatasync(fd);
    this.#queued++;
    const run = this.#tail ? this.#tail.then(() => this.#post(fd)) : this.#post(fd);
    const tail: Promise<void> = run.then(() => this.#dequeue(tail), () => this.#dequeue(tail));
    this.#tail = tail;
    return run;
  }

  #dequeue(tail: Promise<void>): void {
    if (--this.#queued === 0) this.#worker?.unref();
    if (this.#tail === tail) this.#tail = null;
  }

  #post(fd: number): Promise<void> {
    const slots = this.#start();
    if (!slots || !this.#worker) return poolDatasync(fd);
    const request = ++this.#request;
    Atomics.store(slots, FlushSlot.FD, fd);
    Atomics.store(slots, FlushSlot.REQUEST, request);
    this.#worker.ref();
    Atomics.notify(slots, FlushSlot.REQUEST, 1);
    return new Promise<void>((resolve, reject) => {
      this.#pending = { fd, resolve, reject };
      const settle = (): void => {
        if (!this.#pending) return;
        this.#pending = null;
        const errno = Atomics.load(slots, FlushSlot.ERRNO);
        if (errno !== 0) {
          reject(new FlushFailedError(systemErrorName(errno), errno));
          return;
        }
        this.syncs++;
        resolve();
      };
      const wait = waitAsync!(slots, FlushSlot.DONE, request - 1);
      if (wait.async) void wait.value.then(settle);
      else settle();
    });
  }

  /** The shared slots, starting the worker first; null when it cannot start (the threadpool syncs then). */
  #start(): Int32Array | null {
    if (this.#slots) return this.#slots;
    const slots = new Int32Array(new SharedArrayBuffer(FLUSH_SLOTS * Int32Array.BYTES_PER_ELEMENT));
    try {
      const worker = new Worker(path.join(__dirname, 'flush-thread-main.js'), { workerData: slots.buffer, stdout: false, stderr: false });
      worker.unref();
      worker.on('error', (err) => this.#fail(err));
      worker.on('exit', (code) => {
        if (!this.#closed) this.#fail(new MessageStoreError(`the flush thread exited (code ${code})`));
      });
      this.#worker = worker;
      this.#slots = slots;
      return slots;
    } catch (e) {
      this.#fail(e as Error);
      return null;
    }
  }

  /** The thread is gone: the request out and later ones go through the threadpool. */
  #fail(err: Error): void {
    if (this.failure) return;
    this.failure = err;
    this.log.error({ err }, 'flush thread failed: fdatasync goes through the threadpool');
    this.#worker = null;
    this.#slots = null;
    const p = this.#pending;
    this.#pending = null;
    if (p) poolDatasync(p.fd).then(p.resolve, p.reject);
  }

  /** Ends the thread once the requests out are answered. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    while (this.#tail) await this.#tail;
    const worker = this.#worker;
    const slots = this.#slots;
    this.#worker = null;
    this.#slots = null;
    if (!worker || !slots) return;
    Atomics.store(slots, FlushSlot.STOP, 1);
    Atomics.notify(slots, FlushSlot.REQUEST, 1);
    await worker.terminate();
  }
}

function systemErrorName(errno: number): string {
  try {
    return getSystemErrorName(errno);
  } catch {
    return `errno ${errno}`;
  }
}

/** fdatasync through libuv's threadpool. */
function poolDatasync(fd: number): Promise<void> {
  return new Promise<void>((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));
}
