/**
 * lib/grpc/grpc-tls-listener.ts: the TLS handshake deadline (Netty SslHandler's handshakeTimeoutMillis, 10 s in
 * Java's proxy; 1 s here). Node's TLS server alone would hold a connection whose handshake stalls for 120 s: a
 * record header that claims more bytes than come, or half a ClientHello, kept a socket (and a test waiting for the
 * broker to close it) open that long. A finished handshake is not touched by the deadline.
 */
import net from 'node:net';
import tls from 'node:tls';
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { GrpcTlsListener } from '../../../lib/grpc/grpc-tls-listener';
import { componentLogger } from '../../../lib/logger';
import { DEFAULT_TLS_SYSTEM_CONFIG, TlsMode } from '../../../lib/transport/tls-system-config';

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

describe('gRPC endpoint: the TLS handshake deadline (GrpcTlsListener)', function () {
  this.timeout(30_000);
  let server: grpc.Server;
  let listener: GrpcTlsListener;
  let port: number;

  before(async () => {
    server = new grpc.Server();
    listener = new GrpcTlsListener({
      grpc, server, tls: { ...DEFAULT_TLS_SYSTEM_CONFIG, tlsMode: TlsMode.ENFORCING }, port: 0, bindAddress: '127.0.0.1',
      logger: componentLogger('grpc-tls-listener-test'), firstByteTimeoutMillis: 20_000, handshakeTimeoutMillis: DEADLINE_MILLIS,
    });
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
