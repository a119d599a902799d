/**
 * RemotingServer: accepts connections, dispatches requests to processors by request code, and sends requests
 * to connected clients over their own connection (CHECK_TRANSACTION_STATE, NOTIFY_CONSUMER_IDS_CHANGED).
 *
 * - Unknown code → REQUEST_CODE_NOT_SUPPORTED; processor throws → SYSTEM_ERROR with the error as remark;
 *   oneway requests get no answer; responses use the request's serialize type (see processor.ts).
 * - Flow control: at most `serverMaxInflight` requests of one channel are processed at a time; the excess is
 *   answered SYSTEM_BUSY at once (Java rejects with "[OVERLOAD]system busy" when a processor's executor queue is
 *   full; its send queue holds 10000, hence the default). A processor that returns null and answers later via
 *   `ctx.writeResponse` (a held pull) no longer counts once it has returned. Request bodies being processed are
 *   bounded per channel (`serverChannelMaxInflightBytes`) and over the server (`serverMaxInflightBytes`), and a
 *   request family may have a RequestExecutor of its own (a bound over every channel, Java's
 *   sendThreadPoolQueueCapacity and friends); the excess gets the same answer.
 * - Bounded memory on the way out: a channel whose write backlog passes `writeBufferHighWaterMark` stops being
 *   read until it is back under `writeBufferLowWaterMark`, and is closed past `serverChannelMaxWriteBacklogBytes`
 *   (a peer that sends requests and never reads the answers).
 * - Idle channels (no read or write for serverChannelMaxIdleTimeSeconds) are closed, with an 'idle' event.
 * - TLS (`tls`, Java's TlsSystemConfig): `disabled` speaks plain TCP only; `permissive` (Java's default) looks at the
 *   first byte of each connection, as Java's HandshakeHandler does: 0x16 (a TLS handshake record) gets TLS, anything
 *   else stays plain, both on one port; `enforcing` closes connections that do not start with a TLS handshake.
 *
 * @see org.apache.rocketmq.remoting.netty.NettyRemotingServer
 * @see org.apache.rocketmq.remoting.netty.NettyServerConfig
 */
import net from 'node:net';
import tls from 'node:tls';
import { DEFAULT_MAX_FRAME_LENGTH } from '../../protocol/frame';
import type { RemotingCommand } from '../../protocol/remoting-command';
import { RemotingSendRequestError } from '../errors';
import { type Logger, componentLogger } from '../logger';
import { type Channel, Connection } from './connection';
import { ProcessorTable, type ProcessorOptions, type RPCHook, type RemotingProcessor } from './processor';
import type { RemotingChannelEvents } from './remoting-client';
import { TypedEmitter } from './typed-emitter';
import { DEFAULT_TLS_SYSTEM_CONFIG, TlsMode, type TlsSystemConfig, buildServerTlsOptions, withTlsConfigFile } from './tls-system-config';

/** The first byte of a TLS handshake record (Java HandshakeHandler.HANDSHAKE_MAGIC_CODE). */
const HANDSHAKE_MAGIC_CODE = 0x16;

export interface RemotingServerOptions {
  /** Address to bind (Java 5.x NettyServerConfig.bindAddress). */
  bindAddress: string;
  /** Port to listen on; 0 picks a free port (see `listen()`'s result). */
  listenPort: number;
  /** Close a channel after this many seconds without reads or writes; 0 disables. */
  serverChannelMaxIdleTimeSeconds: number;
  /** Requests of one channel processed at once; the excess is answered SYSTEM_BUSY. 0 disables the cap. */
  serverMaxInflight: number;
  /** Request body bytes of one channel being processed; the excess is answered SYSTEM_BUSY. 0 disables. */
  serverChannelMaxInflightBytes: number;
  /** Request body bytes being processed over every channel; the excess is answered SYSTEM_BUSY. 0 disables. */
  serverMaxInflightBytes: number;
  /** Java's NettyServerConfig key; here: stop reading a channel whose write backlog passes this many bytes. 0 disables. */
  writeBufferHighWaterMark: number;
  /** Java's NettyServerConfig key; here: read a paused channel again once its write backlog is down to this. */
  writeBufferLowWaterMark: number;
  /** Close a channel whose write backlog passes this many bytes (its peer does not read). 0 disables. */
  serverChannelMaxWriteBacklogBytes: number;
  /** Frames above this length are a protocol error and close the channel. */
  maxFrameLength: number;
  /**
   * Requests of one channel processed per event-loop turn; the rest of a read wait for the next turn, in order, so
   * the first answers go out while later requests are processed (a client with many in flight is answered in
   * groups, and it and the server work at the same time). 0: every request of a read at once.
   */
  serverRequestsPerTurn: number;
  /** TLS settings (Java's tls.* keys); the default is Java's: permissive, test mode (self-signed certificate). */
  tls: Partial<TlsSystemConfig>;
  logger?: Logger;
}

export const DEFAULT_REMOTING_SERVER_OPTIONS: Readonly<RemotingServerOptions> = Object.freeze({
  bindAddress: '0.0.0.0',
  listenPort: 8888,
  serverChannelMaxIdleTimeSeconds: 120,
  serverMaxInflight: 10000,
  serverChannelMaxInflightBytes: 64 * 1024 * 1024,
  serverMaxInflightBytes: 256 * 1024 * 1024,
  writeBufferHighWaterMark: 4 * 1024 * 1024,
  writeBufferLowWaterMark: 1024 * 1024,
  serverChannelMaxWriteBacklogBytes: 64 * 1024 * 1024,
  maxFrameLength: DEFAULT_MAX_FRAME_LENGTH,
  serverRequestsPerTurn: 4,
  tls: Object.freeze({}),
});

export class RemotingServer extends TypedEmitter<RemotingChannelEvents> {
  readonly options: Readonly<RemotingServerOptions>;
  readonly #logger: Logger;
  readonly #processors: ProcessorTable;
  readonly #channels = new Set<Connection>();
  #server: net.Server | null = null;
  #listening: Promise<number> | null = null;
  #shutdown: Promise<void> | null = null;
  #port = 0;
  #tlsMode: TlsMode = TlsMode.DISABLED;
  #tlsServer: tls.Server | null = null;
  #requirePeerCert = false;
  /** Sockets still before their first byte or in the TLS handshake (closed on shutdown). */
  readonly #pending = new Set<net.Socket>();

  constructor(options: Partial<RemotingServerOptions> = {}) {
    super();
    this.options = Object.freeze({ ...DEFAULT_REMOTING_SERVER_OPTIONS, ...options });
    this.#logger = componentLogger('remoting-server', options.logger);
    this.#processors = new ProcessorTable(this.#logger, {
      maxInflight: this.options.serverMaxInflight,
      channelMaxInflightBytes: this.options.serverChannelMaxInflightBytes,
      maxInflightBytes: this.options.serverMaxInflightBytes,
    });
  }

  /** `options.executor` bounds the code's family over every channel; `options.rejectRequest` refuses at once. */
  registerProcessor(code: number, processor: RemotingProcessor, options?: ProcessorOptions): void {
    this.#processors.register(code, processor, options);
  }

  /** The processor for codes without their own (Java registerDefaultProcessor). */
  registerDefaultProcessor(processor: RemotingProcessor): void {
    this.#processors.registerDefault(processor);
  }

  /** Hooks around every request processed (Java registerRPCHook on the server: ACL checks). */
  registerRPCHook(hook: RPCHook): void {
    this.#processors.registerRPCHook(hook);
  }

  /** The hooks registered so far (a second server of the same processors takes them too). */
  get rpcHooks(): readonly RPCHook[] {
    return this.#processors.hooks;
  }

  /** The bound port once listening. */
  get port(): number {
    return this.#port;
  }

  /** Open channels. */
  get channels(): Channel[] {
    return [...this.#channels];
  }

  /** Requests being processed now, over every channel (for metrics). */
  get inflightRequests(): number {
    let n = 0;
    for (const c of this.#channels) n += c.inflight;
    return n;
  }

  /** Request body bytes being processed now, over every channel. */
  get inflightBytes(): number {
    return this.#processors.inflightBytes;
  }

  /** Bytes written to channels and not yet taken by the kernel, over every channel. */
  get writeBacklogBytes(): number {
    let n = 0;
    for (const c of this.#channels) n += c.writeBacklogBytes;
    return n;
  }

  /** Starts listening; resolves with the bound port. Idempotent. */
  listen(): Promise<number> {
    if (this.#shutdown) return Promise.reject(new Error('the remoting server is shut down'));
    if (this.#listening) return this.#listening;
    this.#listening = this.#prepareTls().then(() => new Promise<number>((resolve, reject) => {
      const server = net.createServer({ noDelay: true }, (socket) => this.#accept(socket));
      this.#server = server;
      const onError = (err: Error) => {
        this.#server = null;
        reject(err);
      };
      server.once('error', onError);
      server.listen(this.options.listenPort, this.options.bindAddress, () => {
        server.off('error', onError);
        server.on('error', (err) => this.#logger.error({ err }, 'server socket error'));
        const address = server.address();
        this.#port = typeof address === 'object' && address ? address.port : this.options.listenPort;
        this.#logger.info({ port: this.#port, bindAddress: this.options.bindAddress }, 'remoting server listening');
        resolve(this.#port);
      });
    }));
    return this.#listening;
  }

  /** Sends a request to a connected client over its own connection and resolves with the response. */
  invoke(channel: Channel, request: RemotingCommand, timeoutMillis: number): Promise<RemotingCommand> {
    const conn = this.#own(channel);
    if (!conn) return Promise.reject(new RemotingSendRequestError(channel.remoteAddress, `channel <${channel.remoteAddress}> is closed`));
    return conn.request(request, timeoutMillis);
  }

  /** Sends a oneway request to a connected client; resolves once written. */
  invokeOneway(channel: Channel, request: RemotingCommand, _timeoutMillis?: number): Promise<void> {
    const conn = this.#own(channel);
    if (!conn) return Promise.reject(new RemotingSendRequestError(channel.remoteAddress, `channel <${channel.remoteAddress}> is closed`));
    return conn.oneway(request);
  }

  /** Stops listening and closes every channel (their pending requests reject). Idempotent. */
  shutdown(): Promise<void> {
    if (this.#shutdown) return this.#shutdown;
    const server = this.#server;
    this.#server = null;
    this.#shutdown = (async () => {
      if (this.#listening) await this.#listening.catch(() => undefined);
      const closed = server && server.listening ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
      for (const conn of [...this.#channels]) conn.close();
      for (const socket of [...this.#pending]) socket.destroy();
      this.#pending.clear();
      await closed;
    })();
    return this.#shutdown;
  }

  #own(channel: Channel): Connection | null {
    return channel instanceof Connection && this.#channels.has(channel) && channel.isActive ? channel : null;
  }

  /** Builds the TLS server context (files read, or a self-signed certificate in test mode) unless disabled. */
  async #prepareTls(): Promise<void> {
    const config = await withTlsConfigFile({ ...DEFAULT_TLS_SYSTEM_CONFIG, ...this.options.tls });
    this.#tlsMode = config.tlsMode;
    if (config.tlsMode === TlsMode.DISABLED) return;
    const options = await buildServerTlsOptions(config);
    this.#requirePeerCert = !config.tlsTestModeEnable && config.tlsServerNeedClientAuth.trim().toLowerCase() === 'require';
    const tlsServer = tls.createServer({ ...options, handshakeTimeout: 10000 });
    tlsServer.on('secureConnection', (s) => {
      if (this.#requirePeerCert && Object.keys(s.getPeerCertificate() ?? {}).length === 0) {
        this.#logger.warn({ remoteAddr: `${s.remoteAddress}:${s.remotePort}` }, 'TLS client presented no certificate (tls.server.need.client.auth=require), closing');
        s.destroy();
        return;
      }
      // The TLS socket wraps the pending raw one; from here the connection is tracked as a channel.
      this.#open(s);
    });
    tlsServer.on('tlsClientError', (err, s) => {
      this.#logger.warn({ err: err.message, remoteAddr: `${s.remoteAddress}:${s.remotePort}` }, 'TLS handshake failed');
      s.destroy();
    });
    this.#tlsServer = tlsServer;
    this.#logger.info({ tlsMode: config.tlsMode, testMode: config.tlsTestModeEnable }, 'TLS enabled on the remoting server');
  }

  #accept(socket: net.Socket): void {
    if (this.#shutdown) {
      socket.destroy();
      return;
    }
    const tlsServer = this.#tlsServer;
    if (this.#tlsMode === TlsMode.DISABLED || !tlsServer) {
      this.#open(socket);
      return;
    }
    // Java's HandshakeHandler: decide by the first byte.
    const onError = (err: Error) => this.#logger.debug({ err: err.message }, 'connection failed before its first byte');
    socket.on('error', onError);
    this.#pending.add(socket);
    socket.once('close', () => this.#pending.delete(socket));
    const idle = this.options.serverChannelMaxIdleTimeSeconds * 1000;
    if (idle > 0) socket.setTimeout(idle, () => socket.destroy());
    socket.once('data', (first: Buffer) => {
      socket.pause();
      socket.setTimeout(0);
      socket.off('error', onError);
      socket.unshift(first);
      if (this.#shutdown) {
        socket.destroy();
      } else if (first[0] === HANDSHAKE_MAGIC_CODE) {
        // Stays pending until the handshake is over (secureConnection) or fails.
        tlsServer.emit('connection', socket);
      } else if (this.#tlsMode === TlsMode.ENFORCING) {
        this.#logger.warn({ remoteAddr: `${socket.remoteAddress}:${socket.remotePort}` },
          'Clients intend to establish an insecure connection while this server is running in SSL enforcing mode');
        socket.destroy();
      } else {
        this.#pending.delete(socket);
        this.#open(socket);
        socket.resume();
      }
    });
  }

  #open(socket: net.Socket): void {
    if (this.#shutdown) {
      socket.destroy();
      return;
    }
    const conn = new Connection(socket, {
      logger: this.#logger,
      maxFrameLength: this.options.maxFrameLength,
      idleTimeMillis: this.options.serverChannelMaxIdleTimeSeconds * 1000,
      onRequest: (c, request) => this.#processors.dispatch(c, request),
      writeBufferHighWaterMark: this.options.writeBufferHighWaterMark,
      writeBufferLowWaterMark: this.options.writeBufferLowWaterMark,
      maxWriteBacklogBytes: this.options.serverChannelMaxWriteBacklogBytes,
      requestsPerTurn: this.options.serverRequestsPerTurn,
    });
    if (!conn.isActive) return;
    this.#channels.add(conn);
    const addr = conn.remoteAddress;
    conn.on('close', () => {
      this.#channels.delete(conn);
      this.emit('close', addr, conn);
    });
    conn.on('idle', () => this.emit('idle', addr, conn));
    conn.on('exception', (_c, err) => this.emit('exception', addr, conn, err));
    this.emit('connect', addr, conn);
  }

  protected override onListenerError(event: string, err: unknown): void {
    this.#logger.error({ err, event }, 'remoting server listener failed');
  }
}
