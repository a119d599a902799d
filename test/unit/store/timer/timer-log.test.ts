/**
 * lib/store/timer/timer-log.ts: Java's TimerLog files (fixed size, named by offset, a blank unit where a unit does
 * not fit), the write position found again after a restart, and files deleted once the commit log dropped their records.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BLANK_MAGIC_CODE, TimerLog, UNIT_SIZE } from '../../../../lib/store/timer/timer-log';

const unit = (i: number) => ({ prevPos: i - 1, slotTime: 1000 * i, deliverMs: 1000 * i + 7, offsetPy: 5000 + i * 100, sizePy: 100 + i });

describe('lib/store/timer TimerLog files', () => {
  let dir: string;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rmq-timerlog-')); });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  // 10 units and a blank's room: the 11th unit goes to the next file
  const FILE = 10 * UNIT_SIZE + 16 + 3;

  it('rolls to a file named by its offset when a unit and a blank do not fit; units read back across files', async () => {
    const log = new TimerLog(dir, FILE);
    await log.open();
    const pos: number[] = [];
    for (let i = 0; i < 25; i++) pos.push(log.append(unit(i)));
    await log.flush();
    expect(pos.slice(0, 11)).to.deep.equal([...Array.from({ length: 10 }, (_, i) => i * UNIT_SIZE), FILE]);
    expect(pos[24]).to.equal(2 * FILE + 4 * UNIT_SIZE);
    expect(fs.readdirSync(dir).sort()).to.deep.equal(['00000000000000000000', String(FILE).padStart(20, '0'), String(2 * FILE).padStart(20, '0')]);
    for (const f of fs.readdirSync(dir)) expect(fs.statSync(path.join(dir, f)).size).to.equal(FILE);
    // the blank ends the first file: size = the bytes left, Java's magic
    const first = fs.readFileSync(path.join(dir, '00000000000000000000'));
    expect(first.readInt32BE(10 * UNIT_SIZE)).to.equal(FILE - 10 * UNIT_SIZE);
    expect(first.readInt32BE(10 * UNIT_SIZE + 12)).to.equal(BLANK_MAGIC_CODE);
    expect(BLANK_MAGIC_CODE).to.equal((0xbbccddee ^ 1880681594) | 0);
    for (let i = 0; i < 25; i++) expect(await log.read(pos[i])).to.deep.equal(unit(i));
    expect(await log.read(pos[24] + UNIT_SIZE)).to.equal(null);
    expect(log.offsetForLastUnit).to.equal(9 * UNIT_SIZE);
    await log.close();
  });

  it('finds its write position again after a restart, from the checkpoint or from the last file\'s start; a torn unit is overwritten', async () => {
    let log = new TimerLog(dir, FILE);
    await log.open();
    for (let i = 0; i < 13; i++) log.append(unit(i));
    await log.close();
    const end = FILE + 3 * UNIT_SIZE;
    for (const from of [0, FILE, FILE + UNIT_SIZE, FILE + 2 * UNIT_SIZE + 5]) {
      log = new TimerLog(dir, FILE);
      await log.open(from);
      expect(log.writePos, `from ${from}`).to.equal(end);
      await log.close();
    }
    // a crash mid-write: half a unit after the end
    const second = path.join(dir, String(FILE).padStart(20, '0'));
    const fd = fs.openSync(second, 'r+');
    fs.writeSync(fd, Buffer.from([0, 0, 0, 52, 1, 2]), 0, 6, 3 * UNIT_SIZE);
    fs.writeSync(fd, Buffer.from([0, 0, 1, 0]), 0, 4, 3 * UNIT_SIZE + 12); // a magic no unit has
    fs.closeSync(fd);
    log = new TimerLog(dir, FILE);
    await log.open(FILE);
    expect(log.writePos).to.equal(end);
    expect(log.append(unit(13))).to.equal(end);
    expect(await log.read(end)).to.deep.equal(unit(13));
    await log.close();
  });

  it('deletes the files, oldest first and never the last, whose last unit names a record below the commit log\'s first offset', async () => {
    const log = new TimerLog(dir, FILE);
    await log.open();
    for (let i = 0; i < 25; i++) log.append(unit(i));
    // the first file's last unit (i = 9) names 5900, the second's (i = 19) 6900
    expect(await log.deleteExpiredFiles(5900)).to.equal(0);
    expect(await log.deleteExpiredFiles(5901)).to.equal(1);
    expect(log.fileOffsets).to.deep.equal([FILE, 2 * FILE]);
    expect(fs.existsSync(path.join(dir, '00000000000000000000'))).to.equal(false);
    expect(await log.read(0)).to.equal(null);
    expect(await log.read(FILE)).to.deep.equal(unit(10));
    expect(await log.deleteExpiredFiles(1e12)).to.equal(1); // the last file stays
    expect(log.fileOffsets).to.deep.equal([2 * FILE]);
    expect(await log.read(2 * FILE)).to.deep.equal(unit(20));
    expect(log.append(unit(25))).to.equal(2 * FILE + 5 * UNIT_SIZE);
    await log.close();
  });

  it('opens a one-file log written before the log rolled: shorter (extended) or longer (kept as the first file) than a file', async () => {
    const b = Buffer.alloc(13 * UNIT_SIZE);
    for (let i = 0; i < 13; i++) {
      b.writeInt32BE(UNIT_SIZE, i * UNIT_SIZE);
      b.writeBigInt64BE(BigInt(i), i * UNIT_SIZE + 16);
    }
    fs.writeFileSync(path.join(dir, '00000000000000000000'), b.subarray(0, 3 * UNIT_SIZE));
    let log = new TimerLog(dir, FILE);
    await log.open();
    expect(log.writePos).to.equal(3 * UNIT_SIZE);
    expect(fs.statSync(path.join(dir, '00000000000000000000')).size).to.equal(FILE);
    await log.close();
    fs.rmSync(path.join(dir, '00000000000000000000'));
    fs.writeFileSync(path.join(dir, '00000000000000000000'), Buffer.concat([b, Buffer.alloc(7)]));
    log = new TimerLog(dir, FILE);
    await log.open();
    expect(log.fileSize).to.equal(13 * UNIT_SIZE);
    expect(log.writePos).to.equal(13 * UNIT_SIZE);
    expect(log.append(unit(13))).to.equal(13 * UNIT_SIZE);
    await log.flush();
    expect((await log.read(12 * UNIT_SIZE))?.slotTime).to.equal(12);
    expect(fs.readdirSync(dir).sort()).to.deep.equal(['00000000000000000000', String(13 * UNIT_SIZE).padStart(20, '0')]);
    await log.close();
  });
});
