/** The Int32 slots the store's flush thread and the main thread share (lib/store/flush-thread.ts). */
export const FlushSlot = {
  /** Counted up by the main thread after it posts any request (the thread sleeps on it). */
  WAKE: 0,
  /** The number of the last fdatasync request posted. */
  REQUEST: 1,
  /** The descriptor to fdatasync. */
  FD: 2,
  /** The number of the last fdatasync request done (the thread sets it, then wakes the main thread). */
  DONE: 3,
  /** That request's outcome: 0, or the negative errno fdatasync failed with. */
  ERRNO: 4,
  /** Non-zero: the thread ends. */
  STOP: 5,
  /** The number of the last zero-write request posted: zeros into [ALLOC_FROM, ALLOC_TO) of ALLOC_FD. */
  ALLOC_REQUEST: 6,
  ALLOC_FD: 7,
  ALLOC_FROM: 8,
  ALLOC_TO: 9,
  /** The number of the last zero-write request done, the bytes it wrote from ALLOC_FROM on, and its errno (or 0). */
  ALLOC_DONE: 10,
  ALLOC_WRITTEN: 11,
  ALLOC_ERRNO: 12,
  /** The size of each write of zeros of that request (a power of two; writes are aligned to it). */
  ALLOC_UNIT: 13,
} as const;

export const FLUSH_SLOTS = 14;

/** Zeros written a page per write leave one-page folios in the page cache (see FlushThread.zeroUnit). */
export const ZERO_PAGE = 4096;
/** The largest write of zeros (a 64 KiB folio each). */
export const ZERO_CHUNK = 64 * 1024;
