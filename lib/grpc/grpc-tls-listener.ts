/**
 * The gRPC endpoint's port when TLS is on, as Java's proxy negotiates it (ProxyAndTlsProtocolNegotiator's
 * TlsModeHandler): one port, one grpc-js server, and per accepted connection a look at its first byte:
 *   0x16 (a TLS handshake record)  → TLS (then HTTP/2 over it, ALPN h2)
 *   anything else                   → plain HTTP/2 in permissive mode; closed in enforcing mode (Java's enforcing
 *                                     mode starts a TLS handshake the plain client cannot finish: closed as well)
 * Our net.Server accepts. A TLS connection is handshaken here (a server-side TLSSocket over the accepted socket, ALPN
 * h2), within a deadline: Java's Netty SslHandler closes a connection whose handshake has not finished in
 * 10 s (TLS_HANDSHAKE_TIMEOUT_MILLIS), where Node's TLS server would wait 120 s, so a client that sends a record
 * header and not the record holds nothing for long. Once the handshake is done the TLSSocket goes to grpc-js
 * through its public Server.createConnectionInjector, as a plain connection does: the RPC handlers, limits and
 * shutdown are grpc-js's own for both, and grpc-js still sees a TLSSocket (its auth context says TLS). No JS stream
 * wrapper on either path: a net.Socket (plain) or the TLSSocket over it keeps its native handle, which Node's HTTP/2
 * session consumes directly, and the pushed-back first chunk is read from the socket's buffer by that session (or
 * by the TLS socket) first.
 *
 * The certificate: tls.test.mode.enable=true (the default) → a self-signed one made at start (clients that check
 * certificates will not trust it, as with Java's test mode); otherwise tls.server.certPath / keyPath (keyPassword
 * for an encrypted key). Client certificates are neither asked for nor checked (Java's proxy: ClientAuth.NONE).
 * A TLS client that offers no ALPN h2 is closed, as Node's HTTP/2 secure server closes it.
 * The HAProxy protocol Java's negotiator also detects is not served.
 *
 * @see org.apache.rocketmq.proxy.grpc.ProxyAndTlsProtocolNegotiator
 * @see org.apache.rocketmq.proxy.grpc.GrpcServerBuilder
 * @see io.netty.handler.ssl.SslHandler#handshakeTimeoutMillis
 */
import net from 'node:net';
import tls from 'node:tls';
import type * as GrpcJs from '@grpc/grpc-js';
import { ConfigError } from '../errors';
import type { Logger } from '../logger';
import { TlsMode, type TlsSystemConfig, buildServerTlsOptions } from '../transport/tls-system-config';
import type { Grpc } from './grpc-loader';

/** The first byte of a TLS handshake record (Java HandshakeHandler.HANDSHAKE_MAGIC_CODE). */
export const HANDSHAKE_MAGIC_CODE = 0x16;

/** A TLS handshake not finished this long after its first byte closes the connection (Netty SslHandler's default). */
export const TLS_HANDSHAKE_TIMEOUT_MILLIS = 10_000;

export interface GrpcTlsListenerOptions {
  grpc: Grpc;
  /** The grpc-js server with its services added; the listener injects connections into it. */
  server: GrpcJs.Server;
  /** permissive or enforcing, with the certificate settings (tls.config.file already applied). */
  tls: TlsSystemConfig;
  port: number;
  bindAddress: string;
  logger: Logger;
  /** A connection silent this long after it is accepted is closed. */
  firstByteTimeoutMillis: number;
  /** A TLS handshake not done this long after its first byte is closed; TLS_HANDSHAKE_TIMEOUT_MILLIS by default. */
  handshakeTimeoutMillis?: number;
}

/**
 * The handshaker: a Node TLS server that never listens, with the certificate and key of the TLS settings (ALPN h2,
 * no client certificate). A key that keyPassword does not decrypt, or a key that is not the certificate's, is a
 * ConfigError at start (Node reads them when the server is made), not a failure of every handshake.
 */
async function createGrpcHandshaker(config: TlsSystemConfig, handshakeTimeout: number): Promise<tls.Server> {
  const options = await buildServerTlsOptions(config);
  if (!options.cert || !options.key) throw new ConfigError('gRPC endpoint TLS: a certificate and a key are required');
  try {
    return tls.createServer({
      cert: options.cert, key: options.key, passphrase: options.passphrase, ALPNProtocols: ['h2'], requestCert: false, handshakeTimeout,
    });
  } catch (err) {
    const what = options.passphrase ? 'the key with tls.server.keyPassword' : 'the certificate and key';
    throw new ConfigError(`gRPC endpoint TLS: cannot read ${what}: ${(err as Error).message}`, { cause: err });
  }
}

export class GrpcTlsListener {
  readonly #o: GrpcTlsListenerOptions;
  #net: net.Server | null = null;
  /**
   * Does the TLS handshakes, with a deadline (handshakeTimeout), and never listens: accepted sockets are injected
   * into it and it hands each finished handshake's TLSSocket on.
   */
  #handshaker: tls.Server | null = null;
  /** Hands grpc-js its connections: plain ones (permissive mode) and TLS ones whose handshake is done. */
  #injector: GrpcJs.ConnectionInjector | null = null;
  /** Sockets accepted and waiting for their first byte (then handed to the handshaker or to grpc-js). */
  readonly #pending = new Set<net.Socket>();
  /** Every accepted socket still open, handed over or not (closed on shutdown whatever grpc-js did with it). */
  readonly #sockets = new Set<net.Socket>();
  #closed = false;
  #closing: Promise<void> | null = null;

  constructor(options: GrpcTlsListenerOptions) {
    if (options.tls.tlsMode !== TlsMode.PERMISSIVE && options.tls.tlsMode !== TlsMode.ENFORCING) {
      throw new ConfigError(`GrpcTlsListener serves tls.server.mode permissive or enforcing, not ${options.tls.tlsMode}`);
    }
    this.#o = options;
  }

  /** Reads the certificate, creates the injector and the handshaker, and listens; resolves with the bound port. */
  async listen(): Promise<number> {
    const { grpc, server, tls: config } = this.#o;
    if (typeof server.createConnectionInjector !== 'function') {
      throw new ConfigError('TLS on the gRPC endpoint needs @grpc/grpc-js 1.11 or later (Server.createConnectionInjector)');
    }
    const handshaker = await createGrpcHandshaker(config, this.#o.handshakeTimeoutMillis ?? TLS_HANDSHAKE_TIMEOUT_MILLIS);
    // Insecure as grpc-js sees its credentials: the TLS of a TLS connection is the TLSSocket handed over.
    const injector = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
    this.#injector = injector;
    const logger = this.#o.logger;
    handshaker.on('secureConnection', (secure: tls.TLSSocket) => {
      // grpc-js handles the errors of the connections it is handed (a reset after the handshake, say).
      secure.on('error', (err) => logger.debug({ err: err.message }, 'gRPC TLS connection failed'));
      if (this.#closed) secure.destroy();
      else injector.injectConnection(secure);
    });
    handshaker.on('tlsClientError', (err: Error, secure: tls.TLSSocket) => {
      logger.debug({ err: err.message, remoteAddr: `${secure.remoteAddress}:${secure.remotePort}` }, 'TLS handshake failed: connection closed');
      secure.destroy();
    });
    this.#handshaker = handshaker;
    const listener = net.createServer({ noDelay: true }, (socket) => this.#accept(socket));
    this.#net = listener;
    const port = await new Promise<number>((resolve, reject) => {
      listener.once('error', reject);
      listener.listen(this.#o.port, this.#o.bindAddress, () => {
        listener.off('error', reject);
        listener.on('error', (err) => this.#o.logger.error({ err }, 'gRPC endpoint server socket error'));
        const address = listener.address();
        resolve(typeof address === 'object' && address ? address.port : this.#o.port);
      });
    });
    this.#o.logger.info({ grpcPort: port, tlsMode: config.tlsMode, testMode: config.tlsTestModeEnable }, 'TLS enabled on the gRPC endpoint');
    return port;
  }

  /**
   * Stops accepting at once and closes the connections not handed over yet; the handed-over ones are grpc-js's
   * (the application calls the server's forceShutdown right after, which ends their HTTP/2 sessions). On the next
   * turn every accepted socket still open is destroyed: a TLS connection still in its handshake has no session yet
   * for grpc-js to end (it would stay until the handshake deadline), and a net.Server only reports itself
   * closed once all its sockets are. Resolves then. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#closed = true;
    const listener = this.#net;
    this.#net = null;
    const closed = listener?.listening ? new Promise<void>((resolve) => listener.close(() => resolve())) : Promise.resolve();
    for (const s of this.#pending) s.destroy();
    this.#pending.clear();
    this.#injector?.destroy();
    this.#injector = null;
    this.#handshaker = null;
    await new Promise<void>((resolve) => setImmediate(resolve));
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
    await closed;
  }

  #accept(socket: net.Socket): void {
    if (this.#closed) {
      socket.destroy();
      return;
    }
    const logger = this.#o.logger;
    const onError = (err: Error) => logger.debug({ err: err.message }, 'gRPC connection failed before its first byte');
    socket.on('error', onError);
    this.#pending.add(socket);
    this.#sockets.add(socket);
    socket.once('close', () => {
      this.#pending.delete(socket);
      this.#sockets.delete(socket);
    });
    socket.setTimeout(this.#o.firstByteTimeoutMillis, () => socket.destroy());
    socket.once('data', (first: Buffer) => {
      socket.pause();
      socket.setTimeout(0);
      socket.unshift(first);
      const injector = this.#injector;
      const handshaker = this.#handshaker;
      if (this.#closed || !injector || !handshaker) {
        socket.destroy();
      } else if (first[0] === HANDSHAKE_MAGIC_CODE || this.#o.tls.tlsMode === TlsMode.PERMISSIVE) {
        this.#pending.delete(socket);
        socket.off('error', onError);
        // A TLS connection is handed to grpc-js by the handshaker once its handshake is done.
        if (first[0] === HANDSHAKE_MAGIC_CODE) handshaker.emit('connection', socket);
        else injector.injectConnection(socket);
      } else {
        logger.warn({ remoteAddr: `${socket.remoteAddress}:${socket.remotePort}` },
          'Clients intend to establish an insecure connection while this server is running in SSL enforcing mode');
        socket.destroy();
      }
    });
  }
}
