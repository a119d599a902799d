/**
 * Remoting frames: `int32 totalLength | int32 (serializeType << 24 | headerLength) | header | body`.
 * totalLength counts everything after itself. Java rejects frames above 16 MiB
 * (`com.rocketmq.remoting.frameMaxLength`), and so do we.
 *
 * @see org.apache.rocketmq.remoting.netty.NettyDecoder
 */
import { ProtocolError } from './errors';

export const DEFAULT_MAX_FRAME_LENGTH = 16 * 1024 * 1024;

/**
 * A streaming frame splitter: fed arbitrary chunks, it calls `onFrame` with each whole frame's payload
 * (the bytes after the 4-byte length). It never copies a frame that arrived within one chunk.
 * After a `ProtocolError` the stream is unusable: the caller must close the connection.
 */
export class FrameDecoder {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private needed = -1; // payload length of the frame being assembled, -1 when reading the length
  private failed = false;

  constructor(
    private readonly onFrame: (payload: Buffer) => void,
    private readonly maxFrameLength: number = DEFAULT_MAX_FRAME_LENGTH,
  ) {}

  /** Bytes buffered and not yet part of a whole frame. */
  get buffered(): number {
    return this.pendingBytes;
  }

  push(chunk: Buffer): void {
    if (this.failed) throw new ProtocolError('frame decoder used after a protocol error');
    if (this.pendingBytes === 0) {
      this.consume(chunk);
      return;
    }
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    const want = this.needed < 0 ? 4 : this.needed;
    if (this.pendingBytes < want) return;
    const joined = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    this.consume(joined);
  }

  private consume(buf: Buffer): void {
    let offset = 0;
    const end = buf.length;
    for (;;) {
      if (this.needed < 0) {
        if (end - offset < 4) break;
        const length = buf.readInt32BE(offset);
        if (length < 4 || length > this.maxFrameLength) {
          this.failed = true;
          throw new ProtocolError(
            length > this.maxFrameLength
              ? `frame length ${length} exceeds the maximum ${this.maxFrameLength}`
              : `invalid frame length ${length}`,
          );
        }
        this.needed = length;
        offset += 4;
      }
      if (end - offset < this.needed) break;
      const payload = buf.subarray(offset, offset + this.needed);
      offset += this.needed;
      this.needed = -1;
      this.onFrame(payload);
    }
    if (offset < end) {
      this.pending.push(offset === 0 ? buf : buf.subarray(offset));
      this.pendingBytes = end - offset;
    }
  }
}
