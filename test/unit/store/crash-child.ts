/**
 * Child process of the crash test: appends messages until killed, printing `ACK seq queueId queueOffset commitLogOffset`
 * for each acknowledged put. Usage: node crash-child.js <storeDir> <SYNC_FLUSH|ASYNC_FLUSH> <startSeq> [mapped|segments]
 */
import { DefaultMessageStore } from '../../../lib/store/message-store';
import type { FlushDiskType } from '../../../lib/store/message-store-config';

async function main(): Promise<void> {
  const [dir, flush, start, writes = 'mapped'] = process.argv.slice(2);
  const store = new DefaultMessageStore({
    storePathRootDir: dir, flushDiskType: flush as FlushDiskType, mappedFileSizeCommitLog: 256 * 1024,
    mappedFileSizeConsumeQueue: 2000, maxHashSlotNum: 1000, maxIndexNum: 4000, flushIntervalConsumeQueue: 50,
    transientStorePoolEnable: writes === 'segments',
  });
  await store.start();
  process.stdout.write('READY\n');
  let seq = Number(start);
  const worker = async (): Promise<void> => {
    for (;;) {
      const n = seq++;
      const queueId = n % 3;
      const body = Buffer.alloc(100 + (n % 400), n % 251);
      body.writeInt32BE(n, 0);
      const r = await store.putMessage({
        topic: 'Crash', queueId, flag: 0, body, propertiesString: `KEYS\u0001s${n}\u0002TAGS\u0001T\u0002`,
        bornTimestamp: Date.now(), bornHost: { host: '127.0.0.1', port: 1234 }, sysFlag: 0, reconsumeTimes: 0, preparedTransactionOffset: 0,
      });
      if (r.putMessageStatus === 'PUT_OK') {
        process.stdout.write(`ACK ${n} ${queueId} ${r.appendMessageResult!.logicsOffset} ${r.appendMessageResult!.wroteOffset}\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

// only as a child process: a test runner given this folder loads it too
if (require.main === module) void main();
