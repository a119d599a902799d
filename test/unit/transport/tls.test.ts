/**
 * TLS on the remoting transport: Java's three server modes (permissive sniffing the first byte, enforcing,
 * disabled), test mode's self-signed certificate, client certificates (need.client.auth, authClient) and server
 * verification (authServer), with certificates made by openssl in the test (a CA, a server and a client).
 */
import { expect } from 'chai';
import fs from 'node:fs';
import net from 'node:net';
import { X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import os from 'node:os';
import path from 'node:path';
import { RemotingServer } from '../../../lib/transport/remoting-server';
import { RemotingClient } from '../../../lib/transport/remoting-client';
import { type TlsSystemConfig, buildClientTlsOptions, DEFAULT_TLS_SYSTEM_CONFIG, tlsConfigFromProperties } from '../../../lib/transport/tls-system-config';
import { generateSelfSignedCertificate } from '../../../lib/transport/self-signed-certificate';
import { type TestCerts, hasOpenssl, makeCerts } from '../../helpers/tls-certs';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { ConfigError } from '../../../lib/errors';

const ECHO = 1000;

describe('lib/transport TLS (tls.server.mode, tls.test.mode.enable, client and server certificates)', function () {
  this.timeout(30000);
  const servers: RemotingServer[] = [];
  const clients: RemotingClient[] = [];
  let dir: string;
  let certs: TestCerts | null = null;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rmq-tls-'));
    if (hasOpenssl()) certs = makeCerts(dir);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.shutdown();
    for (const s of servers.splice(0)) await s.shutdown();
  });

  async function server(tls: Partial<TlsSystemConfig>): Promise<string> {
    const s = new RemotingServer({ bindAddress: '127.0.0.1', listenPort: 0, tls });
    s.registerProcessor(ECHO, (req) => RemotingCommand.createResponse(req, 0, `echo ${req.remark ?? ''}`));
    servers.push(s);
    return `127.0.0.1:${await s.listen()}`;
  }

  async function client(useTLS: boolean, tls: Partial<TlsSystemConfig> = {}): Promise<RemotingClient> {
    const tlsOptions = await buildClientTlsOptions({ ...DEFAULT_TLS_SYSTEM_CONFIG, ...tls });
    const c = new RemotingClient({ useTLS, tlsOptions, connectTimeoutMillis: 3000 });
    clients.push(c);
    return c;
  }

  async function echo(c: RemotingClient, addr: string): Promise<string> {
    const req = RemotingCommand.createRequest(ECHO, null);
    req.remark = 'hi';
    const res = await c.invoke(addr, req, 3000);
    return res.remark ?? '';
  }

  async function fails(c: RemotingClient, addr: string): Promise<void> {
    const err = await echo(c, addr).then(() => null, (e: Error) => e);
    expect(err, 'the request must fail').to.be.instanceOf(Error);
  }

  it('permissive (Java default, test mode): TLS and plain clients on one port', async () => {
    const addr = await server({});
    expect(await echo(await client(true), addr)).to.equal('echo hi');
    expect(await echo(await client(false), addr)).to.equal('echo hi');
    expect(servers[0].channels.length).to.equal(2);
  });

  it('enforcing: a plain client is closed, a TLS client is served', async () => {
    const addr = await server({ tlsMode: 'enforcing' });
    expect(await echo(await client(true), addr)).to.equal('echo hi');
    await fails(await client(false), addr);
  });

  it('disabled: plain only; a TLS client gets no session', async () => {
    const addr = await server({ tlsMode: 'disabled' });
    expect(await echo(await client(false), addr)).to.equal('echo hi');
    await fails(await client(true), addr);
  });

  it('a connection that never sends its first byte does not hold up shutdown', async () => {
    const addr = await server({});
    const [host, port] = addr.split(':');
    const sock = net.connect(Number(port), host);
    await new Promise((r) => sock.once('connect', r));
    await servers.splice(0)[0].shutdown();
    await new Promise((r) => (sock.destroyed ? r(null) : sock.once('close', r)));
  });

  it('configured certificates: need.client.auth=require with authClient verifies the client; authServer verifies the server', async function () {
    if (!certs) this.skip();
    const c = certs!;
    const addr = await server({
      tlsMode: 'enforcing', tlsTestModeEnable: false, tlsServerCertPath: c.serverCert, tlsServerKeyPath: c.serverKey,
      tlsServerNeedClientAuth: 'require', tlsServerAuthClient: true, tlsServerTrustCertPath: c.ca,
    });
    const good = await client(true, {
      tlsTestModeEnable: false, tlsClientCertPath: c.clientCert, tlsClientKeyPath: c.clientKey, tlsClientAuthServer: true, tlsClientTrustCertPath: c.ca,
    });
    expect(await echo(good, addr)).to.equal('echo hi');
    // No client certificate.
    await fails(await client(true, { tlsTestModeEnable: false }), addr);
    // A client that trusts another CA refuses our server.
    await fails(await client(true, {
      tlsTestModeEnable: false, tlsClientCertPath: c.clientCert, tlsClientKeyPath: c.clientKey, tlsClientAuthServer: true, tlsClientTrustCertPath: c.otherCa,
    }), addr);
  });

  it('need.client.auth=require without authClient takes any client certificate, but one must be sent', async function () {
    if (!certs) this.skip();
    const c = certs!;
    const addr = await server({ tlsTestModeEnable: false, tlsServerCertPath: c.serverCert, tlsServerKeyPath: c.serverKey, tlsServerNeedClientAuth: 'require' });
    const self = generateSelfSignedCertificate('stranger');
    fs.writeFileSync(path.join(dir, 'stranger.pem'), self.cert);
    fs.writeFileSync(path.join(dir, 'stranger.key'), self.key);
    const stranger = await client(true, { tlsTestModeEnable: false, tlsClientCertPath: path.join(dir, 'stranger.pem'), tlsClientKeyPath: path.join(dir, 'stranger.key') });
    expect(await echo(stranger, addr)).to.equal('echo hi');
    await fails(await client(true, { tlsTestModeEnable: false }), addr);
    // permissive: plain still served beside TLS.
    expect(await echo(await client(false), addr)).to.equal('echo hi');
  });

  it('tls.config.file supplies the certificate settings (not the mode), as TlsHelper reads it', async function () {
    if (!certs) this.skip();
    const c = certs!;
    const file = path.join(dir, 'tls.properties');
    fs.writeFileSync(file, `tls.test.mode.enable=false\ntls.server.certPath=${c.serverCert}\ntls.server.keyPath=${c.serverKey}\ntls.server.mode=disabled\n`);
    const addr = await server({ tlsMode: 'enforcing', tlsConfigFile: file });
    const verifying = await client(true, { tlsTestModeEnable: false, tlsClientAuthServer: true, tlsClientTrustCertPath: c.ca });
    expect(await echo(verifying, addr)).to.equal('echo hi');
    await fails(await client(false), addr);
  });

  it('self-signed certificates are valid DER every time (positive minimal serial), signed by their own key', () => {
    for (let i = 0; i < 300; i++) {
      const c = generateSelfSignedCertificate();
      const x = new X509Certificate(c.cert);
      expect(x.subject).to.equal('CN=localhost');
      expect(x.verify(x.publicKey)).to.equal(true);
      expect(x.serialNumber).to.match(/^(0[1-9A-F]|[1-7][0-9A-F])/);
      createSecureContext({ cert: c.cert, key: c.key });
    }
  });

  it('reads Java key names; refuses an unknown mode and missing certificate files', async () => {
    const cfg = tlsConfigFromProperties(new Map([
      ['tls.server.mode', 'ENFORCING'], ['tls.test.mode.enable', 'false'], ['tls.server.need.client.auth', 'optional'],
      ['tls.client.authServer', 'true'], ['tls.server.certPath', '/x.pem'], ['other', 'y'],
    ]));
    expect(cfg).to.include({ tlsMode: 'enforcing', tlsTestModeEnable: false, tlsServerNeedClientAuth: 'optional', tlsClientAuthServer: true, tlsServerCertPath: '/x.pem' });
    expect(() => tlsConfigFromProperties(new Map([['tls.server.mode', 'strict']]))).to.throw(ConfigError);
    const s = new RemotingServer({ bindAddress: '127.0.0.1', listenPort: 0, tls: { tlsTestModeEnable: false, tlsServerCertPath: path.join(dir, 'nope.pem'), tlsServerKeyPath: path.join(dir, 'nope.key') } });
    servers.push(s);
    const err = await s.listen().then(() => null, (e: Error) => e);
    expect(err).to.be.instanceOf(ConfigError);
  });
});
