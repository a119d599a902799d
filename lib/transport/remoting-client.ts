/**
 * RemotingClient: request/response over one reused connection per address.
 *
 * - `invoke` sends a request and resolves with the response; the timeout covers connecting too, as Java's
 *   invokeSync does. `invokeOneway` resolves once the frame is written.
 * - Concurrent callers for one address share one connecting attempt. A closed connection is dropped from the
 *   table (its pending requests reject with RemotingSendRequestError) and the next call reconnects.
 * - Requests the server sends to us (CHECK_TRANSACTION_STATE, NOTIFY_CONSUMER_IDS_CHANGED, ...) go to the
 *   processors registered with `registerProcessor`.
 * - RPC hooks run before each request is sent and after its response arrives (ACL signing, namespaces), and
 *   around the processing of server-initiated requests.
 *
 * @see org.apache.rocketmq.remoting.netty.NettyRemotingClient
 * @see org.apache.rocketmq.remoting.netty.NettyClientConfig
 */
import net from 'node:net';
import tls from 'node:tls';
import { DEFAULT_MAX_FRAME_LENGTH } from '../../protocol/frame';
import { type EncodeOptions, type RemotingCommand, SerializeType } from '../../protocol/remoting-command';
import { RemotingConnectError, RemotingSendRequestError, RemotingTimeoutError } from '../errors';
import { type Logger, componentLogger } from '../logger';
import { type Channel, Connection, trackTimer } from './connection';
import { ProcessorTable, type RPCHook, type RemotingProcessor } from './processor';
import { RequestQueue } from './request-queue';
import { TypedEmitter } from './typed-emitter';

/** Per-request choices of the layer above (MQClientAPI): given to the encoder, never written into the command. */
export interface InvokeOptions {
  /** The LanguageCode name the frame carries (the command's own when left out). */
  language?: string;
}

export interface RemotingClientOptions {
  /** Java NettyClientConfig.connectTimeoutMillis. */
  connectTimeoutMillis: number;
  /** Close a connection after this many seconds without reads or writes; 0 disables. */
  clientChannelMaxIdleTimeSeconds: number;
  /**
   * Close the connection when a request times out (Java clientCloseSocketIfTimeout, default true as Java's
   * `com.rocketmq.remoting.client.closeSocketIfTimeout`): a half-open connection (peer gone without FIN) is dropped
   * and the next request connects again. As Java 5.x, not when the request had (almost) no time left when sent.
   */
  clientCloseSocketIfTimeout: boolean;
  /** Connect with TLS (node:tls). */
  useTLS: boolean;
  /** Extra node:tls options when useTLS is true. Java's client trusts any certificate unless configured. */
  tlsOptions: tls.ConnectionOptions;
  /** Frames above this length are a protocol error (Java com.rocketmq.remoting.frameMaxLength). */
  maxFrameLength: number;
  /** Header serialization of the requests we send (Java rocketmq.serialize.type); responses follow the request. */
  serializeType: SerializeType;
  logger?: Logger;
  /**
   * At most this many requests of this client wait for an answer at once; more wait in a queue (FIFO) and fail
   * with RemotingTooMuchRequestError when their timeout passes there. 0 (the default) means no cap.
   */
  maxInflightRequests: number;
  /**
   * `shutdown()` first waits up to this long for the requests in flight and queued to finish (new ones are
   * refused meanwhile); 0 (the default) rejects them at once, as before.
   */
  shutdownDrainMillis: number;
  /** Instrumentation: `network.request` and `network.request_queue_size` go here, built only when it listens. */
  observer?: RequestObserver;
}

/** A finished request (the `network.request` event). */
export interface RequestInfo {
  addr: string;
  /** The request code. */
  code: number;
  /** The response code, or null when no response came (error set). */
  responseCode: number | null;
  /** From the call to the answer (or failure), waiting for a connection or a slot included. */
  durationMs: number;
  /** Bytes of the request frame (length prefix included); 0 when it was never encoded. */
  size: number;
  /** Body bytes of the response. */
  responseSize: number;
  error?: Error;
}

/** Where a RemotingClient reports its requests (MQClientInstance forwards to the producers' and consumers' emitters). */
export interface RequestObserver {
  hasListeners(type: 'network.request' | 'network.request_queue_size'): boolean;
  emit(type: 'network.request', payload: RequestInfo): void;
  emit(type: 'network.request_queue_size', payload: { size: number; maxInflightRequests: number }): void;
}

export const DEFAULT_REMOTING_CLIENT_OPTIONS: Readonly<RemotingClientOptions> = Object.freeze({
  connectTimeoutMillis: 3000,
  clientChannelMaxIdleTimeSeconds: 120,
  clientCloseSocketIfTimeout: true,
  useTLS: false,
  tlsOptions: Object.freeze({ rejectUnauthorized: false }),
  maxFrameLength: DEFAULT_MAX_FRAME_LENGTH,
  serializeType: SerializeType.JSON,
  maxInflightRequests: 0,
  shutdownDrainMillis: 0,
});

/** Channel events, Java's ChannelEventListener shape: the peer address and the channel. */
export type RemotingChannelEvents = {
  connect: (remoteAddr: string, channel: Channel) => void;
  close: (remoteAddr: string, channel: Channel) => void;
  idle: (remoteAddr: string, channel: Channel) => void;
  exception: (remoteAddr: string, channel: Channel, err: Error) => void;
};

/** Splits "host:port" (the last colon separates the port, as Java's RemotingHelper.string2SocketAddress). */
export function parseAddress(addr: string): { host: string; port: number } {
  const i = addr.lastIndexOf(':');
  const port = i > 0 ? Number(addr.slice(i + 1)) : NaN;
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new RemotingConnectError(addr, { retriable: false });
  let host = addr.slice(0, i);
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return { host, port };
}

export class RemotingClient extends TypedEmitter<RemotingChannelEvents> {
  readonly options: Readonly<RemotingClientOptions>;
  readonly #logger: Logger;
  readonly #processors: ProcessorTable;
  readonly #connections = new Map<string, Connection>();
  readonly #connecting = new Map<string, { promise: Promise<Connection>; abort: () => void }>();
  #shutdown = false;
  #draining = false;
  #shutdownDone: Promise<void> | null = null;
  readonly #requests: RequestQueue;

  constructor(options: Partial<RemotingClientOptions> = {}) {
    super();
    this.options = Object.freeze({ ...DEFAULT_REMOTING_CLIENT_OPTIONS, ...options });
    this.#logger = componentLogger('remoting-client', options.logger);
    this.#processors = new ProcessorTable(this.#logger);
    const observer = this.options.observer;
    const max = this.options.maxInflightRequests;
    this.#requests = new RequestQueue(max, observer
      ? (size) => { if (observer.hasListeners('network.request_queue_size')) observer.emit('network.request_queue_size', { size, maxInflightRequests: max }); }
      : null);
  }

  /** Requests waiting for an answer, and requests queued for a slot (see maxInflightRequests). */
  get inflightRequests(): { inflight: number; queued: number } {
    return { inflight: this.#requests.inflight, queued: this.#requests.queued };
  }

  /** Handles requests with `code` that servers send to this client. */
  registerProcessor(code: number, processor: RemotingProcessor): void {
    this.#processors.register(code, processor);
  }

  registerRPCHook(hook: RPCHook): void {
    this.#processors.registerRPCHook(hook);
  }

  get rpcHooks(): readonly RPCHook[] {
    return this.#processors.hooks;
  }

  /** Addresses with an open connection. */
  get connectedAddresses(): string[] {
    return [...this.#connections.keys()];
  }

  /** Sends `request` to `addr` and resolves with the response. */
  async invoke(addr: string, request: RemotingCommand, timeoutMillis: number, options?: InvokeOptions): Promise<RemotingCommand> {
    const begin = Date.now();
    if (this.#draining && !this.#shutdown) {
      throw new RemotingSendRequestError(addr, 'the remoting client is shutting down', { retriable: false });
    }
    const observer = this.options.observer;
    const observed = observer !== undefined && observer.hasListeners('network.request');
    const slot = this.#requests.acquire(timeoutMillis);
    if (slot) {
      try {
        await slot;
      } catch (err) {
        if (observed) observer.emit('network.request', requestInfo(addr, request, begin, 0, null, err));
        throw err;
      }
    }
    let size = 0;
    let response: RemotingCommand | null = null;
    try {
      this.#processors.runBefore(addr, request);
      const conn = await this.#getOrConnect(addr);
      const remaining = timeoutMillis - (Date.now() - begin);
      if (remaining <= 0) throw new RemotingTimeoutError(addr, timeoutMillis);
      // The client's serialize type applies to commands built with the default (JSON); a command built with
      // ROCKETMQ on purpose (sends, whose headers are hot) keeps it. Given to the encoder, not written into the command.
      const encode = this.#encodeOptions(request, options);
      const framesBefore = conn.framesReceived;
      try {
        const answer = conn.request(request, remaining, timeoutMillis, encode);
        size = conn.lastEncodedLength;
        response = await answer;
      } catch (err) {
        if (err instanceof RemotingTimeoutError) {
          // Java 5.x NettyRemotingClient.invokeSync closes when left > MIN_CLOSE_TIMEOUT_MILLIS (100) || left >
          // timeoutMillis / 4. Java does it for synchronous calls only (its async sends and pulls keep the channel); we
          // close when the peer also stayed silent meanwhile: a half-open connection is dropped, while a busy broker
          // that answers other requests keeps the connection and the requests in flight on it.
          // The close is a TCP reset: a FIN would be retransmitted until the peer reads it, after the request it timed
          // out on (a name server would take a broker's stale registration and then drop the broker, see
          // Connection.reset()).
          const silent = conn.framesReceived === framesBefore;
          if (this.options.clientCloseSocketIfTimeout && silent && (remaining > 100 || remaining > timeoutMillis / 4)) conn.reset();
          this.#logger.warn({ remoteAddr: addr, code: request.code, timeoutMillis }, 'invoke timeout');
        } else if (err instanceof RemotingSendRequestError) {
          // Requests cut off by our own shutdown (a consumer's long polls) are expected, not worth a warning.
          if (!this.#shutdown) this.#logger.warn({ remoteAddr: addr, code: request.code, err }, 'invoke send request failed');
        }
        throw err;
      }
      this.#processors.runAfter(addr, request, response);
      if (observed) observer.emit('network.request', requestInfo(addr, request, begin, size, response, null));
      return response;
    } catch (err) {
      if (observed) observer.emit('network.request', requestInfo(addr, request, begin, size, response, err));
      throw err;
    } finally {
      this.#requests.release();
    }
  }

  /** Sends a oneway request to `addr`; resolves once written. */
  async invokeOneway(addr: string, request: RemotingCommand, timeoutMillis: number, options?: InvokeOptions): Promise<void> {
    const begin = Date.now();
    this.#processors.runBefore(addr, request);
    const conn = await this.#getOrConnect(addr);
    if (Date.now() - begin > timeoutMillis) throw new RemotingTimeoutError(addr, timeoutMillis);
    // The client's serialize type applies to commands built with the default (JSON); a command built with
    // ROCKETMQ on purpose (sends, whose headers are hot) keeps it. Given to the encoder, not written into the command.
    const encode = this.#encodeOptions(request, options);
    await conn.oneway(request, encode);
  }

  /** The last EncodeOptions made, reused while the serialize type and language stay the same (one client, one language). */
  #lastEncode: EncodeOptions = { serializeType: SerializeType.JSON, language: undefined };

  #encodeOptions(request: RemotingCommand, options: InvokeOptions | undefined): EncodeOptions {
    const serializeType = request.serializeType === SerializeType.JSON ? this.options.serializeType : request.serializeType;
    const language = options?.language;
    const last = this.#lastEncode;
    if (last.serializeType === serializeType && last.language === language) return last;
    return (this.#lastEncode = { serializeType, language });
  }

  /** Closes the connection to `addr`, if any; the next call reconnects. */
  closeChannel(addr: string): void {
    this.#connections.get(addr)?.close();
  }

  /**
   * Closes every connection, aborts connecting attempts. With `drainMillis` (default: the shutdownDrainMillis
   * option) > 0 it first refuses new requests and waits up to that long for those in flight or queued to finish;
   * whatever is still pending then rejects with RemotingSendRequestError. Idempotent: later calls wait for the first.
   */
  shutdown(options: { drainMillis?: number } = {}): Promise<void> {
    this.#shutdownDone ??= this.#doShutdown(options.drainMillis ?? this.options.shutdownDrainMillis);
    return this.#shutdownDone;
  }

  async #doShutdown(drainMillis: number): Promise<void> {
    this.#draining = true;
    if (drainMillis > 0 && !(await this.#requests.drain(drainMillis))) {
      this.#logger.warn({ drainMillis, ...this.inflightRequests }, 'requests still pending after the shutdown drain; they are rejected');
    }
    this.#shutdown = true;
    for (const { abort } of [...this.#connecting.values()]) abort();
    for (const conn of [...this.#connections.values()]) conn.close();
    this.#connecting.clear();
    this.#connections.clear();
  }

  #getOrConnect(addr: string): Promise<Connection> {
    if (this.#shutdown) {
      return Promise.reject(new RemotingSendRequestError(addr, 'the remoting client is shut down', { retriable: false }));
    }
    const conn = this.#connections.get(addr);
    if (conn && conn.isActive) return Promise.resolve(conn);
    const connecting = this.#connecting.get(addr);
    if (connecting) return connecting.promise;
    let parsed: { host: string; port: number };
    try {
      parsed = parseAddress(addr);
    } catch (err) {
      return Promise.reject(err);
    }
    const attempt = this.#connect(addr, parsed.host, parsed.port);
    this.#connecting.set(addr, attempt);
    const clear = () => {
      if (this.#connecting.get(addr) === attempt) this.#connecting.delete(addr);
    };
    attempt.promise.then(clear, clear);
    return attempt.promise;
  }

  #connect(addr: string, host: string, port: number): { promise: Promise<Connection>; abort: () => void } {
    let abort: () => void = () => undefined;
    const promise = new Promise<Connection>((resolve, reject) => {
      const useTLS = this.options.useTLS;
      const socket: net.Socket = useTLS
        ? tls.connect({ ...this.options.tlsOptions, host, port, servername: net.isIP(host) ? undefined : host })
        : net.connect({ host, port });
      let settled = false;
      trackTimer(1);
      const timer = setTimeout(() => fail(new Error(`connect timeout after ${this.options.connectTimeoutMillis} ms`)), this.options.connectTimeoutMillis);
      timer.unref();
      const cleanup = () => {
        if (settled) return false;
        settled = true;
        clearTimeout(timer);
        trackTimer(-1);
        socket.off('error', fail);
        socket.off(useTLS ? 'secureConnect' : 'connect', onConnect);
        return true;
      };
      const fail = (cause: Error) => {
        if (!cleanup()) return;
        socket.destroy();
        this.#logger.warn({ remoteAddr: addr, err: cause }, 'connect failed');
        reject(new RemotingConnectError(addr, { cause }));
      };
      const onConnect = () => {
        if (!cleanup()) return;
        if (this.#shutdown) {
          socket.destroy();
          reject(new RemotingSendRequestError(addr, 'the remoting client is shut down', { retriable: false }));
          return;
        }
        resolve(this.#adopt(addr, socket));
      };
      abort = () => fail(new Error('remoting client shut down'));
      socket.once('error', fail);
      socket.once(useTLS ? 'secureConnect' : 'connect', onConnect);
    });
    return { promise, abort: () => abort() };
  }

  #adopt(addr: string, socket: net.Socket): Connection {
    const conn = new Connection(socket, {
      logger: this.#logger,
      maxFrameLength: this.options.maxFrameLength,
      idleTimeMillis: this.options.clientChannelMaxIdleTimeSeconds * 1000,
      onRequest: (c, request) => this.#processors.dispatch(c, request),
      // a request leaves as soon as the code that made it (and its promise continuations) has run
      flushOn: 'tick',
    });
    this.#connections.set(addr, conn);
    conn.on('close', () => {
      if (this.#connections.get(addr) === conn) this.#connections.delete(addr);
      this.emit('close', addr, conn);
    });
    conn.on('idle', () => this.emit('idle', addr, conn));
    conn.on('exception', (_c, err) => this.emit('exception', addr, conn, err));
    this.#logger.info({ remoteAddr: addr }, 'connected');
    this.emit('connect', addr, conn);
    return conn;
  }

  protected override onListenerError(event: string, err: unknown): void {
    this.#logger.error({ err, event }, 'remoting client listener failed');
  }
}

function requestInfo(addr: string, request: RemotingCommand, begin: number, size: number, response: RemotingCommand | null, err: unknown): RequestInfo {
  const info: RequestInfo = {
    addr, code: request.code, responseCode: response ? response.code : null, durationMs: Date.now() - begin, size,
    responseSize: response ? response.bodyLength : 0,
  };
  if (err) info.error = err instanceof Error ? err : new Error(String(err));
  return info;
}
