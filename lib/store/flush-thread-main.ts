/**
 * The body of the store's flush thread (lib/store/flush-thread.ts): a worker that sleeps in Atomics.wait until the
 * main thread posts a request, then fdatasyncs a descriptor, or writes zeros into a range of a file (the blocks a
 * mapped commit log reserves ahead of its appends), posts back the outcome and wakes the main thread. An fdatasync
 * posted while zeros are being written runs between two of those writes: a put never waits for more than one. Nothing else runs in it (no event loop turns between requests).
 */
import fs from 'node:fs';
import { workerData } from 'node:worker_threads';
import { FlushSlot, ZERO_CHUNK } from './flush-thread-slots';

const slots = new Int32Array(workerData as SharedArrayBuffer);
const zeros = Buffer.alloc(ZERO_CHUNK);
let flushSeen = 0;
let allocSeen = 0;

function errnoOf(e: unknown): number {
  return (e as NodeJS.ErrnoException).errno ?? -5;
}

/** Runs the fdatasync request posted since the last one, if any. */
function flushIfAsked(): boolean {
  const request = Atomics.load(slots, FlushSlot.REQUEST);
  if (request === flushSeen) return false;
  flushSeen = request;
  let errno = 0;
  try {
    fs.fdatasyncSync(Atomics.load(slots, FlushSlot.FD));
  } catch (e) {
    errno = errnoOf(e);
  }
  Atomics.store(slots, FlushSlot.ERRNO, errno);
  Atomics.store(slots, FlushSlot.DONE, request);
  Atomics.notify(slots, FlushSlot.DONE);
  return true;
}

/** Runs the zero-write request posted since the last one, if any: writes of ALLOC_UNIT, fdatasyncs between them. */
function allocateIfAsked(): boolean {
  const request = Atomics.load(slots, FlushSlot.ALLOC_REQUEST);
  if (request === allocSeen) return false;
  allocSeen = request;
  const fd = Atomics.load(slots, FlushSlot.ALLOC_FD);
  const from = Atomics.load(slots, FlushSlot.ALLOC_FROM);
  const to = Atomics.load(slots, FlushSlot.ALLOC_TO);
  const unit = Math.min(ZERO_CHUNK, Atomics.load(slots, FlushSlot.ALLOC_UNIT));
  let pos = from;
  let errno = 0;
  while (pos < to) {
    const n = Math.min(unit - (pos % unit), to - pos);
    try {
      const written = fs.writeSync(fd, zeros, 0, n, pos);
      pos += written;
      if (written < n) break;
    } catch (e) {
      errno = errnoOf(e);
      break;
    }
    flushIfAsked();
  }
  Atomics.store(slots, FlushSlot.ALLOC_WRITTEN, pos - from);
  Atomics.store(slots, FlushSlot.ALLOC_ERRNO, errno);
  Atomics.store(slots, FlushSlot.ALLOC_DONE, request);
  Atomics.notify(slots, FlushSlot.ALLOC_DONE);
  return true;
}

for (;;) {
  const wake = Atomics.load(slots, FlushSlot.WAKE);
  if (Atomics.load(slots, FlushSlot.STOP) !== 0) break;
  const flushed = flushIfAsked();
  const allocated = allocateIfAsked();
  if (!flushed && !allocated) Atomics.wait(slots, FlushSlot.WAKE, wake);
}
