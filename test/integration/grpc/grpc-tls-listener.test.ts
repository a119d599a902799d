/**
 * lib/grpc/grpc-tls-listener.ts: the certificate from files with an encrypted key (tls.server.keyPassword), and the
 * TLS handshake deadline (Netty SslHandler's handshakeTimeoutMillis, 10 s in
 * Java's proxy; 1 s here). Node's TLS server alone would hold a connection whose handshake stalls for 120 s: a
 * record header that claims more bytes than come, or half a ClientHello, kept a socket (and a test waiting for the
 * broker to close it) open that long. A finished handshake is not touched by the deadline.
 */
import crypto, { createPrivateKey } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { ConfigError } from '../../../lib/errors';
import { GrpcTlsListener } from '../../../lib/grpc/grpc-tls-listener';
import { componentLogger } from '../../../lib/logger';
import { generateSelfSignedCertificate } from '../../../lib/transport/self-signed-certificate';
import { DEFAULT_TLS_SYSTEM_CONFIG, TlsMode, type TlsSystemConfig } from '../../../lib/transport/tls-system-config';

const DEADLINE_MILLIS = 1000;

/** Opens a raw connection, writes `bytes` and resolves with how long the listener took to close it. */
function closedAfter(port: number, bytes: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let started = 0;
    socket.on('error', () => undefined);
    socket.on('data', () => undefined);
    socket.once('connect', () => {
      started = Date.now();
      socket.write(bytes);
    });
    socket.once('close', () => (started ? resolve(Date.now() - started) : reject(new Error('not connected'))));
  });
}

/** A listener of an empty grpc-js server on a free port of 127.0.0.1 (listen() is the caller's). */
function newListener(tlsConfig: TlsSystemConfig, handshakeTimeoutMillis?: number): { server: grpc.Server; listener: GrpcTlsListener } {
  const server = new grpc.Server();
  const listener = new GrpcTlsListener({
    grpc, server, tls: tlsConfig, port: 0, bindAddress: '127.0.0.1',
    logger: componentLogger('grpc-tls-listener-test'), firstByteTimeoutMillis: 20_000, handshakeTimeoutMillis,
  });
  return { server, listener };
}

describe('gRPC endpoint: the TLS handshake deadline (GrpcTlsListener)', function () {
  this.timeout(30_000);
  let server: grpc.Server;
  let listener: GrpcTlsListener;
  let port: number;

  before(async () => {
    ({ server, listener } = newListener({ ...DEFAULT_TLS_SYSTEM_CONFIG, tlsMode: TlsMode.ENFORCING }, DEADLINE_MILLIS));
    port = await listener.listen();
  });

  after(async () => {
    await listener.close();
    server.forceShutdown();
  });

  it('a record header that claims 4,096 bytes, 295 sent: closed by the deadline (Node alone waits 120 s)', async () => {
    const took = await closedAfter(port, Buffer.concat([Buffer.from([0x16, 0x03, 0x01, 0x10, 0x00]), Buffer.alloc(295, 0x01)]));
    expect(took).to.be.at.least(DEADLINE_MILLIS - 50);
  });

  it('half a ClientHello and nothing more, the connection left open: closed by the deadline', async () => {
    const took = await closedAfter(port, Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00]));
    expect(took).to.be.at.least(DEADLINE_MILLIS - 50);
  });

  it('a finished handshake outlives the deadline: HTTP/2 SETTINGS arrive, the connection is still open after it', async () => {
    const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ALPNProtocols: ['h2'] });
    let closed = false;
    socket.once('close', () => (closed = true));
    socket.on('error', () => undefined);
    try {
      // A client preface, then the server's SETTINGS frame (type 0x04) comes back over the TLS connection.
      const settings = new Promise<Buffer>((resolve) => socket.once('data', resolve));
      await new Promise<void>((resolve, reject) => {
        socket.once('secureConnect', () => resolve());
        socket.once('error', reject);
      });
      expect(socket.alpnProtocol).to.equal('h2');
      socket.write(Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), Buffer.from([0, 0, 0, 0x04, 0, 0, 0, 0, 0])]));
      expect((await settings)[3]).to.equal(0x04);
      await new Promise((resolve) => setTimeout(resolve, DEADLINE_MILLIS * 1.5));
      expect(closed, 'closed after its handshake had finished').to.equal(false);
    } finally {
      socket.destroy();
    }
  });

});

describe('gRPC endpoint: a certificate and an encrypted key from files (GrpcTlsListener)', function () {
  this.timeout(30_000);
  let dir: string;
  let config: TlsSystemConfig;
  let cert: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'grpc-tls-key-'));
    const made = generateSelfSignedCertificate('broker.example');
    cert = made.cert;
    const encrypted = createPrivateKey(made.key).export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'key-secret' });
    fs.writeFileSync(path.join(dir, 'server.pem'), made.cert);
    fs.writeFileSync(path.join(dir, 'server.key'), encrypted);
    config = {
      ...DEFAULT_TLS_SYSTEM_CONFIG, tlsMode: TlsMode.ENFORCING, tlsTestModeEnable: false,
      tlsServerCertPath: path.join(dir, 'server.pem'), tlsServerKeyPath: path.join(dir, 'server.key'), tlsServerKeyPassword: 'key-secret',
    };
  });

  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('tls.server.keyPassword decrypts the key: a client sees the certificate from the file, ALPN h2', async () => {
    const l = newListener(config);
    try {
      const port = await l.listener.listen();
      const seen = await new Promise<{ cn: string; alpn: string | false; raw: Buffer }>((resolve, reject) => {
        const s = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ALPNProtocols: ['h2'], servername: 'broker.example' }, () => {
          const c = s.getPeerCertificate();
          resolve({ cn: String(c.subject.CN), alpn: s.alpnProtocol ?? false, raw: c.raw });
          s.destroy();
        });
        s.once('error', reject);
      });
      expect(seen.cn).to.equal('broker.example');
      expect(seen.alpn).to.equal('h2');
      expect(seen.raw.equals(new crypto.X509Certificate(cert).raw)).to.equal(true);
    } finally {
      await l.listener.close();
      l.server.forceShutdown();
    }
  });

  it('a wrong keyPassword: a ConfigError at start that names the setting', async () => {
    const l = newListener({ ...config, tlsServerKeyPassword: 'not-the-secret' });
    try {
      const err = await l.listener.listen().then(() => null, (e: Error) => e);
      expect(err).to.be.instanceOf(ConfigError);
      expect(err!.message).to.contain('tls.server.keyPassword');
    } finally {
      await l.listener.close();
      l.server.forceShutdown();
    }
  });
});
