import { expect } from 'chai';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { componentLogger } from '../../../lib/logger';
import { FlushFailedError, FlushThread, INLINE_FAST_MICROS, INLINE_MAX_BYTES, INLINE_STREAK } from '../../../lib/store/flush-thread';
import type { DataSyncer } from '../../../lib/store/flush-thread';
import { DefaultMessageStore } from '../../../lib/store/message-store';
import { PutMessageStatus } from '../../../lib/store/store-status';
import { SMALL, makeMessage, tempDir } from './store-test-util';

/** MessagePorts the process holds ref'd (a ref'd worker shows as one). */
const refPorts = (): number => process.getActiveResourcesInfo().filter((r) => r === 'MessagePort').length;

describe('store: the SYNC_FLUSH flush thread', function () {
  this.timeout(60000);
  let dir: string;
  let store: DefaultMessageStore | null = null;
  const open = async (extra: Record<string, unknown> = {}, syncer?: DataSyncer) => {
    store = new DefaultMessageStore({ ...SMALL, mappedFileSizeCommitLog: 1024 * 1024, storePathRootDir: dir, flushDiskType: 'SYNC_FLUSH', ...extra });
    if (syncer) store.commitLog.mappedFileQueue.syncer = syncer;
    await store.start();
    return store;
  };

  beforeEach(async () => {
    dir = await tempDir();
  });

  afterEach(async () => {
    await store?.shutdown();
    store = null;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers each lone put after exactly one fdatasync, run on the flush thread or inline, covering its bytes', async () => {
    const s = await open();
    const thread = s.commitLog.flushThread!;
    expect(thread).to.not.equal(null);
    const portsBefore = refPorts();
    for (let i = 0; i < 40; i++) {
      const r = await s.putMessage(makeMessage('F', 0, `m${i}`));
      expect(r.putMessageStatus).to.equal(PutMessageStatus.PUT_OK);
      const end = r.appendMessageResult!.wroteOffset + r.appendMessageResult!.wroteBytes;
      expect(s.commitLog.mappedFileQueue.getFlushedWhere()).to.be.at.least(end);
    }
    // one group commit and one fdatasync per put, every fdatasync on the thread or inline (none through the threadpool)
    expect(s.commitLog.groupCommits).to.equal(40);
    expect(thread.syncs + thread.inlineSyncs).to.equal(40);
    expect(thread.syncs).to.be.at.least(INLINE_STREAK);
    expect(thread.failure).to.equal(null);
    expect(thread.running).to.equal(true);
    // idle between puts: the thread does not hold the event loop
    expect(refPorts()).to.equal(portsBefore);
    await s.shutdown();
    expect(thread.running).to.equal(false);
  });

  it('shares one fdatasync among the puts of one turn, and takes those that come during it in the next', async () => {
    const s = await open();
    const rs = await Promise.all(Array.from({ length: 64 }, (_, i) => s.putMessage(makeMessage('G', i % 4, `m${i}`))));
    expect(rs.every((r) => r.putMessageStatus === PutMessageStatus.PUT_OK)).to.equal(true);
    expect(s.commitLog.groupCommits).to.equal(1);
    expect(s.commitLog.flushThread!.syncs + s.commitLog.flushThread!.inlineSyncs).to.equal(1);
    // a put made while that fdatasync runs waits for the next one, not for a second turn of its own
    const first = Array.from({ length: 8 }, (_, i) => s.putMessage(makeMessage('G', 0, `a${i}`)));
    await new Promise<void>((resolve) => setImmediate(resolve));
    const second = Array.from({ length: 8 }, (_, i) => s.putMessage(makeMessage('G', 0, `b${i}`)));
    const all = await Promise.all([...first, ...second]);
    expect(all.every((r) => r.putMessageStatus === PutMessageStatus.PUT_OK)).to.equal(true);
    expect(s.commitLog.groupCommits).to.equal(3);
    expect(s.commitLog.flushThread!.syncs + s.commitLog.flushThread!.inlineSyncs).to.equal(3);
  });

  it('writes the zeros ahead of the mapped commit log a page per write on the flush thread: a lone put dirties a page or two, not a 64 KiB folio', async function () {
    const s = await open({ mappedFileSizeCommitLog: 16 * 1024 * 1024 });
    await s.putMessage(makeMessage('Z', 0, 'first'));
    if (s.commitLog.writeMode !== 'mapped') this.skip();
    const thread = s.commitLog.flushThread!;
    // the blocks ahead were reserved by the thread, none through the threadpool's 64 KiB writes
    expect(thread.zeroWrites).to.be.greaterThan(0);
    const body = Buffer.alloc(900, 1);
    const writeBytes = (): number => Number(/write_bytes:\s+(\d+)/.exec(fs.readFileSync('/proc/self/io', 'utf8'))?.[1] ?? NaN);
    const before = writeBytes();
    const zerosBefore = thread.zeroBytes;
    const puts = 200;
    for (let i = 0; i < puts; i++) expect((await s.putMessage(makeMessage('Z', 0, body))).putMessageStatus).to.equal(PutMessageStatus.PUT_OK);
    // (the zeros written meanwhile, megabytes ahead, count in write_bytes too: left out)
    const perPut = (writeBytes() - before - (thread.zeroBytes - zerosBefore)) / puts;
    if (Number.isNaN(perPut)) this.skip();
    // a page re-dirtied per fdatasync (two when a record crosses a page) plus the record's share of the zeros: about
    // 5-7 KB; a 64 KiB folio (zeros written 64 KiB at a time) re-dirties 64 KiB per put
    expect(perPut).to.be.below(24 * 1024);
    expect(thread.zeroBytes).to.be.at.least(s.commitLog.getMaxOffset());
    expect(thread.zeroUnit).to.equal(4096);
    // many puts per fdatasync: the zeros go 64 KiB per write again
    for (let round = 0; round < 20; round++) {
      await Promise.all(Array.from({ length: 128 }, (_, i) => s.putMessage(makeMessage('Z', i % 4, body))));
    }
    expect(thread.zeroUnit).to.equal(64 * 1024);
  });

  it('syncs small flushes inline once the disk has been fast for a streak; a slow or failed one, a large one and one after zeros go to the thread', async () => {
    const thread = new FlushThread(componentLogger('flush-thread-test'));
    const fd = fs.openSync(path.join(dir, 'inline'), 'w');
    const realSync = fs.fdatasyncSync;
    // Counts where each fdatasync ran: [on the thread, inline].
    const where = async (bytes = 1024): Promise<'thread' | 'inline'> => {
      const [t, i] = [thread.syncs, thread.inlineSyncs];
      fs.writeSync(fd, Buffer.alloc(bytes, 1), 0, bytes, 0);
      await thread.datasync(fd, bytes);
      expect(thread.syncs - t + thread.inlineSyncs - i).to.equal(1);
      return thread.inlineSyncs > i ? 'inline' : 'thread';
    };
    // Every sync counts as fast (whatever the machine's load), but for the one made slow below.
    thread.inlineFastMicros = 10_000_000;
    const untilInline = async (): Promise<number> => {
      for (let n = 1; n <= INLINE_STREAK + 1; n++) if (await where() === 'inline') return n;
      throw new Error('not inline after a streak');
    };
    try {
      expect(await untilInline()).to.equal(INLINE_STREAK + 1);
      expect(await where()).to.equal('inline');
      // more bytes than a few puts: on the thread, streak or not
      expect(await where(INLINE_MAX_BYTES + 4096)).to.equal('thread');
      expect(await untilInline()).to.equal(1);
      // a slow inline sync ends the streak: the next ones go to the thread until a streak of fast ones again
      thread.inlineFastMicros = INLINE_FAST_MICROS;
      fs.fdatasyncSync = (f: number) => {
        const until = performance.now() + (2 * INLINE_FAST_MICROS) / 1000;
        while (performance.now() < until) { /* a slow disk */ }
        realSync(f);
      };
      expect(await where()).to.equal('inline');
      fs.fdatasyncSync = realSync;
      thread.inlineFastMicros = 10_000_000;
      expect(await untilInline()).to.equal(INLINE_STREAK + 1);
      // a failed inline sync: FlushFailedError with the errno's name, and the streak over
      fs.fdatasyncSync = () => {
        throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO', errno: -5 });
      };
      const err = await thread.datasync(fd, 1024).then(() => null, (e: unknown) => e);
      fs.fdatasyncSync = realSync;
      expect(err).to.be.instanceOf(FlushFailedError);
      expect((err as FlushFailedError).code).to.equal('EIO');
      expect(await untilInline()).to.equal(INLINE_STREAK + 1);
      // zeros written since the last sync: their pages go with the next one, on the thread
      expect(await where()).to.equal('inline');
      expect(await thread.writeZeros(fd, 65536, 65536 + 8192)).to.equal(8192);
      expect(await where()).to.equal('thread');
    } finally {
      fs.fdatasyncSync = realSync;
      await thread.close();
      fs.closeSync(fd);
    }
  });

  it('answers FLUSH_DISK_TIMEOUT when the fdatasync outlasts syncFlushTimeout, and PUT_OK again after it', async () => {
    let release: (() => void) | null = null;
    let calls = 0;
    const slow: DataSyncer = {
      datasync: () => {
        calls++;
        if (calls > 1) return Promise.resolve();
        return new Promise<void>((resolve) => { release = resolve; });
      },
    };
    const s = await open({ syncFlushTimeout: 100 }, slow);
    const r = await s.putMessage(makeMessage('T', 0, 'late'));
    expect(r.putMessageStatus).to.equal(PutMessageStatus.FLUSH_DISK_TIMEOUT);
    expect(release).to.not.equal(null);
    release!();
    const again = await s.putMessage(makeMessage('T', 0, 'next'));
    expect(again.putMessageStatus).to.equal(PutMessageStatus.PUT_OK);
    expect(calls).to.equal(2);
  });

  it('reports a failed fdatasync as FlushFailedError with its errno name, and goes through the threadpool once closed', async () => {
    const thread = new FlushThread(componentLogger('flush-thread-test'));
    const file = path.join(dir, 'f');
    const fd = fs.openSync(file, 'w');
    try {
      await thread.datasync(fd);
      expect(thread.syncs).to.equal(1);
      const err = await thread.datasync(2147483000).then(() => null, (e: unknown) => e);
      expect(err).to.be.instanceOf(FlushFailedError);
      expect((err as FlushFailedError).code).to.equal('EBADF');
      expect((err as FlushFailedError).syscall).to.equal('fdatasync');
      // the thread goes on after a failed request
      await thread.datasync(fd);
      expect(thread.syncs).to.equal(2);
      await thread.close();
      await thread.close();
      expect(thread.running).to.equal(false);
      await thread.datasync(fd);
      expect(thread.syncs).to.equal(2);
    } finally {
      fs.closeSync(fd);
    }
  });

  it('starts ahead of the first request once asked, once, and not after close()', async () => {
    const thread = new FlushThread(componentLogger('flush-thread-test'));
    expect(thread.running).to.equal(false);
    thread.start();
    thread.start();
    expect(thread.running).to.equal(true);
    const fd = fs.openSync(path.join(dir, 'g'), 'w');
    try {
      await thread.datasync(fd);
      expect(thread.syncs).to.equal(1);
    } finally {
      fs.closeSync(fd);
    }
    await thread.close();
    thread.start();
    expect(thread.running).to.equal(false);
  });

  it('never keeps a process alive: a SYNC_FLUSH store left open lets its process end', async () => {
    const storeModule = path.resolve(__dirname, '../../../lib/store/message-store.js');
    const script = `
      const { DefaultMessageStore } = require(${JSON.stringify(storeModule)});
      const store = new DefaultMessageStore({ storePathRootDir: ${JSON.stringify(dir)}, flushDiskType: 'SYNC_FLUSH',
        mappedFileSizeCommitLog: 1024 * 1024, messageIndexEnable: false });
      store.start().then(async () => {
        // started with the store, before the first put
        if (!store.commitLog.flushThread.running) throw new Error('the flush thread did not start with the store');
        for (let i = 0; i < 5; i++) {
          const r = await store.putMessage({ topic: 'K', queueId: 0, flag: 0, body: Buffer.from('x'), propertiesString: '',
            bornTimestamp: Date.now(), bornHost: { host: '127.0.0.1', port: 1 }, sysFlag: 0, reconsumeTimes: 0, preparedTransactionOffset: 0 });
          if (r.putMessageStatus !== 'PUT_OK') throw new Error(r.putMessageStatus);
        }
        if (!store.commitLog.flushThread.running || store.commitLog.flushThread.syncs !== 5) throw new Error('no flush thread');
        process.stdout.write('PUT\\n');
      });`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    // the process ends by itself (the store's timers are unref'd and so is the idle flush thread)
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(out).to.contain('PUT');
    expect(code).to.equal(0);
  });
});
