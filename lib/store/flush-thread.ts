/**
 * The SYNC_FLUSH group commit's fdatasync on a thread of its own, as Java's GroupCommitService is a thread woken by a
 * latch: a worker (lib/store/flush-thread-main.ts) sleeps in Atomics.wait on a few shared Int32 slots; a flush posts
 * the file descriptor and wakes it, the worker fdatasyncs and wakes the main thread back (Atomics.waitAsync). On a
 * quiet machine that round trip costs about what libuv's threadpool's does (each wake about 20-25 µs on this
 * project's VMs); under load it was the shorter one. Small flushes skip it while the disk is fast (inline syncs below).
 *
 * The same thread writes the zeros a mapped commit log reserves its blocks with (MappedFile's allocation ahead). While
 * the puts come one at a time it writes them a page per write, so each leaves a one-page folio in the page cache and
 * the fdatasync after a lone 1 KiB put writes one or two pages, not the 16 of a 64 KiB folio (Java's store writes
 * about 5 KB per such put); page-sized writes through the threadpool would cost the event loop a callback per page.
 * An fdatasync posted meanwhile runs between two of those writes.
 *
 * One request of each kind runs at a time; others queue behind it. The worker is unref'd while idle (it never keeps a
 * process alive) and ref'd while a request is out (Atomics.waitAsync alone does not keep the event loop alive). When
 * the thread cannot start or dies, both go through the threadpool.
 *
 * **Inline syncs.** A small fdatasync (a lone put's, up to INLINE_MAX_BYTES) runs on the event loop itself while the
 * disk answers fast: every one of the last INLINE_STREAK fdatasyncs took at most INLINE_FAST_MICROS, none is out on
 * the thread, and no zeros were written since the last one (their pages would go with it). On this project's 2-core
 * VMs waking another thread and being woken back costs about as much as the fdatasync itself (a lone put: 80 µs on the
 * loop against 170 µs through the thread, and 40 % less CPU). As Redis's `appendfsync always`, the loop waits for the
 * disk meanwhile, a lone put's worth; a slower answer ends inline syncs until the disk has been fast again for a
 * streak, so a disk that stalls holds the loop for at most the one fdatasync that met the stall.
 *
 * @see org.apache.rocketmq.store.CommitLog.GroupCommitService
 */
import fs from 'node:fs';
import path from 'node:path';
import { getSystemErrorName } from 'node:util';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { MessageStoreError } from '../errors';
import { FLUSH_SLOTS, FlushSlot, ZERO_CHUNK, ZERO_PAGE } from './flush-thread-slots';

/** Atomics.waitAsync (ES2024; in Node since 16): not in this project's TypeScript lib yet. */
type WaitAsync = (ta: Int32Array, index: number, value: number) =>
  { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };
const waitAsync = (Atomics as unknown as { waitAsync?: WaitAsync }).waitAsync;

/** Syncs of at most this many appended bytes may run inline (a lone 1 KiB put, or a few). */
export const INLINE_MAX_BYTES = 16 * 1024;
/** An fdatasync that took longer than this (µs; through the thread, from the request to its answer, a wait behind another included) ends the fast streak. */
export const INLINE_FAST_MICROS = 1000;
/** Fast fdatasyncs in a row before they may run inline (again). */
export const INLINE_STREAK = 16;

/** fdatasync or a write of zeros failed on the flush thread: `code` is the errno's name (EIO, ENOSPC, ...). */
export class FlushFailedError extends MessageStoreError {
  constructor(readonly syscall: string, readonly code: string, readonly errno: number) {
    super(`${syscall} failed: ${code}`);
  }
}

/** How MappedFile syncs a descriptor and reserves blocks, when not through the threadpool. */
export interface DataSyncer {
  /** `bytes`: how many appended bytes this fdatasync covers (the flush thread sizes its writes of zeros by them). */
  datasync(fd: number, bytes?: number): Promise<void>;
  /**
   * Writes zeros into `[from, to)` of `fd` (positions below 2^31); resolves with the bytes written from `from` on
   * (fewer on a full disk), rejects when none could be.
   */
  writeZeros?(fd: number, from: number, to: number): Promise<number>;
}

/** One kind of request (fdatasync, zeros): its slots, the request out and the queue behind it. */
interface Channel {
  readonly request: number;
  readonly done: number;
  pending: { retry: () => Promise<unknown>; resolve: (v: never) => void; reject: (e: unknown) => void } | null;
  tail: Promise<void> | null;
}

export class FlushThread implements DataSyncer {
  #worker: Worker | null = null;
  #slots: Int32Array | null = null;
  #requests = 0;
  readonly #flush: Channel = { request: FlushSlot.REQUEST, done: FlushSlot.DONE, pending: null, tail: null };
  readonly #alloc: Channel = { request: FlushSlot.ALLOC_REQUEST, done: FlushSlot.ALLOC_DONE, pending: null, tail: null };
  /** Requests queued or out, both kinds: the worker is ref'd while there are any. */
  #queued = 0;
  #closed = false;
  /** Why the thread is not used (it could not start or it died); the threadpool serves then. */
  failure: Error | null = null;
  /** fdatasyncs done by the thread (tests count them). */
  syncs = 0;
  /** fdatasyncs done inline, on the event loop (tests count them). */
  inlineSyncs = 0;
  /** An fdatasync slower than this (µs) ends the fast streak: INLINE_FAST_MICROS (tests set their own). */
  inlineFastMicros = INLINE_FAST_MICROS;
  /** fdatasyncs in a row that took at most inlineFastMicros. */
  #fastStreak = 0;
  /** Zeros were written since the last fdatasync (their dirty pages go with the next one). */
  #zerosSinceSync = false;
  /** Zero-write requests done by the thread, and the bytes they wrote (tests count them). */
  zeroWrites = 0;
  zeroBytes = 0;

  constructor(private readonly log: Logger) {}

  /** Starts the worker ahead of the first request (which would start it otherwise). Idempotent; no-op once closed. */
  start(): void {
    if (!this.#closed && waitAsync) this.#start();
  }

  /** True while the worker runs (started by start() or the first request). */
  get running(): boolean {
    return this.#worker !== null;
  }

  /** Bytes covered per fdatasync, a moving average (1/8 of each new one). */
  #bytesPerSync = 0;

  /**
   * The size of the writes of zeros: a page while fdatasyncs cover less than half of 64 KiB each (lone puts: each
   * re-dirties one or two one-page folios instead of a 64 KiB one), 64 KiB when they cover more (many puts per
   * fdatasync write whole folios anyway, and a 64 KiB folio costs the kernel less per byte, writes and writeback).
   */
  get zeroUnit(): number {
    return this.#bytesPerSync < ZERO_CHUNK / 2 ? ZERO_PAGE : ZERO_CHUNK;
  }

  /** fdatasync(fd) on the flush thread; `fd` must stay open until this settles. */
  datasync(fd: number, bytes = 0): Promise<void> {
    this.#bytesPerSync += (bytes - this.#bytesPerSync) / 8;
    if (this.#closed || this.failure || !waitAsync) return poolDatasync(fd);
    if (bytes <= INLINE_MAX_BYTES && this.#fastStreak >= INLINE_STREAK && !this.#zerosSinceSync && this.#flush.tail === null) {
      return this.#inlineSync(fd);
    }
    const t0 = performance.now();
    return this.#enqueue(this.#flush, () => this.#postSync(fd)).then(() => this.#timed(t0), (err: unknown) => {
      this.#fastStreak = 0;
      throw err;
    });
  }

  /** fdatasync on the event loop (see the inline syncs above). */
  #inlineSync(fd: number): Promise<void> {
    const t0 = performance.now();
    try {
      fs.fdatasyncSync(fd);
    } catch (e) {
      this.#fastStreak = 0;
      const err = e as NodeJS.ErrnoException;
      return Promise.reject(new FlushFailedError('fdatasync', err.code ?? 'EIO', err.errno ?? -5));
    }
    this.inlineSyncs++;
    this.#timed(t0);
    return Promise.resolve();
  }

  /** Counts a successful fdatasync begun at `t0` into the fast streak. */
  #timed(t0: number): void {
    // It wrote the zeros' pages, unless more are still being written.
    if (this.#alloc.tail === null) this.#zerosSinceSync = false;
    if ((performance.now() - t0) * 1000 <= this.inlineFastMicros) this.#fastStreak++;
    else this.#fastStreak = 0;
  }

  /** Zeros into `[from, to)` of `fd`, in writes of zeroUnit; `fd` must stay open until this settles. */
  writeZeros(fd: number, from: number, to: number): Promise<number> {
    this.#zerosSinceSync = true;
    if (this.#closed || this.failure || !waitAsync) return poolWriteZeros(fd, from, to);
    return this.#enqueue(this.#alloc, () => this.#postZeros(fd, from, to)).finally(() => {
      this.#zerosSinceSync = true;
    });
  }

  #enqueue<T>(ch: Channel, post: () => Promise<T>): Promise<T> {
    this.#queued++;
    const run = ch.tail ? ch.tail.then(post) : post();
    const tail: Promise<void> = run.then(() => this.#dequeue(ch, tail), () => this.#dequeue(ch, tail));
    ch.tail = tail;
    return run;
  }

  #dequeue(ch: Channel, tail: Promise<void>): void {
    if (--this.#queued === 0) this.#worker?.unref();
    if (ch.tail === tail) ch.tail = null;
  }

  #postSync(fd: number): Promise<void> {
    const slots = this.#start();
    if (!slots) return poolDatasync(fd);
    Atomics.store(slots, FlushSlot.FD, fd);
    return this.#post(slots, this.#flush, () => poolDatasync(fd), () => {
      const errno = Atomics.load(slots, FlushSlot.ERRNO);
      if (errno !== 0) throw new FlushFailedError('fdatasync', systemErrorName(errno), errno);
      this.syncs++;
    });
  }

  #postZeros(fd: number, from: number, to: number): Promise<number> {
    const slots = this.#start();
    if (!slots) return poolWriteZeros(fd, from, to);
    Atomics.store(slots, FlushSlot.ALLOC_FD, fd);
    Atomics.store(slots, FlushSlot.ALLOC_FROM, from);
    Atomics.store(slots, FlushSlot.ALLOC_TO, to);
    Atomics.store(slots, FlushSlot.ALLOC_UNIT, this.zeroUnit);
    return this.#post(slots, this.#alloc, () => poolWriteZeros(fd, from, to), () => {
      const written = Atomics.load(slots, FlushSlot.ALLOC_WRITTEN);
      const errno = Atomics.load(slots, FlushSlot.ALLOC_ERRNO);
      if (written === 0 && errno !== 0) throw new FlushFailedError('write', systemErrorName(errno), errno);
      this.zeroWrites++;
      this.zeroBytes += written;
      return written;
    });
  }

  /** Posts the request whose arguments are in the slots, wakes the thread, and reads the outcome once it is done. */
  #post<T>(slots: Int32Array, ch: Channel, retry: () => Promise<T>, outcome: () => T): Promise<T> {
    const request = Atomics.load(slots, ch.request) + 1;
    Atomics.store(slots, ch.request, request);
    Atomics.store(slots, FlushSlot.WAKE, ++this.#requests);
    this.#worker!.ref();
    Atomics.notify(slots, FlushSlot.WAKE, 1);
    return new Promise<T>((resolve, reject) => {
      ch.pending = { retry, resolve: resolve as (v: never) => void, reject };
      const settle = (): void => {
        if (!ch.pending) return;
        ch.pending = null;
        try {
          resolve(outcome());
        } catch (e) {
          reject(e);
        }
      };
      const wait = waitAsync!(slots, ch.done, request - 1);
      if (wait.async) void wait.value.then(settle);
      else settle();
    });
  }

  /** The shared slots, starting the worker first; null when it cannot start (the threadpool serves then). */
  #start(): Int32Array | null {
    if (this.#slots) return this.#slots;
    if (this.failure) return null;
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

  /** The thread is gone: the requests out and later ones go through the threadpool. */
  #fail(err: Error): void {
    if (this.failure) return;
    this.failure = err;
    this.log.error({ err }, 'flush thread failed: fdatasync goes through the threadpool');
    this.#worker = null;
    this.#slots = null;
    for (const ch of [this.#flush, this.#alloc]) {
      const p = ch.pending;
      ch.pending = null;
      if (p) p.retry().then(p.resolve as (v: unknown) => void, p.reject);
    }
  }

  /** Ends the thread once the requests out are answered. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    while (this.#flush.tail || this.#alloc.tail) await (this.#flush.tail ?? this.#alloc.tail);
    const worker = this.#worker;
    const slots = this.#slots;
    this.#worker = null;
    this.#slots = null;
    if (!worker || !slots) return;
    Atomics.store(slots, FlushSlot.STOP, 1);
    Atomics.add(slots, FlushSlot.WAKE, 1);
    Atomics.notify(slots, FlushSlot.WAKE, 1);
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

const POOL_ZEROS = Buffer.alloc(64 * 1024);

/** Zeros into `[from, to)` through libuv's threadpool (at most 64 KiB: the caller asks again for the rest). */
function poolWriteZeros(fd: number, from: number, to: number): Promise<number> {
  const n = Math.min(POOL_ZEROS.length, to - from);
  return new Promise<number>((resolve, reject) => fs.write(fd, POOL_ZEROS, 0, n, from, (err, written) => {
    if (err) reject(err);
    else if (written === 0) reject(new MessageStoreError('no space to write zeros'));
    else resolve(written);
  }));
}
