/**
 * The slave's end of the AutoSwitch HA stream (controller mode): connects to the master's HA address, sends its
 * handshake (broker id, isSyncFromLastFile, isAsyncLearner), reads the master's epoch entries, checks where the two
 * logs agree, then reports its max offset (TRANSFER) and appends each transfer to its commit log, recording a new
 * epoch entry when the master's epoch changes, and reporting after each transfer and every haSendHeartbeatInterval.
 *
 * Truncation (Java's doTruncate): the slave's log is cut back to the consistent point of the two epoch files (the
 * end of the latest epoch both hold with the same start offset, at most the shorter of the two), with its consume
 * queues, index and epoch entries; an old master thus drops what it wrote that the new master never got, then
 * replicates. Before each connection a partial record at the end of the log is cut off (truncateInvalidMsg).
 *
 * @see org.apache.rocketmq.store.ha.autoswitch.AutoSwitchHAClient
 */
import type net from 'node:net';
import type { Logger } from '../../logger';
import { HA_CONNECT_TIMEOUT_MILLIS, connectToMaster } from '../ha-connect';
import type { DefaultMessageStore } from '../../store/message-store';
import { EpochFileCache } from '../../store/autoswitch/epoch-file-cache';
import {
  AutoSwitchMasterFrameDecoder, HAConnectionState, encodeAutoSwitchSlaveFrame, type AutoSwitchMasterFrame,
} from '../../../protocol/ha/autoswitch-ha-codec';

export interface AutoSwitchHAClientOptions {
  store: DefaultMessageStore;
  epochCache: EpochFileCache;
  brokerId: number;
  syncFromLastFile: boolean;
  asyncLearner: boolean;
  logger: Logger;
  /** The master's confirm offset, bounded by this log's end, arrived (Java's store.setConfirmOffset). */
  onConfirmOffset?(offset: number): void;
}

export class AutoSwitchHAClient {
  #haMasterAddress: string | null = null;
  #socket: net.Socket | null = null;
  #decoder: AutoSwitchMasterFrameDecoder | null = null;
  #state: HAConnectionState = HAConnectionState.READY;
  #queue: AutoSwitchMasterFrame[] = [];
  #processing: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #running = false;
  #lastWriteTimestamp = 0;
  #lastReadTimestamp = 0;
  #currentReceivedEpoch = -1;
  /** The master's confirm offset, bounded by this log's end (Java setConfirmOffset). */
  confirmOffset = -1;
  /** Connections opened so far. */
  connectCount = 0;
  /** Handshakes refused: no consistent point with the master, or the truncation failed. */
  refusedHandshakes = 0;
  /** Truncations done at a handshake (the log went beyond the consistent point), and the last point. */
  truncations = 0;
  lastTruncateOffset = -1;
  #connecting = false;
  /** The truncation and connect started by a tick, while it runs (awaited by shutdown). */
  #connectTask: Promise<void> | null = null;
  /** Tests: stops reading the master's stream (its bytes wait in the socket), as a slave cut off would. */
  #paused = false;

  constructor(private readonly options: AutoSwitchHAClientOptions) {}

  get state(): HAConnectionState {
    return this.#state;
  }

  get haMasterAddress(): string | null {
    return this.#haMasterAddress;
  }

  /** The master's HA address (from the name server's REGISTER_BROKER answer); a new one drops the connection. */
  updateHaMasterAddress(addr: string | null): void {
    if (addr === this.#haMasterAddress) return;
    this.options.logger.info({ old: this.#haMasterAddress, new: addr }, 'update master HA address');
    this.#haMasterAddress = addr;
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
    // a truncation before a reconnect may be running: the caller (a change to master) truncates and writes the
    // epoch file next, and must not do it beside this one
    while (this.#connectTask) await this.#connectTask;
  }

  #config() {
    return this.options.store.config;
  }

  #schedule(): void {
    if (!this.#running) return;
    this.#timer = setTimeout(() => {
      this.#tick();
      this.#schedule();
    }, Math.max(1, Math.min(1000, this.#config().haSendHeartbeatInterval)));
    this.#timer.unref();
  }

  /** Tests: stop (true) or go on (false) reading the master's stream; the connection stays open. */
  pauseReading(paused: boolean): void {
    this.#paused = paused;
    if (paused) this.#socket?.pause();
    else this.#socket?.resume();
  }

  #tick(): void {
    if (!this.#running) return;
    if (!this.#socket) {
      if (this.#connecting || !this.#haMasterAddress) return;
      this.#connecting = true;
      const task = this.#truncateInvalidMsgThenConnect().finally(() => {
        this.#connecting = false;
        if (this.#connectTask === task) this.#connectTask = null;
      });
      this.#connectTask = task;
      return;
    }
    // Connected: the handshake's answer or the transfers (a heartbeat at least every haSendHeartbeatInterval) must come.
    if (this.#state !== HAConnectionState.TRANSFER && this.#state !== HAConnectionState.HANDSHAKE) return;
    const now = Date.now();
    if (this.#state === HAConnectionState.TRANSFER && now - this.#lastWriteTimestamp > this.#config().haSendHeartbeatInterval) this.#reportMaxOffset();
    if (now - this.#lastReadTimestamp > this.#config().haHousekeepingInterval) {
      this.options.logger.warn({ haMasterAddress: this.#haMasterAddress }, 'AutoSwitchHAClient, master not response some time, so close connection');
      this.closeMaster();
    }
  }

  /** Java's READY state: a partial record at the end of the log is cut off, with the epoch entries beyond it. */
  async #truncateInvalidMsgThenConnect(): Promise<void> {
    while (this.#processing) await this.#processing;
    try {
      const truncateOffset = await this.options.store.truncateInvalidMsg();
      if (truncateOffset >= 0) await this.options.epochCache.truncateSuffixByOffset(truncateOffset);
    } catch (err) {
      this.options.logger.error({ err }, 'AutoSwitchHAClient, truncating the invalid messages failed');
      return;
    }
    if (this.#running && !this.#socket) this.#connect();
  }

  #connect(): void {
    const addr = this.#haMasterAddress;
    if (!addr) return;
    const i = addr.lastIndexOf(':');
    const host = addr.slice(0, i);
    const port = Number(addr.slice(i + 1));
    if (!host || !Number.isInteger(port) || port <= 0) {
      this.options.logger.error({ addr }, 'bad master HA address');
      return;
    }
    const socket = connectToMaster(host, port, () => {
      this.options.logger.warn({ haMasterAddress: addr, timeoutMillis: HA_CONNECT_TIMEOUT_MILLIS }, 'AutoSwitchHAClient connect to master timed out');
    });
    this.#socket = socket;
    this.#decoder = new AutoSwitchMasterFrameDecoder();
    this.#queue = [];
    socket.setNoDelay(true);
    if (this.#paused) socket.pause();
    socket.on('connect', () => {
      if (this.#socket !== socket) return;
      this.connectCount++;
      this.#state = HAConnectionState.HANDSHAKE;
      this.#lastReadTimestamp = Date.now();
      this.#write(encodeAutoSwitchSlaveFrame({
        state: HAConnectionState.HANDSHAKE, isSyncFromLastFile: this.options.syncFromLastFile, isAsyncLearner: this.options.asyncLearner, brokerId: this.options.brokerId,
      }));
      this.options.logger.info({ haMasterAddress: addr, brokerId: this.options.brokerId }, 'AutoSwitchHAClient connected, handshake sent');
    });
    socket.on('data', (chunk: Buffer) => this.#onData(socket, chunk));
    socket.on('error', (err) => this.options.logger.info({ err, haMasterAddress: addr }, 'AutoSwitchHAClient connection error'));
    socket.on('close', () => {
      if (this.#socket === socket) this.closeMaster();
    });
  }

  #onData(socket: net.Socket, chunk: Buffer): void {
    if (this.#socket !== socket || !this.#decoder) return;
    this.#lastReadTimestamp = Date.now();
    try {
      this.#queue.push(...this.#decoder.push(chunk));
    } catch (err) {
      this.options.logger.error({ err }, 'AutoSwitchHAClient, bad frame from master');
      this.closeMaster();
      return;
    }
    if (!this.#processing && this.#queue.length) {
      this.#processing = this.#process(socket).catch((err: unknown) => {
        this.options.logger.error({ err }, 'AutoSwitchHAClient, processing failed');
        if (this.#socket === socket) this.closeMaster();
      }).finally(() => { this.#processing = null; });
    }
  }

  async #process(socket: net.Socket): Promise<void> {
    const store = this.options.store;
    while (this.#queue.length && this.#socket === socket) {
      const f = this.#queue.shift()!;
      if (f.state === HAConnectionState.HANDSHAKE) {
        if (!(await this.#doTruncate(f.epochEntries, f.maxPhyOffset))) {
          this.refusedHandshakes++;
          this.closeMaster();
          return;
        }
        this.#state = HAConnectionState.TRANSFER;
        this.#reportMaxOffset();
        continue;
      }
      const slaveMax = store.getMaxPhyOffset();
      if (slaveMax !== 0 && f.body.length > 0 && slaveMax !== f.offset) {
        this.options.logger.error({ slave: slaveMax, master: f.offset }, 'master pushed offset not equal the max phy offset in slave');
        this.closeMaster();
        return;
      }
      if (f.epoch !== this.#currentReceivedEpoch) {
        this.#currentReceivedEpoch = f.epoch;
        if (f.epoch > this.options.epochCache.lastEpoch()) await this.options.epochCache.appendEntryOverEmpty({ epoch: f.epoch, startOffset: f.epochStartOffset });
      }
      if (f.body.length > 0 && !(await store.appendToCommitLog(f.offset, f.body))) {
        this.options.logger.error({ offset: f.offset }, 'appending the master\'s data failed');
        this.closeMaster();
        return;
      }
      this.confirmOffset = Math.min(f.confirmOffset, store.getMaxPhyOffset());
      this.options.onConfirmOffset?.(this.confirmOffset);
      if (this.#socket === socket) this.#reportMaxOffset();
    }
  }

  /**
   * Java's doTruncate: a replica with no epoch entries is new and replicates from where its log ends; any other
   * finds the consistent point with the master's entries (the master's last one ending at its max offset) and cuts
   * its commit log, consume queues, index and epoch entries back to it. False (the handshake fails) when there is no
   * consistent point or the truncation failed.
   */
  async #doTruncate(masterEntries: { epoch: number; startOffset: number }[], masterEndOffset: number): Promise<boolean> {
    const local = this.options.epochCache;
    const store = this.options.store;
    if (local.entrySize === 0) {
      this.options.logger.info({ maxPhyOffset: store.getMaxPhyOffset() }, 'Slave local epochCache is empty, skip truncate log');
      return true;
    }
    const masterCache = new EpochFileCache();
    await masterCache.initCacheFromEntries(masterEntries);
    masterCache.setLastEpochEntryEndOffset(masterEndOffset);
    const localCache = new EpochFileCache();
    await localCache.initCacheFromEntries(local.getAllEntries());
    localCache.setLastEpochEntryEndOffset(store.getMaxPhyOffset());
    const point = localCache.findConsistentPoint(masterCache);
    if (point < 0) {
      this.options.logger.error({ master: masterEntries, local: local.getAllEntries() }, 'Failed to find a consistent point between the master\'s and this replica\'s epochs');
      return false;
    }
    if (point < store.getMaxPhyOffset()) {
      this.options.logger.warn({ truncateOffset: point, maxPhyOffset: store.getMaxPhyOffset(), master: masterEntries, local: local.getAllEntries() },
        'this log goes beyond the consistent point with the master: truncating');
      if (!(await store.truncateFiles(point))) {
        this.options.logger.error({ truncateOffset: point }, 'Failed to truncate slave log');
        return false;
      }
      this.truncations++;
      this.lastTruncateOffset = point;
    }
    await local.truncateSuffixByOffset(point);
    return true;
  }

  #reportMaxOffset(): void {
    this.#write(encodeAutoSwitchSlaveFrame({ state: HAConnectionState.TRANSFER, offset: this.options.store.getMaxPhyOffset() }));
  }

  #write(b: Buffer): void {
    const s = this.#socket;
    if (!s || s.destroyed) return;
    s.write(b);
    this.#lastWriteTimestamp = Date.now();
  }

  closeMaster(): void {
    const s = this.#socket;
    if (!s) return;
    this.#socket = null;
    this.#decoder = null;
    this.#queue = [];
    this.#state = HAConnectionState.READY;
    this.#currentReceivedEpoch = -1;
    s.destroy();
  }
}
