/** The Int32 slots the store's flush thread and the main thread share (lib/store/flush-thread.ts). */
export const FlushSlot = {
  /** The number of the last request posted (the main thread counts up, then wakes the thread). */
  REQUEST: 0,
  /** The descriptor to fdatasync. */
  FD: 1,
  /** The number of the last request done (the thread sets it, then wakes the main thread). */
  DONE: 2,
  /** That request's outcome: 0, or the negative errno fdatasync failed with. */
  ERRNO: 3,
  /** Non-zero: the thread ends. */
  STOP: 4,
} as const;

export const FLUSH_SLOTS = 5;
