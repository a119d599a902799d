/**
 * One remoting connection over a net.Socket (or tls.TLSSocket), shared by RemotingClient and RemotingServer.
 *
 * - Incoming bytes go through a FrameDecoder; each frame is decoded into a RemotingCommand. Responses complete
 *   the pending request with the same opaque; requests go to the owner's `onRequest` callback.
 * - Outgoing frames are encoded at once (so a command mutated later does not change what is sent), queued, and
 *   flushed once per event-loop turn (setImmediate; clients: process.nextTick, after the promise continuations
 *   of the current task) inside socket.cork()/uncork(), so many small frames leave in one writev. A body is written as its own buffer after `encodeHeaderFrame()`, never copied. When the socket
 *   reports backpressure (write() returns false) flushing waits for 'drain'.
 * - Timeouts use no timer per request: one timer per connection is armed for the earliest deadline among the
 *   pending requests. When it fires it rejects every expired request with RemotingTimeoutError and re-arms for
 *   the next earliest deadline. A request therefore times out within the timer's granularity (about 1 ms) of its
 *   deadline. A response that arrives after the deadline but before the sweep still wins.
 * - Write backlog (servers): the bytes queued here plus those the socket still buffers. Above
 *   `writeBufferHighWaterMark` the connection stops reading (no new requests from a peer that does not read its
 *   answers), and reads again once the backlog is back under `writeBufferLowWaterMark`; above
 *   `maxWriteBacklogBytes` before a new frame (answers of requests already in flight) the connection is closed.
 * - Malformed input (ProtocolError from the decoder or RemotingCommand.decode) logs an error with the peer address
 *   and closes the connection; closing rejects every pending request with RemotingSendRequestError (retriable).
 *
 * @see org.apache.rocketmq.remoting.netty.NettyRemotingAbstract (responseTable, scanResponseTable, processMessageReceived)
 * @see org.apache.rocketmq.remoting.netty.ResponseFuture
 */
import type { Socket } from 'node:net';
import { FrameDecoder, DEFAULT_MAX_FRAME_LENGTH } from '../../protocol/frame';
import { type EncodeOptions, RPC_ONEWAY, RPC_TYPE_RESPONSE, RemotingCommand } from '../../protocol/remoting-command';
import { ProtocolError, RemotingSendRequestError, RemotingTimeoutError } from '../errors';
import type { Logger } from '../logger';
import { TypedEmitter } from './typed-emitter';

/** What callers see of a connection (Java's Netty Channel, as far as RocketMQ uses it). */
export interface Channel {
  /** Process-unique connection id. */
  readonly id: number;
  /** The peer as "ip:port". */
  readonly remoteAddress: string;
  /** Our end as "ip:port". */
  readonly localAddress: string;
  readonly isActive: boolean;
  close(): void;
}

let requestId = 0;
/**
 * The next opaque: one process-wide counter, as Java's `RemotingCommand.requestId` AtomicInteger
 * (starts at 0, wraps around as an int32).
 */
export function nextOpaque(): number {
  const id = requestId;
  requestId = (requestId + 1) | 0;
  return id;
}

/** Live resource counters for leak checks (tests, diagnostics). */
const live = { connections: 0, timers: 0 };
/** Connections not yet closed and timers/immediates not yet fired or cleared, over the whole transport layer. */
export function transportResources(): { connections: number; timers: number } {
  return { connections: live.connections, timers: live.timers };
}
/** @internal Used by the client for its connect timers. */
export function trackTimer(delta: number): void {
  live.timers += delta;
}

/** Formats a socket address as Java's RemotingHelper does: "ip:port", IPv4-mapped IPv6 shown as IPv4. */
export function formatAddress(address: string | undefined, port: number | undefined): string {
  if (!address) return '';
  const ip = address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
  return `${ip}:${port ?? 0}`;
}

interface PendingRequest {
  resolve: (response: RemotingCommand) => void;
  reject: (err: Error) => void;
  deadline: number;
  timeoutMillis: number;
}

interface QueuedFrame {
  head: Buffer;
  /** One body buffer, or a gathered body written part by part. */
  body: Buffer | readonly Buffer[] | null;
  onWritten?: (err?: Error | null) => void;
  /** Bytes of head and body. */
  size: number;
}

export type ConnectionEvents = {
  close: (conn: Connection, cause?: Error) => void;
  idle: (conn: Connection) => void;
  exception: (conn: Connection, err: Error) => void;
  /** Reading stopped (true) or resumed (false) because of the write backlog. */
  backpressure: (conn: Connection, paused: boolean) => void;
};

export interface ConnectionOptions {
  logger: Logger;
  maxFrameLength?: number;
  /** Close after this long without reading or writing; 0 disables. */
  idleTimeMillis?: number;
  /** Called for every incoming request (not response). */
  onRequest: (conn: Connection, request: RemotingCommand) => void;
  /** Clock (ms) of the request deadlines (default Date.now; tests pass a fake one). */
  now?: () => number;
  /**
   * When queued frames are written: 'immediate' (the default) once per event-loop turn (setImmediate), or 'tick'
   * once the current task and its promise continuations have run (process.nextTick queued from the first
   * enqueue runs after the microtask queue drains), which batches the same frames one loop turn sooner.
   */
  flushOn?: 'immediate' | 'tick';
  /** Stop reading while the write backlog is above this many bytes; 0 disables. */
  writeBufferHighWaterMark?: number;
  /** Read again once the write backlog is at or below this many bytes (at least 16 KiB is sensible). */
  writeBufferLowWaterMark?: number;
  /** Close the connection when the write backlog passes this many bytes; 0 disables. */
  maxWriteBacklogBytes?: number;
  /**
   * Requests of a read handed to `onRequest` in its turn; the rest wait for the next turns (setImmediate), in order,
   * each later turn taking requestsPerTurn or half of what waits, whichever is more. The answers of the first ones
   * are then written while the later ones are processed, so a peer with many requests in flight gets them in several
   * groups, not all in one write after the whole read. 0: no limit.
   */
  requestsPerTurn?: number;
  /**
   * Deferred requests (requestsPerTurn), or deferred request body bytes, past which the connection stops reading
   * until they are processed (defaults 4096 and 16 MiB): what waits is not yet counted by the server's in-flight
   * limits, so it is bounded here.
   */
  maxDeferredRequests?: number;
  maxDeferredBytes?: number;
}

let connectionIds = 0;

/** The caller's EncodeOptions with the transport's opaque and flag (a literal of one shape: no object spread per request). */
function encodeOptions(options: EncodeOptions | undefined, opaque: number, flag: number): EncodeOptions {
  return { opaque, flag, language: options?.language, serializeType: options?.serializeType };
}

export class Connection extends TypedEmitter<ConnectionEvents> implements Channel {
  readonly id = ++connectionIds;
  readonly remoteAddress: string;
  readonly localAddress: string;
  /** Requests received on this connection whose processor has not finished yet (server-side flow control). */
  inflight = 0;
  /** Request body bytes of those requests. */
  inflightBytes = 0;
  /** Frames received so far: a client tells a silent peer (half-open connection) from a slow one by it. */
  framesReceived = 0;
  /** Bytes of the last frame queued (length prefix included): read right after `request()` returns, it is that request's size. */
  lastEncodedLength = 0;

  readonly #socket: Socket;
  readonly #logger: Logger;
  readonly #decoder: FrameDecoder;
  readonly #onRequest: (conn: Connection, request: RemotingCommand) => void;
  readonly #pending = new Map<number, PendingRequest>();
  #queue: QueuedFrame[] = [];
  #queueHead = 0;
  #flushImmediate: NodeJS.Immediate | null = null;
  readonly #flushOnTick: boolean;
  #flushTickQueued = false;
  #waitingDrain = false;
  /** Bytes queued here and not handed to the socket yet. */
  #queuedBytes = 0;
  #readPaused = false;
  readonly #highWater: number;
  readonly #lowWater: number;
  readonly #maxBacklog: number;
  #timer: NodeJS.Timeout | null = null;
  #timerDeadline = Infinity;
  #active = true;
  readonly #now: () => number;
  readonly #requestsPerTurn: number;
  /** Requests this turn may still hand over before the rest are deferred. */
  #turnBudget = 0;
  /** Requests waiting for a later turn, oldest first (from #deferredHead). */
  #deferred: RemotingCommand[] = [];
  #deferredHead = 0;
  #deferredImmediate: NodeJS.Immediate | null = null;
  #deferPaused = false;
  /** The peer closed while requests it sent still waited for their turn: they are still handed over. */
  #handingOver = false;
  #closeCause: Error | undefined;
  #deferredBytes = 0;
  readonly #maxDeferredRequests: number;
  readonly #maxDeferredBytes: number;

  constructor(socket: Socket, options: ConnectionOptions) {
    super();
    live.connections++;
    this.#socket = socket;
    this.#onRequest = options.onRequest;
    this.#flushOnTick = options.flushOn === 'tick';
    this.#now = options.now ?? Date.now;
    this.#highWater = options.writeBufferHighWaterMark ?? 0;
    this.#lowWater = Math.min(options.writeBufferLowWaterMark ?? this.#highWater / 2, this.#highWater);
    this.#maxBacklog = options.maxWriteBacklogBytes ?? 0;
    this.#requestsPerTurn = options.requestsPerTurn ?? 0;
    this.#maxDeferredRequests = options.maxDeferredRequests ?? 4096;
    this.#maxDeferredBytes = options.maxDeferredBytes ?? 16 * 1024 * 1024;
    this.remoteAddress = formatAddress(socket.remoteAddress, socket.remotePort);
    this.localAddress = formatAddress(socket.localAddress, socket.localPort);
    this.#logger = options.logger.child({ remoteAddr: this.remoteAddress, channelId: this.id });
    this.#decoder = new FrameDecoder((payload) => this.#onFrame(payload), options.maxFrameLength ?? DEFAULT_MAX_FRAME_LENGTH);
    socket.setNoDelay(true);
    if (options.idleTimeMillis && options.idleTimeMillis > 0) {
      socket.setTimeout(options.idleTimeMillis, () => {
        this.#logger.info('channel idle, closing');
        this.emit('idle', this);
        this.close();
      });
    }
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('drain', () => {
      this.#waitingDrain = false;
      this.#flush();
      if (this.#readPaused) this.#checkBacklog();
    });
    socket.on('error', (err) => {
      this.#logger.warn({ err }, 'channel exception');
      if (this.#active) this.emit('exception', this, err);
      this.#close(err);
    });
    socket.on('close', () => this.#close());
    // A socket that ended on the peer side with nothing left to write: close it fully.
    socket.on('end', () => this.#close());
    if (socket.destroyed) queueMicrotask(() => this.#close());
  }

  get isActive(): boolean {
    return this.#active;
  }

  /** Bytes written and not yet taken by the kernel: queued here plus buffered in the socket. */
  get writeBacklogBytes(): number {
    return this.#queuedBytes + this.#socket.writableLength;
  }

  /** True while reading is stopped because of the write backlog. */
  get readPaused(): boolean {
    return this.#readPaused;
  }

  /** Requests sent on this connection and not answered yet. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /**
   * Sends `request` with a fresh opaque and resolves with its response, or rejects with RemotingTimeoutError
   * after `timeoutMillis`, or RemotingSendRequestError if the connection closes first. `reportedTimeoutMillis`
   * is the timeout named in the error (the caller's whole budget, when connecting used part of it).
   */
  request(
    request: RemotingCommand, timeoutMillis: number, reportedTimeoutMillis = timeoutMillis, options?: EncodeOptions,
  ): Promise<RemotingCommand> {
    if (!this.#active) {
      return Promise.reject(new RemotingSendRequestError(this.remoteAddress, `channel <${this.remoteAddress}> is closed`));
    }
    const opaque = nextOpaque();
    return new Promise<RemotingCommand>((resolve, reject) => {
      const deadline = this.#now() + Math.max(0, timeoutMillis);
      this.#pending.set(opaque, { resolve, reject, deadline, timeoutMillis: reportedTimeoutMillis });
      try {
        // a request, even if the command was built from a response
        this.#enqueue(request, undefined, encodeOptions(options, opaque, request.flag & ~RPC_TYPE_RESPONSE));
      } catch (err) {
        this.#pending.delete(opaque);
        reject(err);
        return;
      }
      // The command records the opaque it went out with, so its author can match the response to it.
      request.opaque = opaque;
      this.#armTimer(deadline);
    });
  }

  /** Sends a oneway request (fresh opaque, oneway flag); resolves once the frame is handed to the socket. */
  oneway(request: RemotingCommand, options?: EncodeOptions): Promise<void> {
    if (!this.#active) {
      return Promise.reject(new RemotingSendRequestError(this.remoteAddress, `channel <${this.remoteAddress}> is closed`));
    }
    const opaque = nextOpaque();
    const flag = (request.flag & ~RPC_TYPE_RESPONSE) | RPC_ONEWAY;
    request.opaque = opaque;
    return new Promise<void>((resolve, reject) => {
      this.#enqueue(request, (err) => {
        if (err) reject(new RemotingSendRequestError(this.remoteAddress, undefined, { cause: err }));
        else resolve();
      }, encodeOptions(options, opaque, flag));
    });
  }

  /**
   * Queues a command (a response, typically), encoded with `options` (a response's opaque, flag and serialize type:
   * the command itself is not changed). Returns false when the connection is closed.
   * `onWritten` is called once the frame was written, or with an error if it never will be.
   */
  send(command: RemotingCommand, onWritten?: (err?: Error | null) => void, options?: EncodeOptions): boolean {
    if (!this.#active) return false;
    this.#enqueue(command, onWritten, options);
    return true;
  }

  /**
   * Closes the connection; pending requests reject with RemotingSendRequestError. Requests read but not handed over
   * yet (requestsPerTurn) are dropped. Idempotent.
   */
  close(): void {
    this.#close(undefined, true);
  }

  /**
   * Closes the connection as close() does, but with a TCP reset (SO_LINGER 0) instead of a FIN: what is still unsent
   * or unacknowledged is discarded. For a peer that stopped answering (a request timed out on a silent connection):
   * a FIN and the request before it are retransmitted until they get through, so after a healed partition the peer
   * would still read the stale request and then the close; a reset is sent once, and lost on a cut link. Idempotent.
   */
  reset(): void {
    if (this.#active && typeof this.#socket.resetAndDestroy === 'function' && !this.#socket.destroyed) {
      try {
        this.#socket.resetAndDestroy();
      } catch {
        // Not connected yet (resetAndDestroy needs a TCP handle): the plain destroy in #close does.
      }
    }
    this.#close(undefined, true);
  }

  #enqueue(command: RemotingCommand, onWritten?: (err?: Error | null) => void, options?: EncodeOptions): void {
    this.lastEncodedLength = 0;
    const head = command.encodeHeaderFrame(options);
    const body = command.bodyParts ?? (command.body && command.body.length > 0 ? command.body : null);
    let size = head.length;
    if (body !== null) {
      if (Buffer.isBuffer(body)) size += body.length;
      else for (const b of body) size += b.length;
    }
    // The limit counts what the peer left unread before this frame: one large answer alone never closes.
    const backlogBefore = this.#maxBacklog > 0 ? this.writeBacklogBytes : 0;
    this.lastEncodedLength = size;
    this.#queue.push({ head, body, onWritten, size });
    this.#queuedBytes += size;
    if (this.#highWater > 0 || this.#maxBacklog > 0) this.#checkBacklog(backlogBefore);
    if (this.#flushOnTick) {
      if (!this.#flushTickQueued && !this.#waitingDrain) {
        this.#flushTickQueued = true;
        process.nextTick(this.#flushTick);
      }
      return;
    }
    if (!this.#flushImmediate && !this.#waitingDrain) {
      live.timers++;
      this.#flushImmediate = setImmediate(() => {
        live.timers--;
        this.#flushImmediate = null;
        this.#flush();
      });
    }
  }

  readonly #flushTick = (): void => {
    this.#flushTickQueued = false;
    this.#flush();
  };

  #flush(): void {
    if (!this.#active || this.#waitingDrain || this.#queueHead >= this.#queue.length) return;
    const socket = this.#socket;
    const queue = this.#queue;
    socket.cork();
    let ok = true;
    while (ok && this.#queueHead < queue.length) {
      const frame = queue[this.#queueHead++];
      this.#queuedBytes -= frame.size;
      const body = frame.body;
      if (body === null) {
        ok = socket.write(frame.head, frame.onWritten);
      } else if (Buffer.isBuffer(body)) {
        socket.write(frame.head);
        ok = socket.write(body, frame.onWritten);
      } else {
        // gathered body: every part is its own chunk of the corked writev, none is copied
        socket.write(frame.head);
        const last = body.length - 1;
        for (let i = 0; i < last; i++) socket.write(body[i]);
        ok = socket.write(body[last], frame.onWritten);
      }
    }
    socket.uncork();
    // Over the socket's high-water mark: later frames wait for 'drain'.
    if (!ok) this.#waitingDrain = true;
    if (this.#queueHead >= queue.length) {
      this.#queue = [];
      this.#queueHead = 0;
    } else if (this.#queueHead > 1024) {
      this.#queue = queue.slice(this.#queueHead);
      this.#queueHead = 0;
    }
    if (this.#readPaused) this.#checkBacklog();
  }

  /** Stops or resumes reading by the write backlog; closes past the hard limit. */
  #checkBacklog(unreadBefore = 0): void {
    if (!this.#active) return;
    const backlog = this.writeBacklogBytes;
    if (this.#maxBacklog > 0 && unreadBefore > this.#maxBacklog) {
      this.#logger.warn({ backlog, maxWriteBacklogBytes: this.#maxBacklog }, 'write backlog over its limit (the peer does not read), closing channel');
      const err = new RemotingSendRequestError(this.remoteAddress, `channel <${this.remoteAddress}> write backlog over ${this.#maxBacklog} bytes`);
      this.emit('exception', this, err);
      this.#close(err);
      return;
    }
    if (this.#highWater <= 0) return;
    if (!this.#readPaused && backlog > this.#highWater) {
      this.#readPaused = true;
      this.#socket.pause();
      this.#logger.warn({ backlog, writeBufferHighWaterMark: this.#highWater }, 'write backlog above the high water mark, reading paused');
      this.emit('backpressure', this, true);
    } else if (this.#readPaused && backlog <= this.#lowWater) {
      this.#readPaused = false;
      if (!this.#deferPaused) this.#socket.resume();
      this.#logger.info({ backlog }, 'write backlog drained, reading resumed');
      this.emit('backpressure', this, false);
    }
  }

  #onData(chunk: Buffer): void {
    if (!this.#active) return;
    this.#turnBudget = this.#requestsPerTurn;
    try {
      this.#decoder.push(chunk);
    } catch (err) {
      if (err instanceof ProtocolError) {
        this.#logger.error({ err, remoteAddr: this.remoteAddress }, 'malformed frame, closing channel');
      } else {
        this.#logger.error({ err, remoteAddr: this.remoteAddress }, 'frame handling failed, closing channel');
      }
      this.emit('exception', this, err as Error);
      this.#close(err as Error);
    }
  }

  #onFrame(payload: Buffer): void {
    if (!this.#active) return;
    this.framesReceived++;
    const command = RemotingCommand.decode(payload);
    if (command.isResponse) {
      const pending = this.#pending.get(command.opaque);
      if (pending) {
        // The timeout timer stays armed when nothing is pending: re-arming one per request costs more than a
        // sweep that finds nothing (it then lets the timer lapse).
        this.#pending.delete(command.opaque);
        pending.resolve(command);
      } else {
        this.#logger.warn({ opaque: command.opaque, code: command.code }, 'receive response, but not matched any request');
      }
      return;
    }
    if (this.#requestsPerTurn > 0) {
      if (this.#deferredHead < this.#deferred.length || this.#turnBudget <= 0) {
        this.#defer(command);
        return;
      }
      this.#turnBudget--;
    }
    this.#onRequest(this, command);
  }

  /** Queues a request for a later turn (requestsPerTurn); stops reading while too many, or too many bytes, wait. */
  #defer(command: RemotingCommand): void {
    this.#deferred.push(command);
    this.#deferredBytes += command.body?.length ?? 0;
    if (!this.#deferredImmediate) {
      live.timers++;
      this.#deferredImmediate = setImmediate(this.#runDeferred);
    }
    if (!this.#deferPaused && (this.#deferred.length - this.#deferredHead > this.#maxDeferredRequests || this.#deferredBytes > this.#maxDeferredBytes)) {
      this.#deferPaused = true;
      this.#socket.pause();
    }
  }

  /** Hands over the next deferred requests (see below how many); schedules itself again while more wait. */
  readonly #runDeferred = (): void => {
    live.timers--;
    this.#deferredImmediate = null;
    const queue = this.#deferred;
    // requestsPerTurn, or half of what waits when more wait: a long read (a client with hundreds in flight) takes a
    // few turns, not one per requestsPerTurn, since every turn costs its own write to the OS and to the socket
    const waiting = queue.length - this.#deferredHead;
    const end = this.#deferredHead + Math.min(waiting, Math.max(this.#requestsPerTurn, Math.ceil(waiting / 2)));
    while (this.#deferredHead < end && queue === this.#deferred) {
      const command = queue[this.#deferredHead];
      queue[this.#deferredHead++] = undefined as unknown as RemotingCommand;
      this.#deferredBytes -= command.body?.length ?? 0;
      this.#onRequest(this, command);
    }
    // close() (ours) dropped the rest, or a processor closed the connection that way.
    if (queue !== this.#deferred) return;
    if (this.#deferredHead < queue.length) {
      live.timers++;
      this.#deferredImmediate = setImmediate(this.#runDeferred);
      return;
    }
    this.#deferred = [];
    this.#deferredHead = 0;
    if (this.#handingOver) {
      // The peer closed after sending these: the last of them is handed over, the close is now told.
      this.#handingOver = false;
      this.#emitClosed();
      return;
    }
    if (this.#deferPaused) {
      this.#deferPaused = false;
      if (!this.#readPaused) this.#socket.resume();
    }
  };

  #armTimer(deadline: number): void {
    if (this.#timer && deadline >= this.#timerDeadline) return;
    this.#clearTimer();
    this.#timerDeadline = deadline;
    live.timers++;
    this.#timer = setTimeout(() => {
      live.timers--;
      this.#timer = null;
      this.#timerDeadline = Infinity;
      this.#sweep();
    }, Math.max(1, deadline - this.#now()));
    this.#timer.unref();
  }

  #clearTimer(): void {
    if (this.#timer) {
      clearTimeout(this.#timer);
      live.timers--;
      this.#timer = null;
      this.#timerDeadline = Infinity;
    }
  }

  /** Rejects every request whose deadline has passed; re-arms the timer for the earliest remaining one. */
  #sweep(): void {
    const now = this.#now();
    let next = Infinity;
    for (const [opaque, pending] of this.#pending) {
      if (pending.deadline <= now) {
        this.#pending.delete(opaque);
        pending.reject(new RemotingTimeoutError(this.remoteAddress, pending.timeoutMillis));
      } else if (pending.deadline < next) {
        next = pending.deadline;
      }
    }
    if (next !== Infinity && this.#active) this.#armTimer(next);
  }

  /**
   * Closes the socket, rejects what is pending and tells listeners ('close'). Requests already read but still waiting
   * for their turn (requestsPerTurn) are dropped when `dropDeferred` (our own close(): shutdown, idle, a limit);
   * when the peer closed, they are still handed over, as a server that read them handles them (their answers go
   * nowhere; a oneway send is kept), and 'close' is told after the last of them.
   */
  #close(cause?: Error, dropDeferred = false): void {
    if (!this.#active) {
      // close() of a connection still handing over what its peer sent before closing: drop the rest now.
      if (dropDeferred && this.#handingOver) {
        this.#dropDeferred();
        this.#emitClosed();
      }
      return;
    }
    this.#active = false;
    live.connections--;
    this.#socket.destroy();
    if (this.#flushImmediate) {
      clearImmediate(this.#flushImmediate);
      live.timers--;
      this.#flushImmediate = null;
    }
    this.#clearTimer();
    this.#closeCause = cause;
    if (!dropDeferred && this.#deferredHead < this.#deferred.length) this.#handingOver = true;
    else this.#dropDeferred();
    const closedError = () =>
      new RemotingSendRequestError(this.remoteAddress, `channel <${this.remoteAddress}> closed before the response arrived`, {
        cause,
      });
    for (let i = this.#queueHead; i < this.#queue.length; i++) this.#queue[i].onWritten?.(closedError());
    this.#queue = [];
    this.#queueHead = 0;
    this.#queuedBytes = 0;
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) p.reject(closedError());
    if (!this.#handingOver) this.#emitClosed();
  }

  #dropDeferred(): void {
    if (this.#deferredImmediate) {
      clearImmediate(this.#deferredImmediate);
      live.timers--;
      this.#deferredImmediate = null;
    }
    this.#deferred = [];
    this.#deferredHead = 0;
    this.#deferredBytes = 0;
    this.#handingOver = false;
  }

  #emitClosed(): void {
    this.#logger.debug('channel closed');
    this.emit('close', this, this.#closeCause);
  }

  protected override onListenerError(event: string, err: unknown): void {
    this.#logger.error({ err, event }, 'connection listener failed');
  }
}
