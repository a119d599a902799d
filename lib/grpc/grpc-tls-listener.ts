/**
 * The gRPC endpoint's port when TLS is on, as Java's proxy negotiates it (ProxyAndTlsProtocolNegotiator's
 * TlsModeHandler): one port, one grpc-js server, and per accepted connection a look at its first byte:
 *   0x16 (a TLS handshake record)  → TLS (then HTTP/2 over it, ALPN h2)
 *   anything else                   → plain HTTP/2 in permissive mode; closed in enforcing mode (Java's enforcing
 *                                     mode starts a TLS handshake the plain client cannot finish: closed as well)
 * Our net.Server accepts; the socket, its first chunk pushed back (unshift), goes to grpc-js through its public
 * Server.createConnectionInjector (one injector with TLS credentials, one insecure), so the RPC handlers, limits
 * and shutdown are grpc-js's own for both. No JS stream wrapper on either path: a net.Socket (plain) or the
 * TLSSocket over it keeps its native handle, which Node's HTTP/2 session consumes directly, and the pushed-back
 * chunk is read from the socket's buffer by that session (or by the TLS socket) first.
 *
 * The certificate: tls.test.mode.enable=true (the default) → a self-signed one made at start (clients that check
 * certificates will not trust it, as with Java's test mode); otherwise tls.server.certPath / keyPath (keyPassword
 * for an encrypted key). Client certificates are neither asked for nor checked (Java's proxy: ClientAuth.NONE).
 * The HAProxy protocol Java's negotiator also detects is not served.
 *
 * @see org.apache.rocketmq.proxy.grpc.ProxyAndTlsProtocolNegotiator
 * @see org.apache.rocketmq.proxy.grpc.GrpcServerBuilder
 */
import { createPrivateKey } from 'node:crypto';
import net from 'node:net';
import type * as GrpcJs from '@grpc/grpc-js';
import { ConfigError } from '../errors';
import type { Logger } from '../logger';
import { TlsMode, type TlsSystemConfig, buildServerTlsOptions } from '../transport/tls-system-config';
import type { Grpc } from './grpc-loader';

/** The first byte of a TLS handshake record (Java HandshakeHandler.HANDSHAKE_MAGIC_CODE). */
export const HANDSHAKE_MAGIC_CODE = 0x16;

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
}

function asText(v: string | Buffer | Array<string | Buffer | { pem: string | Buffer }> | undefined): Buffer | null {
  if (v === undefined) return null;
  if (typeof v === 'string' || Buffer.isBuffer(v)) return Buffer.from(v);
  return null;
}

/** grpc-js server credentials from the TLS settings: the certificate chain and an unencrypted PEM key. */
export async function buildGrpcServerCredentials(grpc: Grpc, tls: TlsSystemConfig): Promise<GrpcJs.ServerCredentials> {
  const options = await buildServerTlsOptions(tls);
  const cert = asText(options.cert);
  const key = asText(options.key as string | Buffer | undefined);
  if (!cert || !key) throw new ConfigError('gRPC endpoint TLS: a certificate and a key are required');
  let privateKey = key;
  if (options.passphrase) {
    // grpc-js takes no passphrase: decrypt the key here (tls.server.keyPassword).
    try {
      privateKey = Buffer.from(createPrivateKey({ key, format: 'pem', passphrase: options.passphrase }).export({ type: 'pkcs8', format: 'pem' }));
    } catch (err) {
      throw new ConfigError(`gRPC endpoint TLS: cannot read the key with tls.server.keyPassword: ${(err as Error).message}`, { cause: err });
    }
  }
  return grpc.ServerCredentials.createSsl(null, [{ private_key: privateKey, cert_chain: cert }], false);
}

export class GrpcTlsListener {
  readonly #o: GrpcTlsListenerOptions;
  #net: net.Server | null = null;
  #tls: GrpcJs.ConnectionInjector | null = null;
  #plain: GrpcJs.ConnectionInjector | null = null;
  /** Sockets accepted and not yet handed over (waiting for their first byte). */
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

  /** Builds the credentials, creates the injectors and listens; resolves with the bound port. */
  async listen(): Promise<number> {
    const { grpc, server, tls } = this.#o;
    if (typeof server.createConnectionInjector !== 'function') {
      throw new ConfigError('TLS on the gRPC endpoint needs @grpc/grpc-js 1.11 or later (Server.createConnectionInjector)');
    }
    const credentials = await buildGrpcServerCredentials(grpc, tls);
    this.#tls = server.createConnectionInjector(credentials);
    if (tls.tlsMode === TlsMode.PERMISSIVE) this.#plain = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
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
    this.#o.logger.info({ grpcPort: port, tlsMode: tls.tlsMode, testMode: tls.tlsTestModeEnable }, 'TLS enabled on the gRPC endpoint');
    return port;
  }

  /**
   * Stops accepting at once and closes the connections not handed over yet; the handed-over ones are grpc-js's
   * (the application calls the server's forceShutdown right after, which ends their HTTP/2 sessions). On the next
   * turn every accepted socket still open is destroyed: a TLS connection still in its handshake has no session yet
   * for grpc-js to end (it would stay until the handshake timeout, 120 s), and a net.Server only reports itself
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
    this.#tls?.destroy();
    this.#plain?.destroy();
    this.#tls = null;
    this.#plain = null;
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
      this.#pending.delete(socket);
      socket.off('error', onError);
      if (this.#closed || !this.#tls) {
        socket.destroy();
      } else if (first[0] === HANDSHAKE_MAGIC_CODE) {
        this.#tls.injectConnection(socket);
      } else if (this.#plain) {
        this.#plain.injectConnection(socket);
      } else {
        logger.warn({ remoteAddr: `${socket.remoteAddress}:${socket.remotePort}` },
          'Clients intend to establish an insecure connection while this server is running in SSL enforcing mode');
        socket.destroy();
      }
    });
  }
}
