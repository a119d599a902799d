/**
 * Positional writes that write everything asked or throw. A write may write less than it was given without an error
 * (a file system with a few pages left: the pages that fit are written, the call returns their count and only the
 * next call fails with ENOSPC); a caller that takes the first call's success for the whole write leaves a hole of
 * zeros where the rest should be, behind data it believes stored. A write that makes no progress and reports no
 * error (never expected of a regular file) throws MessageStoreError.
 */
import * as fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { MessageStoreError } from '../errors';

/**
 * Writes `length` bytes of `data` from `offset` at file position `position` (null: at the end of a file opened for
 * appending), continuing after short writes.
 */
export async function writeFully(fh: FileHandle, data: Buffer, offset: number, length: number, position: number | null): Promise<void> {
  for (let done = 0; done < length;) {
    const { bytesWritten } = await fh.write(data, offset + done, length - done, position === null ? null : position + done);
    if (bytesWritten <= 0) throw new MessageStoreError(`write at ${position === null ? 'the end' : position + done} wrote nothing of ${length - done} bytes`);
    done += bytesWritten;
  }
}

/** writeFully on a descriptor, synchronously. */
export function writeFullySync(fd: number, data: Buffer, offset: number, length: number, position: number): void {
  for (let done = 0; done < length;) {
    const n = fs.writeSync(fd, data, offset + done, length - done, position + done);
    if (n <= 0) throw new MessageStoreError(`write at ${position + done} wrote nothing of ${length - done} bytes`);
    done += n;
  }
}
