/**
 * The master's end of the AutoSwitch HA stream (controller mode): the HA port and one connection per slave. A
 * connection reads the slave's handshake (broker id, flags), answers with the epoch entries, then sends the commit
 * log from where the slave asks (an empty slave: the first file, or the last with syncFromLastFile), never across an
 * epoch's end in one frame, each frame stamped with its epoch, the epoch's start offset and the confirm offset, and
 * an empty frame as a heartbeat. Each acknowledged offset may bring the slave into the SyncStateSet (it caught up
 * with the confirm offset) and moves the confirm offset (the least offset every replica of the set acknowledged).
 *
 * @see org.apache.rocketmq.store.ha.autoswitch.AutoSwitchHAService
 * @see org.apache.rocketmq.store.ha.autoswitch.AutoSwitchHAConnection
 */
import net from 'node:net';
import type { Logger } from '../../logger';
import type { DefaultMessageStore } from '../../store/message-store';
import type { EpochFileCache } from '../../store/autoswitch/epoch-file-cache';
import {
  AutoSwitchSlaveFrameDecoder, HAConnectionState, encodeAutoSwitchMasterFrame, encodeAutoSwitchTransferHeader,
} from '../../../protocol/ha/autoswitch-ha-codec';

/** Java's MixAll.ALL_ACK_IN_SYNC_STATE_SET: a send waits for every replica of the SyncStateSet. */
export const ALL_ACK_IN_SYNC_STATE_SET = -1;

export interface AutoSwitchHAServiceOptions {
  store: DefaultMessageStore;
  epochCache: EpochFileCache;
  logger: Logger;
  bindAddress?: string;
  /** The master's SyncStateSet and own id (the replicas whose acknowledgements count). */
  syncStateSet(): ReadonlySet<number>;
  localBrokerId(): number | null;
  /** A slave outside the SyncStateSet caught up with the confirm offset (Java maybeExpandInSyncStateSet). */
  onSlaveCaughtUp(slaveId: number): void;
  /** The store's confirm offset (Java DefaultMessageStore.getConfirmOffset): sent in each transfer frame. */
  confirmOffset(): number;
  /** A slave acknowledged an offset (Java updateConfirmOffsetWhenSlaveAck follows). */
  onSlaveAck?(slaveId: number): void;
  /** A slave's connection closed (Java removeConnection: a member of the SyncStateSet is reported gone). */
  onSlaveDisconnected?(slaveId: number): void;
}

export class AutoSwitchHAConnection {
  slaveId = -1;
  isSyncFromLastFile = false;
  isAsyncLearner = false;
  state: HAConnectionState = HAConnectionState.READY;
  slaveRequestOffset = -1;
  slaveAckOffset = -1;
  nextTransferFromWhere = -1;
  /** When the slave last held everything the master held. */
  lastCaughtUpTime = 0;
  #lastWrite = 0;
  #closed = false;
  #handshakeDue = false;
  #wake: (() => void) | null = null;
  #wakePending = false;
  readonly #decoder = new AutoSwitchSlaveFrameDecoder();

  constructor(private readonly service: AutoSwitchHAService, private readonly socket: net.Socket, private readonly log: Logger) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('error', (err) => this.log.info({ err }, 'AutoSwitch HA connection error'));
    socket.on('close', () => this.close());
    socket.on('drain', () => this.wakeup());
    void this.#pump().catch((err: unknown) => {
      this.log.error({ err }, 'AutoSwitch HA write failed');
      this.close();
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  wakeup(): void {
    const w = this.#wake;
    this.#wake = null;
    if (w) w();
    else this.#wakePending = true;
  }

  #onData(chunk: Buffer): void {
    let frames;
    try {
      frames = this.#decoder.push(chunk);
    } catch (err) {
      this.log.error({ err }, 'AutoSwitch HA: bad slave frame');
      this.close();
      return;
    }
    const store = this.service.options.store;
    for (const f of frames) {
      if (f.state === HAConnectionState.HANDSHAKE) {
        this.slaveId = f.brokerId;
        this.isSyncFromLastFile = f.isSyncFromLastFile;
        this.isAsyncLearner = f.isAsyncLearner;
        this.state = HAConnectionState.HANDSHAKE;
        this.#handshakeDue = true;
        this.log.info({ slaveId: f.brokerId, isSyncFromLastFile: f.isSyncFromLastFile, isAsyncLearner: f.isAsyncLearner }, 'receive slave handshake');
      } else {
        this.state = HAConnectionState.TRANSFER;
        this.slaveAckOffset = f.offset;
        if (this.slaveRequestOffset < 0) this.slaveRequestOffset = f.offset;
        if (f.offset >= store.getMaxPhyOffset()) {
          this.lastCaughtUpTime = Date.now();
          if (this.slaveId >= 0) this.service.connectionCaughtUpTimeTable.set(this.slaveId, this.lastCaughtUpTime);
        }
        this.service.onSlaveAck(this);
      }
    }
    this.wakeup();
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

  #send(b: Buffer, data?: Buffer): void {
    this.socket.cork();
    this.socket.write(b);
    if (data) this.socket.write(data);
    this.socket.uncork();
    this.#lastWrite = Date.now();
  }

  async #pump(): Promise<void> {
    const { store, epochCache } = this.service.options;
    const config = store.config;
    while (!this.#closed) {
      if (this.#handshakeDue) {
        this.#handshakeDue = false;
        this.#send(encodeAutoSwitchMasterFrame({
          state: HAConnectionState.HANDSHAKE, maxPhyOffset: store.getMaxPhyOffset(), lastEpoch: epochCache.lastEpoch(),
          epochEntries: epochCache.getAllEntries().map((e) => ({ epoch: e.epoch, startOffset: e.startOffset })),
        }));
        continue;
      }
      if (this.state !== HAConnectionState.TRANSFER || this.slaveRequestOffset < 0) {
        await this.#sleep(config.haSendHeartbeatInterval);
        continue;
      }
      if (this.nextTransferFromWhere < 0) {
        if (this.slaveRequestOffset === 0) {
          const max = store.commitLog.getMaxOffset();
          this.nextTransferFromWhere = this.isSyncFromLastFile
            ? Math.max(0, max - (max % config.mappedFileSizeCommitLog))
            : store.commitLog.getMinOffset();
        } else {
          this.nextTransferFromWhere = this.slaveRequestOffset;
        }
        this.log.info({ slaveId: this.slaveId, from: this.nextTransferFromWhere }, 'master transfer data to slave');
      }
      if (this.socket.writableNeedDrain) {
        await this.#sleep(1000);
        continue;
      }
      this.#wakePending = false;
      const entry = epochCache.findEpochEntryByOffset(this.nextTransferFromWhere) ?? epochCache.lastEntry() ?? epochCache.firstEntry();
      const r = await store.getCommitLogData(this.nextTransferFromWhere, config.haTransferBatchSize);
      if (this.#closed) break;
      const confirmOffset = this.service.options.confirmOffset();
      if (r && r.data.length > 0 && entry) {
        const size = Math.min(r.data.length, config.haTransferBatchSize, Math.max(0, entry.endOffset - this.nextTransferFromWhere));
        if (size > 0) {
          const at = this.nextTransferFromWhere;
          this.nextTransferFromWhere += size;
          this.#send(encodeAutoSwitchTransferHeader(at, entry.epoch, entry.startOffset, confirmOffset, size), r.data.subarray(0, size));
          continue;
        }
      }
      if (Date.now() - this.#lastWrite > config.haSendHeartbeatInterval && entry) {
        this.#send(encodeAutoSwitchMasterFrame({
          state: HAConnectionState.TRANSFER, offset: this.nextTransferFromWhere, epoch: entry.epoch, epochStartOffset: entry.startOffset, confirmOffset, body: Buffer.alloc(0),
        }));
      }
      await this.#sleep(Math.max(1, config.haSendHeartbeatInterval - (Date.now() - this.#lastWrite)));
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.socket.destroy();
    this.wakeup();
    this.service.removeConnection(this);
  }
}

export class AutoSwitchHAService {
  readonly connections = new Set<AutoSwitchHAConnection>();
  /** Slave id → when it last held everything the master held (kept across reconnections, as Java). */
  readonly connectionCaughtUpTimeTable = new Map<number, number>();
  #server: net.Server | null = null;
  #port = 0;
  #removeAppendListener: (() => void) | null = null;
  readonly #ackWaiters: Array<{ offset: number; need: number; resolve: (ok: boolean) => void; timer: NodeJS.Timeout }> = [];

  constructor(readonly options: AutoSwitchHAServiceOptions) {}

  get listenPort(): number {
    return this.#port;
  }

  async start(port: number): Promise<void> {
    if (this.#server) return;
    const server = net.createServer((socket) => {
      const conn = new AutoSwitchHAConnection(this, socket, this.options.logger.child({ slave: `${socket.remoteAddress}:${socket.remotePort}` }));
      this.connections.add(conn);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port, host: this.options.bindAddress }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (err) => this.options.logger.error({ err }, 'AutoSwitch HA server error'));
    this.#server = server;
    this.#port = (server.address() as net.AddressInfo).port;
    this.#removeAppendListener = this.options.store.onCommitLogAppend(() => {
      for (const c of this.connections) c.wakeup();
    });
  }

  /** Drops every slave connection (a role change). */
  destroyConnections(): void {
    for (const c of [...this.connections]) c.close();
  }

  removeConnection(c: AutoSwitchHAConnection): void {
    this.connections.delete(c);
    if (this.#server && c.slaveId >= 0) this.options.onSlaveDisconnected?.(c.slaveId);
  }

  /**
   * The SyncStateSet without the replicas that have not caught up for haMaxTimeSlaveNotCatchup, nor those that never
   * connected to this master (Java 5.3.3's maybeShrinkSyncStateSet).
   */
  maybeShrinkSyncStateSet(): Set<number> {
    const next = new Set(this.options.syncStateSet());
    const max = this.options.store.config.haMaxTimeSlaveNotCatchup;
    for (const [id, t] of this.connectionCaughtUpTimeTable) if (next.has(id) && Date.now() - t > max) next.delete(id);
    const local = this.options.localBrokerId();
    for (const id of [...next]) if (id !== local && !this.connectionCaughtUpTimeTable.has(id)) next.delete(id);
    return next;
  }

  /**
   * The least offset every replica of the SyncStateSet acknowledged, the master's end at most (Java
   * computeConfirmOffset); `current` when a member of the set other than this broker has no connection (its
   * acknowledgements are unknown: the confirm offset stays where it is).
   */
  computeConfirmOffset(current: number): number {
    const set = this.options.syncStateSet();
    const local = this.options.localBrokerId();
    const ids = new Set([...this.connections].map((c) => c.slaveId));
    for (const id of set) {
      if (id !== local && local !== null && !ids.has(id)) return current;
    }
    let min = this.options.store.getMaxPhyOffset();
    for (const c of this.connections) {
      if (set.has(c.slaveId) && c.slaveAckOffset > 0) min = Math.min(min, c.slaveAckOffset);
    }
    return min;
  }

  /** Replicas of the SyncStateSet (the master included) holding `offset`. */
  ackedReplicasNums(offset: number): number {
    const set = this.options.syncStateSet();
    let n = 1;
    for (const c of this.connections) if (set.has(c.slaveId) && c.slaveAckOffset >= offset) n++;
    return n;
  }

  /** Replicas (the master included) holding `offset`, in the set or not (Java's count for needAckNums). */
  #connectionAcks(offset: number): number {
    let n = 1;
    for (const c of this.connections) if (c.slaveAckOffset >= offset) n++;
    return n;
  }

  /** Whether a wait is over (Java GroupTransferService.doWaitTransfer): need -1 is every replica of the current set. */
  #acked(offset: number, need: number): boolean {
    if (need === ALL_ACK_IN_SYNC_STATE_SET) {
      const set = this.options.syncStateSet();
      return set.size <= 1 || this.ackedReplicasNums(offset) >= set.size;
    }
    return need <= 1 || this.#connectionAcks(offset) >= need;
  }

  onSlaveAck(c: AutoSwitchHAConnection): void {
    const set = this.options.syncStateSet();
    if (!c.isAsyncLearner && c.slaveId >= 0 && !set.has(c.slaveId) && c.slaveAckOffset >= this.options.confirmOffset() &&
      c.slaveAckOffset >= (this.options.epochCache.lastEntry()?.startOffset ?? 0)) this.options.onSlaveCaughtUp(c.slaveId);
    if (c.slaveId >= 0) this.options.onSlaveAck?.(c.slaveId);
    this.checkAckWaiters();
  }

  /** Settles the waits that are over (after an acknowledgement, or a SyncStateSet change). */
  checkAckWaiters(): void {
    for (let i = this.#ackWaiters.length - 1; i >= 0; i--) {
      const w = this.#ackWaiters[i];
      if (this.#acked(w.offset, w.need)) {
        clearTimeout(w.timer);
        this.#ackWaiters.splice(i, 1);
        w.resolve(true);
      }
    }
  }

  /**
   * Ends every wait with false (FLUSH_SLAVE_TIMEOUT for its put): this broker stops being the master, so nothing it
   * appended and no replica confirmed may be answered PUT_OK, not even by a SyncStateSet that changes afterwards.
   */
  failAckWaiters(): void {
    for (const w of this.#ackWaiters.splice(0)) {
      clearTimeout(w.timer);
      w.resolve(false);
    }
  }

  /**
   * Resolves true once `need` replicas (the master included) hold `offset` (ALL_ACK_IN_SYNC_STATE_SET: every
   * replica of the SyncStateSet as it is when they do), false after `timeoutMillis`.
   */
  waitAcks(offset: number, need: number, timeoutMillis: number): Promise<boolean> {
    if (this.#acked(offset, need)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const w = {
        offset, need, resolve,
        timer: setTimeout(() => {
          const i = this.#ackWaiters.indexOf(w);
          if (i >= 0) this.#ackWaiters.splice(i, 1);
          resolve(false);
        }, timeoutMillis),
      };
      w.timer.unref();
      this.#ackWaiters.push(w);
    });
  }

  async shutdown(): Promise<void> {
    this.#removeAppendListener?.();
    this.#removeAppendListener = null;
    this.destroyConnections();
    this.failAckWaiters();
    const s = this.#server;
    this.#server = null;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
