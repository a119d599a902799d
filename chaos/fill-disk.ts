/** A filler file that takes a file system to a given share of its size (the disk-full chaos scenario). */
import * as fs from 'node:fs';

/**
 * Grows `filler` until the file system at `mnt` is `ratio` full, a MiB at a time: the broker keeps writing (and
 * reserving its commit log's next blocks) meanwhile, so a filler sized from one statfs can be larger than what is left
 * by the time it is written. If the disk runs out first, the filler gives back 2 MiB so the broker's own writes in
 * flight are not the ones that fail; either way the disk ends past the 90 % the broker refuses sends at.
 */
export function fillDisk(mnt: string, filler: string, ratio: number): void {
  const chunk = Buffer.alloc(1 << 20);
  const fd = fs.openSync(filler, 'w');
  try {
    let size = 0;
    for (;;) {
      const st = fs.statfsSync(mnt);
      const total = st.blocks * st.bsize;
      const want = Math.floor(total * ratio - (total - st.bfree * st.bsize));
      if (want <= 0) break;
      const n = Math.min(chunk.length, want);
      try {
        size += fs.writeSync(fd, chunk, 0, n, size);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
        fs.ftruncateSync(fd, Math.max(0, size - 2 * chunk.length));
        break;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}
