/**
 * The slave's end of replication: connects to the master's HA address, reports its commit-log max offset (at once on
 * connecting, after each transfer it stored, and every haSendHeartbeatInterval), appends each transfer to its own
 * commit log (the store dispatches consume queues and the index from it) and reconnects when the connection drops.
 * A transfer that does not continue the slave's log closes the connection, as Java does.
 *
 * Java's HAClient waits one heartbeat interval before its first report; this one reports on connecting (the same
 * bytes, earlier).
 *
 * @see org.apache.rocketmq.store.ha.HAService.HAClient
 */
import type net from 'node:net';
import type { Logger } from '../logger';
import type { DefaultMessageStore } from '../store/message-store';
import { HATransferDecoder, encodeHASlaveReport, type HATransfer } from '../../protocol/ha/ha-codec';
import { HA_CONNECT_TIMEOUT_MILLIS, connectToMaster } from './ha-connect';

/** Pause reading while this many received bytes wait to be appended. */
const MAX_BUFFERED = 8 * 1024 * 1024;

export class HAClient {
  #masterAddress: string | null = null;
  #socket: net.Socket | null = null;
  #decoder: HATransferDecoder | null = null;
  #queue: HATransfer[] = [];
  #queuedBytes = 0;
  #processing: Promise<void> | null = null;
  #currentReportedOffset = 0;
  #lastWriteTimestamp = 0;
  /** When the last reconnect right after a close was made. */
  #lastQuickReconnect = 0;
  /** When the master last sent anything (a transfer or its heartbeat): the housekeeping's clock, as Java 5.x's. */
  #lastReadTimestamp = 0;
  #timer: NodeJS.Timeout | null = null;
  #running = false;
  #connecting = false;
  /** Connections opened so far (tests and runtime info). */
  connectCount = 0;
  /** Connect attempts given up after HA_CONNECT_TIMEOUT_MILLIS. */
  connectTimeouts = 0;

  constructor(private readonly store: DefaultMessageStore, private readonly log: Logger) {}

  get masterAddress(): string | null {
    return this.#masterAddress;
  }

  get connected(): boolean {
    return this.#socket !== null && !this.#connecting;
  }

  /** The master's HA address ("ip:port"); a new one drops the current connection. */
  updateMasterAddress(newAddr: string | null): void {
    if (newAddr === this.#masterAddress) return;
    this.log.info({ old: this.#masterAddress, new: newAddr }, 'update master address');
    this.#masterAddress = newAddr;
    this.closeMaster();
    this.#tick();
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#schedule();
    this.#tick();
  }

  async shutdown(): Promise<void> {
    this.#running = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.closeMaster();
    while (this.#processing) await this.#processing;
  }

  #interval(): number {
    return Math.max(1, Math.min(5000, this.store.config.haSendHeartbeatInterval));
  }

  #schedule(): void {
    if (!this.#running) return;
    this.#timer = setTimeout(() => {
      this.#tick();
      this.#schedule();
    }, this.#interval());
    this.#timer.unref();
  }

  /** Connects when needed, reports when a heartbeat is due, drops a connection quiet too long (Java's run loop). */
  #tick(): void {
    if (!this.#running) return;
    if (!this.#socket) {
      this.#connect();
      return;
    }
    if (this.#connecting) return;
    const now = this.store.now();
    if (now - this.#lastWriteTimestamp > this.store.config.haSendHeartbeatInterval) this.#report(this.#currentReportedOffset);
    // Nothing read for haHousekeepingInterval, though the master sends a heartbeat every haSendHeartbeatInterval:
    // the link is cut (Java 5.x's lastReadTimestamp; 4.9.8 timed its own reports, which go out every 5 s whatever
    // happens to them, so a cut link was never noticed and the slave came back only when a late reset reached it).
    if (now - this.#lastReadTimestamp > this.store.config.haHousekeepingInterval) {
      this.log.warn({ masterAddress: this.#masterAddress, sinceLastReadMillis: now - this.#lastReadTimestamp }, 'HAClient, master not response some time, so close connection');
      this.closeMaster();
    }
  }

  #connect(): void {
    const addr = this.#masterAddress;
    if (!addr) return;
    const i = addr.lastIndexOf(':');
    const host = addr.slice(0, i);
    const port = Number(addr.slice(i + 1));
    if (!host || !Number.isInteger(port) || port <= 0) {
      this.log.error({ addr }, 'bad master HA address');
      return;
    }
    const socket = connectToMaster(host, port, () => {
      this.connectTimeouts++;
      this.log.warn({ masterAddress: addr, timeoutMillis: HA_CONNECT_TIMEOUT_MILLIS }, 'HAClient connect to master timed out');
    });
    this.#socket = socket;
    this.#connecting = true;
    this.#decoder = new HATransferDecoder();
    socket.setNoDelay(true);
    socket.on('connect', () => {
      if (this.#socket !== socket) return;
      this.#connecting = false;
      this.connectCount++;
      this.#lastReadTimestamp = this.store.now();
      this.#currentReportedOffset = this.store.getMaxPhyOffset();
      this.log.info({ masterAddress: addr, offset: this.#currentReportedOffset }, 'HAClient connected to master');
      this.#report(this.#currentReportedOffset);
    });
    socket.on('data', (chunk: Buffer) => this.#onData(socket, chunk));
    socket.on('error', (err) => this.log.info({ err, masterAddress: addr }, 'HAClient connection error'));
    socket.on('close', () => {
      if (this.#socket !== socket) return;
      const wasConnected = !this.#connecting;
      this.closeMaster();
      // The master closed an established connection (it restarted, or dropped a slave it had not heard from while
      // this process was stopped): connect again at once, as Java 4.9.8's loop does, rather than at the next tick up
      // to 5 s later; at most once per tick interval, so a master that closes every connection is not hammered.
      const now = this.store.now();
      if (wasConnected && this.#running && now - this.#lastQuickReconnect >= this.#interval()) {
        this.#lastQuickReconnect = now;
        this.#connect();
      }
    });
  }

  #onData(socket: net.Socket, chunk: Buffer): void {
    if (this.#socket !== socket || !this.#decoder) return;
    this.#lastReadTimestamp = this.store.now();
    let transfers: HATransfer[];
    try {
      transfers = this.#decoder.push(chunk);
    } catch (err) {
      this.log.error({ err }, 'HAClient, bad transfer from master');
      this.closeMaster();
      return;
    }
    for (const t of transfers) {
      if (t.data.length === 0) continue;
      // The decoder's views may share the chunk: keep them as they are (no copy); the chunk is not reused.
      this.#queue.push(t);
      this.#queuedBytes += t.data.length;
    }
    if (this.#queuedBytes > MAX_BUFFERED) socket.pause();
    if (!this.#processing && this.#queue.length) {
      this.#processing = this.#process(socket).finally(() => { this.#processing = null; });
    }
  }

  /**
   * Appends the queued transfers in order (Java's dispatchReadRequest): all that arrived together are appended at
   * once and handed to the OS with one write, then reported one by one as Java does (a report per transfer).
   */
  async #process(socket: net.Socket): Promise<void> {
    while (this.#queue.length && this.#socket === socket) {
      const batch = this.#queue.splice(0);
      this.#queuedBytes = 0;
      let expected = this.store.getMaxPhyOffset();
      const appends: Promise<boolean>[] = [];
      for (const t of batch) {
        if (expected !== 0 && expected !== t.phyOffset) {
          this.log.error({ slave: expected, master: t.phyOffset }, 'master pushed offset not equal the max phy offset in slave');
          await Promise.all(appends);
          this.closeMaster();
          return;
        }
        appends.push(this.store.appendToCommitLog(t.phyOffset, t.data));
        expected = t.phyOffset + t.data.length;
      }
      const oks = await Promise.all(appends);
      if (this.#socket !== socket) return;
      if (socket.isPaused()) socket.resume();
      socket.cork();
      for (let i = 0; i < batch.length && oks[i]; i++) {
        const end = batch[i].phyOffset + batch[i].data.length;
        if (end > this.#currentReportedOffset) {
          this.#currentReportedOffset = end;
          this.#report(end);
        }
      }
      socket.uncork();
      if (oks.some((ok) => !ok)) {
        this.closeMaster();
        return;
      }
    }
  }

  #report(offset: number): void {
    const s = this.#socket;
    if (!s || this.#connecting || s.destroyed) return;
    s.write(encodeHASlaveReport(offset));
    this.#lastWriteTimestamp = this.store.now();
  }

  closeMaster(): void {
    const s = this.#socket;
    if (!s) return;
    this.#socket = null;
    this.#connecting = false;
    this.#decoder = null;
    this.#queue = [];
    this.#queuedBytes = 0;
    this.#lastWriteTimestamp = 0;
    this.#lastReadTimestamp = 0;
    s.destroy();
  }
}
