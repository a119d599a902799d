import { expect } from 'chai';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MappedFile } from '../../../lib/store/mapped-file';

describe('lib/store MappedFile read while a segment is being committed', () => {
  let dir: string;
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'rmq-mf-race-'));
  });
  after(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('never returns zeros for bytes that are still only in memory', async () => {
    // A range read that starts on disk, crosses a segment that gets committed (and dropped) during the read, and
    // ends in a newer segment that is not on disk yet: that last part must come from memory.
    for (let round = 0; round < 40; round++) {
      const file = path.join(dir, String(round * 4096).padStart(20, '0'));
      const mf = await MappedFile.create(file, 4096, 1024);
      mf.appendBuffer(Buffer.alloc(100, 1));
      await mf.commit();
      mf.appendBuffer(Buffer.alloc(100, 2)); // segment A
      const committing = mf.commit(); // seals A in a microtask
      await null;
      await null;
      mf.appendBuffer(Buffer.alloc(100, 3)); // segment B, appended after A was sealed
      const read = mf.read(0, 300);
      const [bytes] = await Promise.all([read, committing]);
      expect(bytes, `round ${round}`).to.not.equal(null);
      const expected = Buffer.concat([Buffer.alloc(100, 1), Buffer.alloc(100, 2), Buffer.alloc(100, 3)]);
      expect(bytes!.equals(expected), `round ${round}: ${bytes!.subarray(200, 210).toString('hex')}`).to.equal(true);
      await mf.commit();
      await mf.destroy();
    }
  });
});
