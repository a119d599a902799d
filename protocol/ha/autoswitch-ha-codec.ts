/**
 * The AutoSwitch HA stream of controller mode (Java 5.x), on the master's HA port. Every frame starts with the
 * sender's connection state (HAConnectionState ordinal: READY 0, HANDSHAKE 1, TRANSFER 2, SUSPEND 3, SHUTDOWN 4);
 * big-endian throughout.
 *
 * ```
 * slave -> master
 *   HANDSHAKE  int32 state=1 | int16 isSyncFromLastFile | int16 isAsyncLearner | int64 slaveBrokerId      (16 bytes)
 *   TRANSFER   int32 state=2 | int64 offset       (12 bytes: the slave's max offset, what it asks for / acknowledges)
 * master -> slave
 *   HANDSHAKE  int32 state=1 | int32 bodySize | int64 maxPhyOffset | int32 lastEpoch                  (20-byte header)
 *              then bodySize / 12 epoch entries: int32 epoch | int64 startOffset
 *   TRANSFER   int32 state=2 | int32 bodySize | int64 offset | int32 epoch | int64 epochStartOffset
 *              | int64 confirmOffset                                                                  (36-byte header)
 *              then bodySize commit-log bytes (0: a heartbeat)
 * ```
 *
 * @see org.apache.rocketmq.store.ha.autoswitch.AutoSwitchHAClient
 * @see org.apache.rocketmq.store.ha.autoswitch.AutoSwitchHAConnection
 * @see org.apache.rocketmq.store.ha.HAConnectionState
 */
import { ProtocolError } from '../errors';

export const HAConnectionState = { READY: 0, HANDSHAKE: 1, TRANSFER: 2, SUSPEND: 3, SHUTDOWN: 4 } as const;
export type HAConnectionState = (typeof HAConnectionState)[keyof typeof HAConnectionState];

/** AutoSwitchHAClient.HANDSHAKE_HEADER_SIZE */
export const AUTOSWITCH_SLAVE_HANDSHAKE_SIZE = 4 + 4 + 8;
/** AutoSwitchHAClient.TRANSFER_HEADER_SIZE */
export const AUTOSWITCH_SLAVE_TRANSFER_SIZE = 4 + 8;
/** AutoSwitchHAConnection.HANDSHAKE_HEADER_SIZE */
export const AUTOSWITCH_MASTER_HANDSHAKE_HEADER_SIZE = 4 + 4 + 8 + 4;
/** AutoSwitchHAConnection.TRANSFER_HEADER_SIZE */
export const AUTOSWITCH_MASTER_TRANSFER_HEADER_SIZE = AUTOSWITCH_MASTER_HANDSHAKE_HEADER_SIZE + 8 + 8;
/** AutoSwitchHAConnection.EPOCH_ENTRY_SIZE */
export const EPOCH_ENTRY_SIZE = 12;

export interface EpochEntry {
  epoch: number;
  startOffset: number;
}

export type AutoSwitchSlaveFrame =
  | { state: typeof HAConnectionState.HANDSHAKE; isSyncFromLastFile: boolean; isAsyncLearner: boolean; brokerId: number }
  | { state: typeof HAConnectionState.TRANSFER; offset: number };

export type AutoSwitchMasterFrame =
  | { state: typeof HAConnectionState.HANDSHAKE; maxPhyOffset: number; lastEpoch: number; epochEntries: EpochEntry[] }
  | { state: typeof HAConnectionState.TRANSFER; offset: number; epoch: number; epochStartOffset: number; confirmOffset: number; body: Buffer };

const i64 = (buf: Buffer, at: number): number => Number(buf.readBigInt64BE(at));
const w64 = (buf: Buffer, v: number, at: number): void => {
  buf.writeBigInt64BE(BigInt(v), at);
};

export function encodeAutoSwitchSlaveFrame(f: AutoSwitchSlaveFrame): Buffer {
  if (f.state === HAConnectionState.HANDSHAKE) {
    const b = Buffer.alloc(AUTOSWITCH_SLAVE_HANDSHAKE_SIZE);
    b.writeInt32BE(f.state, 0);
    b.writeInt16BE(f.isSyncFromLastFile ? 1 : 0, 4);
    b.writeInt16BE(f.isAsyncLearner ? 1 : 0, 6);
    w64(b, f.brokerId, 8);
    return b;
  }
  const b = Buffer.alloc(AUTOSWITCH_SLAVE_TRANSFER_SIZE);
  b.writeInt32BE(f.state, 0);
  w64(b, f.offset, 4);
  return b;
}

export function encodeAutoSwitchMasterFrame(f: AutoSwitchMasterFrame): Buffer {
  if (f.state === HAConnectionState.HANDSHAKE) {
    const b = Buffer.alloc(AUTOSWITCH_MASTER_HANDSHAKE_HEADER_SIZE + f.epochEntries.length * EPOCH_ENTRY_SIZE);
    b.writeInt32BE(f.state, 0);
    b.writeInt32BE(f.epochEntries.length * EPOCH_ENTRY_SIZE, 4);
    w64(b, f.maxPhyOffset, 8);
    b.writeInt32BE(f.lastEpoch, 16);
    f.epochEntries.forEach((e, i) => {
      const at = AUTOSWITCH_MASTER_HANDSHAKE_HEADER_SIZE + i * EPOCH_ENTRY_SIZE;
      b.writeInt32BE(e.epoch, at);
      w64(b, e.startOffset, at + 4);
    });
    return b;
  }
  const h = Buffer.alloc(AUTOSWITCH_MASTER_TRANSFER_HEADER_SIZE);
  h.writeInt32BE(f.state, 0);
  h.writeInt32BE(f.body.length, 4);
  w64(h, f.offset, 8);
  h.writeInt32BE(f.epoch, 16);
  w64(h, f.epochStartOffset, 20);
  w64(h, f.confirmOffset, 28);
  return f.body.length ? Buffer.concat([h, f.body]) : h;
}

/** The master's 36-byte TRANSFER header alone, for `bodySize` bytes written after it (the commit log, not copied). */
export function encodeAutoSwitchTransferHeader(offset: number, epoch: number, epochStartOffset: number, confirmOffset: number, bodySize: number): Buffer {
  const h = Buffer.alloc(AUTOSWITCH_MASTER_TRANSFER_HEADER_SIZE);
  h.writeInt32BE(HAConnectionState.TRANSFER, 0);
  h.writeInt32BE(bodySize, 4);
  w64(h, offset, 8);
  h.writeInt32BE(epoch, 16);
  w64(h, epochStartOffset, 20);
  w64(h, confirmOffset, 28);
  return h;
}

/** Buffers what arrives and yields whole frames; what is left waits for more bytes. */
abstract class StreamDecoder<F> {
  #buf: Buffer = Buffer.alloc(0);

  /** Bytes received and not yet part of a whole frame. */
  get pending(): number {
    return this.#buf.length;
  }

  push(chunk: Buffer): F[] {
    this.#buf = this.#buf.length ? Buffer.concat([this.#buf, chunk]) : chunk;
    const out: F[] = [];
    let at = 0;
    for (;;) {
      const r = this.decodeAt(this.#buf, at);
      if (!r) break;
      out.push(r.frame);
      at += r.size;
    }
    this.#buf = at === this.#buf.length ? Buffer.alloc(0) : this.#buf.subarray(at);
    return out;
  }

  protected abstract decodeAt(buf: Buffer, at: number): { frame: F; size: number } | null;
}

/** The master's reader of what a slave sends (Java's HAServerReader): HANDSHAKE or TRANSFER, by the leading state. */
export class AutoSwitchSlaveFrameDecoder extends StreamDecoder<AutoSwitchSlaveFrame> {
  protected decodeAt(buf: Buffer, at: number): { frame: AutoSwitchSlaveFrame; size: number } | null {
    if (buf.length - at < 4) return null;
    const state = buf.readInt32BE(at);
    if (state === HAConnectionState.HANDSHAKE) {
      if (buf.length - at < AUTOSWITCH_SLAVE_HANDSHAKE_SIZE) return null;
      return {
        frame: { state, isSyncFromLastFile: buf.readInt16BE(at + 4) === 1, isAsyncLearner: buf.readInt16BE(at + 6) === 1, brokerId: i64(buf, at + 8) },
        size: AUTOSWITCH_SLAVE_HANDSHAKE_SIZE,
      };
    }
    if (state === HAConnectionState.TRANSFER) {
      if (buf.length - at < AUTOSWITCH_SLAVE_TRANSFER_SIZE) return null;
      return { frame: { state, offset: i64(buf, at + 4) }, size: AUTOSWITCH_SLAVE_TRANSFER_SIZE };
    }
    throw new ProtocolError(`AutoSwitch HA: slave frame with state ${state}`);
  }
}

/** The slave's reader of what the master sends (Java's AutoSwitchHAClient HAClientReader). */
export class AutoSwitchMasterFrameDecoder extends StreamDecoder<AutoSwitchMasterFrame> {
  protected decodeAt(buf: Buffer, at: number): { frame: AutoSwitchMasterFrame; size: number } | null {
    if (buf.length - at < AUTOSWITCH_MASTER_HANDSHAKE_HEADER_SIZE) return null;
    const state = buf.readInt32BE(at);
    const bodySize = buf.readInt32BE(at + 4);
    if (bodySize < 0) throw new ProtocolError(`AutoSwitch HA: negative body size ${bodySize}`);
    if (state === HAConnectionState.HANDSHAKE) {
      const size = AUTOSWITCH_MASTER_HANDSHAKE_HEADER_SIZE + bodySize;
      if (bodySize % EPOCH_ENTRY_SIZE !== 0) throw new ProtocolError(`AutoSwitch HA: handshake body ${bodySize} is not whole epoch entries`);
      if (buf.length - at < size) return null;
      const epochEntries: EpochEntry[] = [];
      for (let p = at + AUTOSWITCH_MASTER_HANDSHAKE_HEADER_SIZE; p < at + size; p += EPOCH_ENTRY_SIZE) {
        epochEntries.push({ epoch: buf.readInt32BE(p), startOffset: i64(buf, p + 4) });
      }
      return { frame: { state, maxPhyOffset: i64(buf, at + 8), lastEpoch: buf.readInt32BE(at + 16), epochEntries }, size };
    }
    if (state === HAConnectionState.TRANSFER) {
      const size = AUTOSWITCH_MASTER_TRANSFER_HEADER_SIZE + bodySize;
      if (buf.length - at < size) return null;
      return {
        frame: {
          state, offset: i64(buf, at + 8), epoch: buf.readInt32BE(at + 16), epochStartOffset: i64(buf, at + 20), confirmOffset: i64(buf, at + 28),
          body: Buffer.from(buf.subarray(at + AUTOSWITCH_MASTER_TRANSFER_HEADER_SIZE, at + size)),
        },
        size,
      };
    }
    throw new ProtocolError(`AutoSwitch HA: master frame with state ${state}`);
  }
}
