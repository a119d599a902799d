/**
 * The master's end of one slave's HA connection: reads the slave's 8-byte offset reports (the first is where to
 * start, the later ones acknowledge), and writes the commit log from there as 12-byte headers + bytes, at most
 * haTransferBatchSize and never across a file per transfer, with a header of size 0 as heartbeat when it has been
 * quiet for haSendHeartbeatInterval. A slave that sent nothing for haHousekeepingInterval is dropped.
 *
 * @see org.apache.rocketmq.store.ha.HAConnection
 */
import type net from 'node:net';
import type { Logger } from '../logger';
import type { DefaultMessageStore } from '../store/message-store';
import { HASlaveReportDecoder, encodeHATransferHeader } from '../../protocol/ha/ha-codec';

/** What a connection needs of its HAService. */
export interface HAConnectionOwner {
  readonly store: DefaultMessageStore;
  notifyTransferSome(offset: number): void;
  removeConnection(conn: HAConnection): void;
}

export class HAConnection {
  readonly clientAddr: string;
  /** The offset the slave asked for first (-1 until its first report). */
  slaveRequestOffset = -1;
  /** The slave's last acknowledged offset. */
  slaveAckOffset = -1;
  /** Where the next transfer starts (-1 until the first report). */
  nextTransferFromWhere = -1;
  lastReadTimestamp: number;
  lastWriteTimestamp: number;
  readonly #decoder = new HASlaveReportDecoder();
  #closed = false;
  #wake: (() => void) | null = null;
  #wakePending = false;
  #pumping: Promise<void> | null = null;

  constructor(private readonly owner: HAConnectionOwner, private readonly socket: net.Socket, private readonly log: Logger) {
    this.clientAddr = `${socket.remoteAddress}:${socket.remotePort}`;
    const now = owner.store.now();
    this.lastReadTimestamp = now;
    this.lastWriteTimestamp = now;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('error', (err) => this.log.info({ err, clientAddr: this.clientAddr }, 'HA connection error'));
    socket.on('close', () => this.close());
    socket.on('drain', () => this.wakeup());
  }

  get closed(): boolean {
    return this.#closed;
  }

  start(): void {
    this.#pumping = this.#pump().catch((err: unknown) => {
      this.log.error({ err, clientAddr: this.clientAddr }, 'HA write service failed');
      this.close();
    });
  }

  /** New commit-log data or a report: let the writer look again. */
  wakeup(): void {
    const w = this.#wake;
    this.#wake = null;
    if (w) w();
    else this.#wakePending = true; // the writer is busy: it must not sleep through this
  }

  #onData(chunk: Buffer): void {
    const offset = this.#decoder.push(chunk);
    this.lastReadTimestamp = this.owner.store.now();
    if (offset === null) return;
    if (offset < 0 || (this.slaveRequestOffset < 0 && offset > this.owner.store.getMaxPhyOffset())) {
      // Not a slave of this log (Java takes any first report, and would count it as acknowledged): drop it.
      this.log.warn({ clientAddr: this.clientAddr, offset, maxPhyOffset: this.owner.store.getMaxPhyOffset() }, 'bad slave report');
      this.close();
      return;
    }
    this.slaveAckOffset = offset;
    if (this.slaveRequestOffset < 0) {
      this.slaveRequestOffset = offset;
      this.log.info({ clientAddr: this.clientAddr, offset }, 'slave request offset');
      this.wakeup();
    } else if (offset > this.owner.store.getMaxPhyOffset()) {
      this.log.warn({ clientAddr: this.clientAddr, offset, maxPhyOffset: this.owner.store.getMaxPhyOffset() },
        'slave request offset greater than local commit log offset');
      this.close();
      return;
    }
    this.owner.notifyTransferSome(offset);
  }

  /** Drops the connection if the slave has been silent too long (called by the service's housekeeping). */
  checkExpired(now: number): void {
    const interval = now - this.lastReadTimestamp;
    if (interval > this.owner.store.config.haHousekeepingInterval) {
      this.log.warn({ clientAddr: this.clientAddr, interval }, 'ha housekeeping, found this connection expired');
      this.close();
    }
  }

  #sleep(ms: number): Promise<void> {
    if (this.#wakePending) {
      this.#wakePending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const t = setTimeout(() => { this.#wake = null; resolve(); }, Math.max(1, ms));
      t.unref();
      this.#wake = () => { clearTimeout(t); resolve(); };
    });
  }

  #write(header: Buffer, data: Buffer | null): void {
    this.socket.cork();
    this.socket.write(header);
    if (data) this.socket.write(data);
    this.socket.uncork();
    this.lastWriteTimestamp = this.owner.store.now();
  }

  async #pump(): Promise<void> {
    const store = this.owner.store;
    const config = store.config;
    while (!this.#closed) {
      if (this.slaveRequestOffset < 0) {
        await this.#sleep(config.haSendHeartbeatInterval);
        continue;
      }
      if (this.nextTransferFromWhere < 0) {
        if (this.slaveRequestOffset === 0) {
          // An empty slave starts at the master's last file (Java's choice: not the whole history).
          const max = store.commitLog.getMaxOffset();
          this.nextTransferFromWhere = Math.max(0, max - (max % config.mappedFileSizeCommitLog));
        } else {
          this.nextTransferFromWhere = this.slaveRequestOffset;
        }
        this.log.info({ clientAddr: this.clientAddr, from: this.nextTransferFromWhere, slaveRequest: this.slaveRequestOffset },
          'master transfer data to slave');
      }
      if (this.socket.writableNeedDrain) {
        await this.#sleep(1000);
        continue;
      }
      if (store.now() - this.lastWriteTimestamp > config.haSendHeartbeatInterval) {
        this.#write(encodeHATransferHeader(this.nextTransferFromWhere, 0), null);
      }
      this.#wakePending = false;
      const r = await store.getCommitLogData(this.nextTransferFromWhere, config.haTransferBatchSize);
      if (this.#closed) break;
      if (r && r.data.length > 0) {
        const size = Math.min(r.data.length, config.haTransferBatchSize);
        const thisOffset = this.nextTransferFromWhere;
        this.nextTransferFromWhere += size;
        this.#write(encodeHATransferHeader(thisOffset, size), r.data.subarray(0, size));
        continue;
      }
      const idle = config.haSendHeartbeatInterval - (store.now() - this.lastWriteTimestamp);
      await this.#sleep(Math.min(1000, idle + 1));
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.wakeup();
    this.socket.destroy();
    this.owner.removeConnection(this);
  }

  /** Closes and waits for the writer to stop. */
  async shutdown(): Promise<void> {
    this.close();
    await this.#pumping;
  }
}
