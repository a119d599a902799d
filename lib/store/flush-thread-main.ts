/**
 * The body of the store's flush thread (lib/store/flush-thread.ts): a worker that sleeps in Atomics.wait until the
 * main thread posts a file descriptor, fdatasyncs it, posts back the outcome and wakes the main thread. Nothing else
 * runs in it (no event loop turns between requests).
 */
import fs from 'node:fs';
import { workerData } from 'node:worker_threads';
import { FlushSlot } from './flush-thread-slots';

const slots = new Int32Array(workerData as SharedArrayBuffer);
let seen = 0;
for (;;) {
  Atomics.wait(slots, FlushSlot.REQUEST, seen);
  if (Atomics.load(slots, FlushSlot.STOP) !== 0) break;
  const request = Atomics.load(slots, FlushSlot.REQUEST);
  if (request === seen) continue;
  seen = request;
  let errno = 0;
  try {
    fs.fdatasyncSync(Atomics.load(slots, FlushSlot.FD));
  } catch (e) {
    errno = (e as NodeJS.ErrnoException).errno ?? -5;
  }
  Atomics.store(slots, FlushSlot.ERRNO, errno);
  Atomics.store(slots, FlushSlot.DONE, request);
  Atomics.notify(slots, FlushSlot.DONE);
}
