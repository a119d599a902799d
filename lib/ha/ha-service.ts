/**
 * Replication of the commit log between a master and its slaves, over its own TCP port (not remoting): the master
 * accepts slaves (one HAConnection each) and releases SYNC_MASTER puts once a slave acknowledged them (Java's
 * GroupTransferService: one report releases every put it covers); a slave runs the HAClient. Sits above lib/store
 * (which it reads and appends through its public API) and knows nothing of the broker.
 *
 * @see org.apache.rocketmq.store.ha.HAService
 */
import net from 'node:net';
import { type Logger, componentLogger } from '../logger';
import type { DefaultMessageStore, ReplicaWaiter } from '../store/message-store';
import { HAConnection } from './ha-connection';
import { HAClient } from './ha-client';

export interface HAServiceOptions {
  /** Port to accept slaves on (0: any free port). */
  listenPort: number;
  /** Address to bind (default all interfaces, as Java). */
  bindAddress?: string;
  logger: Logger;
}

interface TransferWaiter {
  nextOffset: number;
  deadline: number;
  resolve: (ok: boolean) => void;
}

export class HAService implements ReplicaWaiter {
  readonly connections = new Set<HAConnection>();
  readonly haClient: HAClient;
  /** The highest offset a slave acknowledged. */
  push2SlaveMaxOffset = 0;
  readonly #log: Logger;
  #server: net.Server | null = null;
  #port = 0;
  #waiters: TransferWaiter[] = [];
  #waiterTimer: NodeJS.Timeout | null = null;
  #housekeeping: NodeJS.Timeout | null = null;
  #removeAppendListener: (() => void) | null = null;
  #started = false;

  constructor(readonly store: DefaultMessageStore, private readonly options: HAServiceOptions) {
    this.#log = componentLogger('ha-service', options.logger);
    this.haClient = new HAClient(store, componentLogger('ha-client', options.logger));
  }

  /** The bound HA port (after start). */
  get listenPort(): number {
    return this.#port;
  }

  /** Connected slaves (Java's connectionCount). */
  get connectionCount(): number {
    return this.connections.size;
  }

  /** Listens on `listenPort` (default: the option) and starts the slave's client. */
  async start(listenPort = this.options.listenPort): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    const server = net.createServer((socket) => this.#accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err) => {
        this.#started = false;
        reject(err);
      });
      server.listen({ port: listenPort, host: this.options.bindAddress }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (err) => this.#log.error({ err }, 'HA server error'));
    this.#server = server;
    this.#port = (server.address() as net.AddressInfo).port;
    this.store.setReplicaWaiter(this);
    this.#removeAppendListener = this.store.onCommitLogAppend(() => {
      for (const c of this.connections) c.wakeup();
    });
    this.#housekeeping = setInterval(() => {
      const now = this.store.now();
      for (const c of [...this.connections]) c.checkExpired(now);
    }, Math.max(10, Math.min(1000, this.store.config.haHousekeepingInterval)));
    this.#housekeeping.unref();
    this.haClient.start();
    this.#log.info({ port: this.#port }, 'HA service started');
  }

  async shutdown(): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    await this.haClient.shutdown();
    if (this.#housekeeping) clearInterval(this.#housekeeping);
    this.#housekeeping = null;
    this.#removeAppendListener?.();
    this.#removeAppendListener = null;
    this.store.setReplicaWaiter(null);
    const server = this.#server;
    this.#server = null;
    const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    await Promise.all([...this.connections].map((c) => c.shutdown()));
    await closed;
    if (this.#waiterTimer) clearTimeout(this.#waiterTimer);
    this.#waiterTimer = null;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w.resolve(false);
  }

  #accept(socket: net.Socket): void {
    if (!this.#started) {
      socket.destroy();
      return;
    }
    const conn = new HAConnection(this, socket, this.#log);
    this.#log.info({ clientAddr: conn.clientAddr }, 'HAService receive new connection');
    this.connections.add(conn);
    conn.start();
  }

  removeConnection(conn: HAConnection): void {
    this.connections.delete(conn);
  }

  /** A slave's address for the master's HA port changed (slave side). */
  updateMasterAddress(newAddr: string | null): void {
    this.haClient.updateMasterAddress(newAddr);
  }

  isSlaveOK(masterPutWhere: number): boolean {
    return this.connections.size > 0 && masterPutWhere - this.push2SlaveMaxOffset < this.store.config.haSlaveFallbehindMax;
  }

  /** How far the slaves are behind the commit log (Java's slaveFallBehindMuch). */
  slaveFallBehindMuch(): number {
    return this.store.getMaxPhyOffset() - this.push2SlaveMaxOffset;
  }

  notifyTransferSome(offset: number): void {
    if (offset <= this.push2SlaveMaxOffset) return;
    this.push2SlaveMaxOffset = offset;
    if (this.#waiters.length === 0) return;
    const keep: TransferWaiter[] = [];
    for (const w of this.#waiters) {
      if (w.nextOffset <= offset) w.resolve(true);
      else keep.push(w);
    }
    this.#waiters = keep;
    if (keep.length === 0 && this.#waiterTimer) {
      clearTimeout(this.#waiterTimer);
      this.#waiterTimer = null;
    }
  }

  waitTransfer(nextOffset: number, timeoutMillis: number): Promise<boolean> {
    if (this.push2SlaveMaxOffset >= nextOffset) return Promise.resolve(true);
    if (!this.#started) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      this.#waiters.push({ nextOffset, deadline: Date.now() + timeoutMillis, resolve });
      // Wake the writers: the data is there (Java's wakeupAll after putRequest).
      for (const c of this.connections) c.wakeup();
      if (!this.#waiterTimer) this.#armWaiterTimer();
    });
  }

  /** One timer for the earliest deadline (the waiters arrive in deadline order). */
  #armWaiterTimer(): void {
    const head = this.#waiters[0];
    if (!head) return;
    this.#waiterTimer = setTimeout(() => {
      this.#waiterTimer = null;
      const now = Date.now();
      const keep: TransferWaiter[] = [];
      for (const w of this.#waiters) {
        if (w.deadline <= now) w.resolve(this.push2SlaveMaxOffset >= w.nextOffset);
        else keep.push(w);
      }
      this.#waiters = keep;
      this.#armWaiterTimer();
    }, Math.max(1, head.deadline - Date.now()));
    this.#waiterTimer.unref();
  }

  /** Runtime figures for GET_BROKER_RUNTIME_INFO. */
  runtimeInfo(): Record<string, string> {
    return {
      haConnectionCount: String(this.connections.size),
      haPush2SlaveMaxOffset: String(this.push2SlaveMaxOffset),
    };
  }
}
