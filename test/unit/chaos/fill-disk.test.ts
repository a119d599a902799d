/**
 * fillDisk (chaos/fill-disk.ts) on a tmpfs of its own: it stops at the share asked for even while another writer keeps
 * writing, and when the disk runs out first it gives room back instead of failing. Mounting needs root: skipped with a
 * line otherwise.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'chai';
import { fillDisk } from '../../../chaos/fill-disk';

const MiB = 1 << 20;

function usedShare(mnt: string): number {
  const st = fs.statfsSync(mnt);
  return 1 - st.bfree / st.blocks;
}

describe('chaos fillDisk', function () {
  let dir = '';
  let mnt = '';

  before(function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fill-disk-'));
    mnt = path.join(dir, 'disk');
    fs.mkdirSync(mnt);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', mnt], { stdio: 'ignore' });
    } catch {
      process.stderr.write('    fillDisk: skipped, cannot mount a tmpfs here (needs root)\n');
      fs.rmSync(dir, { recursive: true, force: true });
      dir = '';
      this.skip();
    }
  });

  after(function () {
    if (!dir) return;
    try { execFileSync('umount', ['-l', mnt], { stdio: 'ignore' }); } catch { /* not mounted */ }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  afterEach(function () {
    if (!dir) return;
    for (const f of fs.readdirSync(mnt)) fs.rmSync(path.join(mnt, f));
  });

  it('takes the disk to the share asked for, counting what others wrote', function () {
    fs.writeFileSync(path.join(mnt, 'other'), Buffer.alloc(3 * MiB));
    fillDisk(mnt, path.join(mnt, 'filler'), 0.95);
    expect(usedShare(mnt)).to.be.within(0.9, 0.96);
    expect(fs.statSync(path.join(mnt, 'filler')).size).to.be.below(13 * MiB);
  });

  it('gives 2 MiB back when the disk runs out before the share is reached', function () {
    // A share past the whole disk: every write succeeds until ENOSPC, as when another writer took the rest meanwhile.
    fillDisk(mnt, path.join(mnt, 'filler'), 1.5);
    const st = fs.statfsSync(mnt);
    const free = st.bfree * st.bsize;
    expect(free).to.be.within(2 * MiB - 64 * 1024, 3 * MiB);
    expect(usedShare(mnt)).to.be.above(0.8);
  });
});
