/**
 * TLS and ACL on the broker's gRPC endpoint.
 *
 * TLS (the broker's tls.* keys from broker.conf properties, as Java's proxy applies them): rocketmq-client-nodejs
 * with `sslEnabled` (in a child process, whose grpc-js trusts the test CA through GRPC_DEFAULT_SSL_ROOTS_FILE_PATH)
 * sends and receives in enforcing and permissive mode, with the certificates openssl makes for the TLS tests
 * (test/helpers/tls-certs.ts; skipped with a line when openssl is missing); plain HTTP/2 works on the same port in
 * permissive mode and is refused in enforcing mode; disabled serves plain only; test mode serves a self-signed
 * certificate.
 *
 * ACL (aclEnable=true, plain_acl.yml): the same account works for gRPC and remoting clients; a gRPC request with a
 * wrong secret, an unknown access key, no credentials, or without the permission (PUB on a DENY or SUB-only topic,
 * a DENY group) is answered in band with UNAUTHORIZED (40100), as 5.3.3's proxy answers its auth exceptions;
 * Telemetry and ReceiveMessage (streams) too; the remoting side answers as before.
 */
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { Producer, SimpleConsumer, type MessageView } from 'rocketmq-client-nodejs';
import { NamesrvController } from '../../../lib/namesrv/namesrv-controller';
import { BrokerController } from '../../../lib/broker/broker-controller';
import { applyBrokerProperties } from '../../../lib/broker/broker-config';
import { TEST_STORE_CONFIG } from '../../../lib/cluster';
import { startCluster, type Cluster } from '../../../lib/server';
import { PROTO_LOADER_OPTIONS, protoRoot } from '../../../lib/grpc/grpc-loader';
import { AclClientRPCHook, DefaultMQProducer, createMessage } from '../../../lib/index';
import { RemotingClient } from '../../../lib/transport/remoting-client';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { CreateTopicRequestHeader } from '../../../protocol/header/create-topic-request-header';
import { newTopicConfig } from '../../../protocol/body/topic-config';
import { registerLeftover } from '../../helpers/root-hooks';
import { randomName } from '../../helpers/cluster';
import { waitFor } from '../../helpers/wait-for';
import { type TestCerts, hasOpenssl, makeCerts } from '../../helpers/tls-certs';
import { clientLogger as logger } from './grpc-client-fixture';

type Reply = Record<string, unknown> & { status?: { code: string; message: string } };
type Unary = (req: object, md: grpc.Metadata, options: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res: Reply) => void) => void;
type Stub = grpc.Client & Record<string, Unary> & {
  telemetry(md: grpc.Metadata): grpc.ClientDuplexStream<object, Reply>;
  receiveMessage(req: object, md: grpc.Metadata, options: grpc.CallOptions): grpc.ClientReadableStream<Reply>;
};
type StubClass = new (addr: string, c: grpc.ChannelCredentials) => Stub;

let stubClass: StubClass | null = null;
function messagingService(): StubClass {
  if (stubClass) return stubClass;
  const root = protoRoot();
  const def = protoLoader.loadSync(path.join(root, 'apache/rocketmq/v2/service.proto'), { ...PROTO_LOADER_OPTIONS, includeDirs: [root] });
  stubClass = (grpc.loadPackageDefinition(def) as unknown as { apache: { rocketmq: { v2: { MessagingService: StubClass } } } })
    .apache.rocketmq.v2.MessagingService;
  return stubClass;
}

interface Credentials { accessKey: string; secretKey: string }

/** The headers rocketmq-client-nodejs sends (BaseClient.getRequestMetadata), signed when given credentials. */
function metadata(credentials?: Credentials | null, extra: Record<string, string> = {}): grpc.Metadata {
  const m = new grpc.Metadata();
  const dateTime = '20261204T090000Z';
  m.set('x-mq-client-id', 'tls-acl-raw-client');
  m.set('x-mq-language', 'HTTP');
  m.set('x-mq-protocol', 'v2');
  m.set('x-mq-date-time', dateTime);
  if (credentials) {
    const signature = createHmac('sha1', credentials.secretKey).update(dateTime).digest('hex').toUpperCase();
    m.set('authorization', `MQv2-HMAC-SHA1 Credential=${credentials.accessKey}, SignedHeaders=x-mq-date-time, Signature=${signature}`);
  }
  for (const [k, v] of Object.entries(extra)) m.set(k, v);
  return m;
}

function unary(stub: Stub, method: string, req: object, md: grpc.Metadata = metadata()): Promise<Reply> {
  return new Promise((resolve, reject) => {
    stub[method](req, md, { deadline: Date.now() + 20_000 }, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

/** The gRPC status of a call that fails at the transport (no in-band answer). */
async function transportError(p: Promise<unknown>): Promise<number> {
  const err = await p.then(() => null, (e: grpc.ServiceError) => e);
  expect(err, 'the call must fail').to.not.equal(null);
  return err!.code;
}

const TOPIC_QUEUES = { readQueueNums: 2, writeQueueNums: 2 };

interface RunningBroker {
  namesrv: NamesrvController;
  broker: BrokerController;
  /** "127.0.0.1:<grpc port>" */
  endpoints: string;
  stop(): Promise<void>;
}

/** A name server and a broker whose broker.conf sets the gRPC port and the given tls.* keys. */
async function startBroker(root: string, props: Array<[string, string]>): Promise<RunningBroker> {
  const dir = fs.mkdtempSync(path.join(root, 'broker-'));
  const conf = applyBrokerProperties(new Map([
    ['brokerName', randomName('broker')], ['brokerIP1', '127.0.0.1'], ['listenPort', '0'], ['storePathRootDir', path.join(dir, 'store')],
    ['grpcServerPort', '0'], ...props,
  ]));
  expect(conf.unknownKeys).to.deep.equal([]);
  const namesrv = new NamesrvController({ listenPort: 0, bindAddress: '127.0.0.1', kvConfigPath: path.join(dir, 'kv.json'), configStorePath: path.join(dir, 'ns.properties') });
  await namesrv.start();
  conf.brokerConfig.namesrvAddr = namesrv.address;
  const broker = new BrokerController({
    brokerConfig: conf.brokerConfig,
    messageStoreConfig: { ...TEST_STORE_CONFIG, ...conf.messageStoreConfig },
    remotingServerConfig: { ...conf.remotingServerConfig, bindAddress: '127.0.0.1' },
  });
  const stop = async () => {
    await broker.shutdown();
    await namesrv.shutdown();
  };
  const remove = registerLeftover(stop);
  try {
    await broker.start();
  } catch (err) {
    remove();
    await stop();
    throw err;
  }
  const port = broker.grpcEndpoint?.port ?? 0;
  expect(port).to.be.greaterThan(0);
  return {
    namesrv, broker, endpoints: `127.0.0.1:${port}`,
    stop: async () => {
      remove();
      await stop();
    },
  };
}

async function createTopic(b: RunningBroker, topic: string): Promise<void> {
  await b.broker.topicConfigManager.updateTopicConfig(newTopicConfig(topic, TOPIC_QUEUES));
}

interface ChildResult { exitCode: number | null; sent: string[]; got: Map<string, string>; done: boolean; error: string | null }

/** rocketmq-client-nodejs with sslEnabled in a child process trusting `ca` (test/helpers/grpc-tls-client-child.ts). */
function runTlsClientChild(endpoints: string, topic: string, count: number, ca: string, credentials?: Credentials): Promise<ChildResult> {
  const script = path.join(__dirname, '..', '..', 'helpers', 'grpc-tls-client-child.js');
  const args = [script, endpoints, topic, randomName('GTlsCG'), String(count), ...(credentials ? [credentials.accessKey, credentials.secretKey] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, GRPC_DEFAULT_SSL_ROOTS_FILE_PATH: ca } });
  const remove = registerLeftover(async () => {
    child.kill('SIGKILL');
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  return new Promise((resolve) => {
    child.once('exit', (exitCode) => {
      remove();
      const lines = out.split('\n');
      const got = new Map<string, string>();
      for (const l of lines) {
        const m = /^got (\S+) (.*)$/.exec(l);
        if (m) got.set(m[1], m[2]);
      }
      resolve({
        exitCode,
        sent: lines.filter((l) => l.startsWith('sent ')).map((l) => l.slice(5)),
        got,
        done: lines.includes('done'),
        error: lines.find((l) => l.startsWith('error ')) ?? null,
      });
    });
  });
}

/** Receives (acking everything) until every message of `ids` came; answers what came. */
async function receiveAndAck(c: SimpleConsumer, ids: ReadonlySet<string>): Promise<MessageView[]> {
  const got: MessageView[] = [];
  await waitFor(async () => {
    for (const m of await c.receive(16, 20_000)) {
      got.push(m);
      await c.ack(m);
    }
    return [...ids].every((id) => got.some((m) => m.messageId === id));
  }, 60_000, `${ids.size} messages`);
  return got;
}

describe('gRPC endpoint: TLS (tls.server.mode) with rocketmq-client-nodejs and a bare gRPC client', function () {
  this.timeout(120_000);
  let root: string;
  let certs: TestCerts | null = null;
  const running: RunningBroker[] = [];
  const stubs: Stub[] = [];

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'rmq-grpc-tls-'));
    if (hasOpenssl()) certs = makeCerts(root);
  });
  afterEach(async () => {
    for (const s of stubs.splice(0)) s.close();
    for (const b of running.splice(0)) await b.stop();
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  function needCerts(ctx: Mocha.Context): TestCerts {
    if (!certs) {
      console.log('      (skipped: openssl is not installed, no certificates for this test)');
      ctx.skip();
    }
    return certs!;
  }

  async function broker(props: Array<[string, string]>): Promise<RunningBroker> {
    const b = await startBroker(root, props);
    running.push(b);
    return b;
  }

  function stub(endpoints: string, creds: grpc.ChannelCredentials): Stub {
    const s = new (messagingService())(endpoints, creds);
    stubs.push(s);
    return s;
  }

  const withCerts = (c: TestCerts): Array<[string, string]> => [
    ['tls.test.mode.enable', 'false'], ['tls.server.certPath', c.serverCert], ['tls.server.keyPath', c.serverKey],
  ];

  it('enforcing: rocketmq-client-nodejs with sslEnabled sends, receives and acks; plain HTTP/2 is refused', async function () {
    const c = needCerts(this);
    const b = await broker([['tls.server.mode', 'enforcing'], ...withCerts(c)]);
    const topic = randomName('GTlsE');
    await createTopic(b, topic);

    const r = await runTlsClientChild(b.endpoints, topic, 3, c.ca);
    expect(r.error).to.equal(null);
    expect(r.exitCode).to.equal(0);
    expect(r.sent).to.have.length(3);
    expect([...r.got.keys()].sort()).to.deep.equal([...r.sent].sort());
    expect([...r.got.values()].sort()).to.deep.equal(['tls-0', 'tls-1', 'tls-2']);
    expect(r.done).to.equal(true);

    const tlsReply = await unary(stub(b.endpoints, grpc.credentials.createSsl(fs.readFileSync(c.ca))), 'queryRoute', { topic: { name: topic } });
    expect(tlsReply.status?.code).to.equal('OK');
    expect(tlsReply.messageQueues).to.have.length(2);
    const plain = stub(b.endpoints, grpc.credentials.createInsecure());
    expect(await transportError(unary(plain, 'queryRoute', { topic: { name: topic } }))).to.equal(grpc.status.UNAVAILABLE);
  });

  it('permissive: TLS and plain HTTP/2 on the same port, both end to end', async function () {
    const c = needCerts(this);
    const b = await broker([['tls.server.mode', 'permissive'], ...withCerts(c)]);
    const topic = randomName('GTlsP');
    await createTopic(b, topic);

    const r = await runTlsClientChild(b.endpoints, topic, 2, c.ca);
    expect(r.error).to.equal(null);
    expect(r.exitCode).to.equal(0);
    expect([...r.got.values()].sort()).to.deep.equal(['tls-0', 'tls-1']);

    // The plain client in this process, on the same port.
    const p = new Producer({ endpoints: b.endpoints, namespace: '', topics: [topic], logger });
    await p.startup();
    const consumer = new SimpleConsumer({ endpoints: b.endpoints, namespace: '', consumerGroup: randomName('GPlainCG'), subscriptions: new Map([[topic, '*']]), awaitDuration: 5000, logger });
    try {
      const ids = new Set<string>();
      for (let i = 0; i < 2; i++) ids.add((await p.send({ topic, tag: 'plain', body: Buffer.from(`plain-${i}`) })).messageId);
      await consumer.startup();
      const got = await receiveAndAck(consumer, ids);
      expect(got.filter((m) => ids.has(m.messageId)).map((m) => m.body.toString()).sort()).to.deep.equal(['plain-0', 'plain-1']);
    } finally {
      await consumer.shutdown().catch(() => undefined);
      await p.shutdown().catch(() => undefined);
    }

    expect((await unary(stub(b.endpoints, grpc.credentials.createSsl(fs.readFileSync(c.ca))), 'queryRoute', { topic: { name: topic } })).status?.code).to.equal('OK');
    expect((await unary(stub(b.endpoints, grpc.credentials.createInsecure()), 'queryRoute', { topic: { name: topic } })).status?.code).to.equal('OK');
  });

  it('disabled: plain HTTP/2 only; a TLS client cannot connect', async () => {
    const b = await broker([['tls.server.mode', 'disabled']]);
    const topic = randomName('GTlsD');
    await createTopic(b, topic);
    expect((await unary(stub(b.endpoints, grpc.credentials.createInsecure()), 'queryRoute', { topic: { name: topic } })).status?.code).to.equal('OK');
    const tls = stub(b.endpoints, grpc.credentials.createSsl(null, null, null, { rejectUnauthorized: false }));
    expect(await transportError(unary(tls, 'queryRoute', { topic: { name: topic } }))).to.equal(grpc.status.UNAVAILABLE);
  });

  it('test mode (the default): a self-signed certificate for localhost, refused by a client that verifies it', async () => {
    const b = await broker([['tls.server.mode', 'enforcing']]);
    const topic = randomName('GTlsT');
    await createTopic(b, topic);
    const trusting = stub(b.endpoints, grpc.credentials.createSsl(null, null, null, { rejectUnauthorized: false }));
    expect((await unary(trusting, 'queryRoute', { topic: { name: topic } })).status?.code).to.equal('OK');
    // The certificate it serves, seen by a bare TLS connection offering h2.
    const port = Number(b.endpoints.split(':')[1]);
    const peer = await new Promise<{ cn: string; alpn: string | false; selfSigned: boolean }>((resolve, reject) => {
      const s = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ALPNProtocols: ['h2'] }, () => {
        const cert = s.getPeerCertificate();
        resolve({ cn: String(cert.subject.CN), alpn: s.alpnProtocol ?? false, selfSigned: cert.issuer.CN === cert.subject.CN });
        s.destroy();
      });
      s.once('error', reject);
    });
    expect(peer).to.deep.equal({ cn: 'localhost', alpn: 'h2', selfSigned: true });
    const verifying = stub(b.endpoints, grpc.credentials.createSsl());
    expect(await transportError(unary(verifying, 'queryRoute', { topic: { name: topic } }))).to.equal(grpc.status.UNAVAILABLE);
  });
});

/** A raw TCP connection to the port: connected, and closed (by the broker, or at the end of the tests). */
function rawConnection(port: number): { socket: net.Socket; connected: Promise<void>; closed: Promise<void> } {
  const socket = net.connect({ host: '127.0.0.1', port });
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.on('error', () => undefined);
  socket.on('data', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const remove = registerLeftover(async () => {
    socket.destroy();
  });
  void closed.then(remove);
  return { socket, connected, closed };
}

/** Writes `bytes` on a raw connection (and half-closes when `end`); resolves once the broker closed it. */
function sendRaw(port: number, bytes: Buffer, end = false): Promise<void> {
  const { socket, closed } = rawConnection(port);
  socket.once('connect', () => (end ? socket.end(bytes) : socket.write(bytes)));
  return closed;
}

/** The first bytes of a TLS ClientHello record (type 0x16, version 3.1, a length), the rest never sent. */
const PARTIAL_CLIENT_HELLO = Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00]);

describe('gRPC endpoint: bad input on the TLS port, and shutdown with connections open', function () {
  this.timeout(60_000);
  let root: string;
  const running: RunningBroker[] = [];
  const stubs: Stub[] = [];

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'rmq-grpc-tls-bad-'));
  });
  afterEach(async () => {
    for (const s of stubs.splice(0)) s.close();
    for (const b of running.splice(0)) await b.stop();
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  function stub(endpoints: string, creds: grpc.ChannelCredentials): Stub {
    const s = new (messagingService())(endpoints, creds);
    stubs.push(s);
    return s;
  }
  const trustAll = () => grpc.credentials.createSsl(null, null, null, { rejectUnauthorized: false });

  for (const mode of ['permissive', 'enforcing'] as const) {
    it(`${mode}: garbage bytes, a broken TLS handshake, HTTP/1.1, an empty connection: each closed, the broker keeps serving`, async () => {
      // Test mode's self-signed certificate: no openssl needed.
      const b = await startBroker(root, [['tls.server.mode', mode]]);
      running.push(b);
      const port = Number(b.endpoints.split(':')[1]);
      const topic = randomName('GTlsBad');
      await createTopic(b, topic);

      await Promise.all([
        // Fixed bytes, not random ones: random bytes after 0x16 sometimes form a record header that claims more than
        // was sent, which only the handshake deadline closes (its own test is in grpc-tls-listener.test.ts).
        sendRaw(port, Buffer.alloc(512, 0x5a).fill(0x00, 0, 1)), // not a handshake: plain in permissive (a bad preface), refused in enforcing
        sendRaw(port, Buffer.from('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')),
        sendRaw(port, Buffer.concat([Buffer.from([0x16, 0x03, 0x01, 0x00, 0x40]), Buffer.alloc(64, 0xab)])), // a handshake record of garbage
        sendRaw(port, Buffer.concat([Buffer.from([0x16]), Buffer.alloc(300, 0xff)])), // a record header with version 0xffff
        sendRaw(port, PARTIAL_CLIENT_HELLO, true), // half a ClientHello, then the client half-closes
        sendRaw(port, Buffer.alloc(0), true), // connects and half-closes without a byte
      ]);
      // A TLS client that leaves in the middle of its handshake.
      await new Promise<void>((resolve) => {
        const s = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ALPNProtocols: ['h2'] });
        s.on('error', () => undefined);
        s.once('close', () => resolve());
        s.once('data', () => undefined);
        process.nextTick(() => s.destroy());
      });

      expect((await unary(stub(b.endpoints, trustAll()), 'queryRoute', { topic: { name: topic } })).status?.code).to.equal('OK');
      if (mode === 'permissive') {
        expect((await unary(stub(b.endpoints, grpc.credentials.createInsecure()), 'queryRoute', { topic: { name: topic } })).status?.code).to.equal('OK');
      }
    });
  }

  it('ACL over TLS sees the client\'s address: from a white-listed 127.0.0.1 an unsigned call passes (else refused, see ACL below)', async () => {
    const home = fs.mkdtempSync(path.join(root, 'home-'));
    fs.mkdirSync(path.join(home, 'conf'));
    fs.writeFileSync(path.join(home, 'conf', 'plain_acl.yml'),
      'globalWhiteRemoteAddresses:\n  - 127.0.0.1\naccounts:\n  - accessKey: grpcUser1\n    secretKey: grpc-secret-1\n');
    const b = await startBroker(root, [['tls.server.mode', 'enforcing'], ['aclEnable', 'true'], ['rocketmq.home.dir', home]]);
    running.push(b);
    const topic = randomName('GTlsWhite');
    await createTopic(b, topic);
    const s = stub(b.endpoints, trustAll());
    expect((await unary(s, 'queryRoute', { topic: { name: topic } }, metadata(null))).status?.code).to.equal('OK');
  });

  it('a gRPC port in use: the broker refuses to start with EADDRINUSE and leaves nothing open', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', () => resolve()));
    const remove = registerLeftover(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    try {
      const port = (taken.address() as net.AddressInfo).port;
      const err = await startBroker(root, [['tls.server.mode', 'permissive'], ['grpcServerPort', String(port)]]).then(() => null, (e: NodeJS.ErrnoException) => e);
      expect(err?.code).to.equal('EADDRINUSE');
    } finally {
      remove();
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });

  it('shutdown closes the port and every connection: open Telemetry streams (TLS and plain), a handshake in progress, a silent socket', async () => {
    const b = await startBroker(root, [['tls.server.mode', 'permissive']]);
    const port = Number(b.endpoints.split(':')[1]);
    // Two clients with a Telemetry stream open (established: the server answered their Settings).
    const streams = [trustAll(), grpc.credentials.createInsecure()].map((creds) => {
      const t = stub(b.endpoints, creds).telemetry(metadata());
      const ended = new Promise<void>((resolve) => {
        t.on('error', () => resolve());
        t.on('end', () => resolve());
      });
      const answered = new Promise<void>((resolve) => t.once('data', () => resolve()));
      t.on('data', () => undefined);
      t.write({ settings: { clientType: 'PRODUCER', requestTimeout: { seconds: 3, nanos: 0 }, publishing: { topics: [], maxBodySize: 4194304 } } });
      return { ended, answered };
    });
    await Promise.all(streams.map((t) => t.answered));
    const handshaking = rawConnection(port);
    const silent = rawConnection(port);
    await Promise.all([handshaking.connected, silent.connected]);
    await new Promise<void>((resolve) => handshaking.socket.write(PARTIAL_CLIENT_HELLO, () => resolve()));

    await b.stop();
    await Promise.all([...streams.map((t) => t.ended), handshaking.closed, silent.closed]);
    // The port no longer accepts.
    const refused = await new Promise<string>((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port });
      s.once('connect', () => {
        s.destroy();
        resolve('connected');
      });
      s.once('error', (err: NodeJS.ErrnoException) => resolve(String(err.code)));
    });
    expect(refused).to.equal('ECONNREFUSED');
  });
});

const ACL_YML = `accounts:
  - accessKey: grpcUser1
    secretKey: grpc-secret-1
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - GrpcAclTopic=PUB|SUB
      - GrpcReadOnly=SUB
      - GrpcDeny=DENY
    groupPerms:
      - GrpcDenyGroup=DENY
  - accessKey: grpcAdmin1
    secretKey: grpc-admin-secret
    admin: true
`;
const USER: Credentials = { accessKey: 'grpcUser1', secretKey: 'grpc-secret-1' };
const ADMIN: Credentials = { accessKey: 'grpcAdmin1', secretKey: 'grpc-admin-secret' };
const TOPICS = ['GrpcAclTopic', 'GrpcReadOnly', 'GrpcDeny'];

describe('gRPC endpoint: ACL (aclEnable=true, plain_acl.yml) for rocketmq-client-nodejs and bare gRPC clients', function () {
  this.timeout(120_000);
  let home: string;
  let cluster: Cluster;
  let removeCluster: () => void;
  let endpoints: string;
  let stub: Stub;
  const clients: Array<{ shutdown(): Promise<void> }> = [];

  before(async () => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'rmq-grpc-acl-'));
    fs.mkdirSync(path.join(home, 'conf'));
    fs.writeFileSync(path.join(home, 'conf', 'plain_acl.yml'), ACL_YML);
    cluster = await startCluster({ grpc: true, brokerConfig: { aclEnable: true, rocketmqHome: home } });
    removeCluster = registerLeftover(() => cluster.stop());
    const admin = new RemotingClient();
    admin.registerRPCHook(new AclClientRPCHook(ADMIN));
    try {
      for (const topic of TOPICS) {
        const h = CreateTopicRequestHeader.encode({
          topic, defaultTopic: 'TBW102', readQueueNums: 2, writeQueueNums: 2, perm: 6, topicFilterType: 'SINGLE_TAG', topicSysFlag: 0, order: false,
        });
        const res = await admin.invoke(cluster.brokers[0].brokerAddr, RemotingCommand.createRequest(RequestCode.UPDATE_AND_CREATE_TOPIC, h), 5000);
        expect(res.code, res.remark ?? '').to.equal(ResponseCode.SUCCESS);
      }
    } finally {
      await admin.shutdown();
    }
    endpoints = `127.0.0.1:${cluster.brokers[0].grpcEndpoint?.port}`;
    stub = new (messagingService())(endpoints, grpc.credentials.createInsecure());
  });
  afterEach(async () => {
    for (const c of clients.splice(0).reverse()) await c.shutdown().catch(() => undefined);
  });
  after(async () => {
    stub?.close();
    removeCluster?.();
    await cluster?.stop();
    fs.rmSync(home, { recursive: true, force: true });
  });

  const status = async (method: string, req: object, md: grpc.Metadata) => (await unary(stub, method, req, md)).status;
  const stored = (topic: string) => [0, 1].reduce((n, q) => n + cluster.brokers[0].messageStore.getMaxOffsetInQueue(topic, q), 0);

  it('a signed Producer and SimpleConsumer (sessionCredentials) send, receive and ack', async () => {
    const p = new Producer({ endpoints, namespace: '', topics: ['GrpcAclTopic'], sessionCredentials: { accessKey: USER.accessKey, accessSecret: USER.secretKey }, logger });
    await p.startup();
    clients.push(p);
    const sent = new Set<string>();
    for (let i = 0; i < 3; i++) sent.add((await p.send({ topic: 'GrpcAclTopic', tag: 'acl', body: Buffer.from(`acl-${i}`) })).messageId);
    const c = new SimpleConsumer({
      endpoints, namespace: '', consumerGroup: randomName('GAclCG'), subscriptions: new Map([['GrpcAclTopic', '*']]), awaitDuration: 5000,
      sessionCredentials: { accessKey: USER.accessKey, accessSecret: USER.secretKey }, logger,
    });
    await c.startup();
    clients.push(c);
    const got = await receiveAndAck(c, sent);
    expect(got.filter((m) => sent.has(m.messageId)).map((m) => m.body.toString()).sort()).to.deep.equal(['acl-0', 'acl-1', 'acl-2']);
  });

  it('a wrong secret, an unknown access key, no credentials or a malformed header: UNAUTHORIZED in band', async () => {
    const topic = { name: 'GrpcAclTopic' };
    expect((await status('queryRoute', { topic }, metadata(USER)))?.code).to.equal('OK');
    expect(await status('queryRoute', { topic }, metadata({ ...USER, secretKey: 'not-the-secret' })))
      .to.deep.equal({ code: 'UNAUTHORIZED', message: 'Check signature failed for accessKey=grpcUser1' });
    expect(await status('queryRoute', { topic }, metadata({ accessKey: 'nobody123', secretKey: 'whatever-secret' })))
      .to.deep.equal({ code: 'UNAUTHORIZED', message: 'No acl config for nobody123' });
    expect(await status('queryRoute', { topic }, metadata(null))).to.deep.equal({ code: 'UNAUTHORIZED', message: 'No accessKey is configured' });
    expect(await status('sendMessage', { messages: [] }, metadata(null))).to.include({ code: 'UNAUTHORIZED' });
    const noDate = metadata(USER);
    noDate.remove('x-mq-date-time');
    expect(await status('queryRoute', { topic }, noDate)).to.deep.equal({ code: 'UNAUTHORIZED', message: 'datetime is null.' });
    expect(await status('queryRoute', { topic }, metadata(null, { authorization: 'garbage' })))
      .to.deep.equal({ code: 'UNAUTHORIZED', message: 'authorization header is incorrect' });
    expect(await status('queryRoute', { topic }, metadata(null, { authorization: 'MQv2-HMAC-SHA1 Credential=grpcUser1, Signature=ABC' })))
      .to.deep.equal({ code: 'UNAUTHORIZED', message: 'Odd number of characters.' });

    // The official client: its startup fetches the route, refused three times, and gives up with the status (its
    // UnauthorizedException, under two wrapping errors).
    const wrong = new Producer({ endpoints, namespace: '', topics: ['GrpcAclTopic'], sessionCredentials: { accessKey: USER.accessKey, accessSecret: 'not-the-secret' }, logger });
    clients.push(wrong);
    const err = await wrong.startup().then(() => null, (e: Error) => e);
    expect(err, 'the startup must fail').to.not.equal(null);
    let cause: { code?: number; message?: string; cause?: unknown } | undefined = err!;
    while (cause && cause.code === undefined) cause = cause.cause as typeof cause;
    expect(cause?.code).to.equal(40100);
    expect(cause?.message).to.contain('Check signature failed for accessKey=grpcUser1');
  });

  it('streams: ReceiveMessage answers its status; Telemetry answers a refused Settings with a status command and ends', async () => {
    const bad = metadata({ ...USER, secretKey: 'not-the-secret' });
    const call = stub.receiveMessage({
      group: { name: randomName('GAclRecv') }, messageQueue: { topic: { name: 'GrpcAclTopic' }, id: -1, permission: 'READ_WRITE' },
      filterExpression: { type: 'TAG', expression: '*' }, batchSize: 1, invisibleDuration: { seconds: 30, nanos: 0 }, autoRenew: false,
      longPollingTimeout: { seconds: 5, nanos: 0 },
    }, bad, { deadline: Date.now() + 20_000 });
    const answers: Reply[] = [];
    await new Promise<void>((resolve, reject) => {
      call.on('data', (r: Reply) => answers.push(r));
      call.on('end', resolve);
      call.on('error', reject);
    });
    expect(answers.map((a) => a.status)).to.deep.equal([{ code: 'UNAUTHORIZED', message: 'Check signature failed for accessKey=grpcUser1' }]);

    // A producer's Settings on a topic it may only read: PUB refused.
    const t = stub.telemetry(metadata(USER));
    const commands: Reply[] = [];
    const ended = new Promise<void>((resolve, reject) => {
      t.on('data', (r: Reply) => commands.push(r));
      t.on('end', resolve);
      t.on('error', reject);
    });
    t.write({
      settings: {
        clientType: 'PRODUCER', requestTimeout: { seconds: 3, nanos: 0 },
        publishing: { topics: [{ name: 'GrpcReadOnly' }], maxBodySize: 4194304, validateMessageType: true },
      },
    });
    await ended;
    t.end();
    expect(commands.map((cmd) => cmd.status)).to.deep.equal([{ code: 'UNAUTHORIZED', message: 'No default permission for topic:GrpcReadOnly' }]);
  });

  it('PUB on a DENY topic and on a SUB-only topic, SUB on a DENY group: UNAUTHORIZED, nothing stored', async () => {
    const now = { seconds: Math.floor(Date.now() / 1000), nanos: 0 };
    const message = (topic: string) => ({
      topic: { name: topic }, body: Buffer.from('x'), userProperties: {},
      systemProperties: { messageId: '01AABBCCDDEEFF00112233445566778899', tag: 'T', keys: [], bodyEncoding: 'IDENTITY', messageType: 'NORMAL', bornTimestamp: now, bornHost: '10.0.0.1' },
    });
    expect(await status('sendMessage', { messages: [message('GrpcDeny')] }, metadata(USER)))
      .to.deep.equal({ code: 'UNAUTHORIZED', message: 'No default permission for topic:GrpcDeny' });
    expect(await status('sendMessage', { messages: [message('GrpcReadOnly')] }, metadata(USER)))
      .to.deep.equal({ code: 'UNAUTHORIZED', message: 'No default permission for topic:GrpcReadOnly' });
    // A topic the account may read is routed (QueryRoute needs PUB or SUB); a DENY one is not.
    expect((await status('queryRoute', { topic: { name: 'GrpcReadOnly' } }, metadata(USER)))?.code).to.equal('OK');
    expect((await status('queryRoute', { topic: { name: 'GrpcDeny' } }, metadata(USER)))?.code).to.equal('UNAUTHORIZED');
    expect(await status('queryAssignment', { topic: { name: 'GrpcAclTopic' }, group: { name: 'GrpcDenyGroup' } }, metadata(USER)))
      .to.deep.equal({ code: 'UNAUTHORIZED', message: 'No default permission for group:GrpcDenyGroup' });

    // The official Producer, started on a topic it may publish to: its send to the read-only topic is refused (its
    // attempts used up), with the status's code.
    const p = new Producer({ endpoints, namespace: '', topics: ['GrpcAclTopic'], sessionCredentials: { accessKey: USER.accessKey, accessSecret: USER.secretKey }, logger });
    await p.startup();
    clients.push(p);
    const err = await p.send({ topic: 'GrpcReadOnly', tag: 'x', body: Buffer.from('x') }).then(() => null, (e: Error & { code?: number }) => e);
    expect(err, 'the send must fail').to.not.equal(null);
    expect(err!.code).to.equal(40100);
    expect(stored('GrpcReadOnly')).to.equal(0);
    expect(stored('GrpcDeny')).to.equal(0);
  });

  it('the remoting side is unchanged: the same account sends; a DENY topic and a wrong secret get the Java answers', async () => {
    const p = new DefaultMQProducer({
      producerGroup: randomName('PG'), namesrvAddr: cluster.namesrvAddr, instanceName: randomName('i'), rpcHook: new AclClientRPCHook(USER), retryTimesWhenSendFailed: 0,
    });
    await p.start();
    clients.push(p);
    expect((await p.send(createMessage('GrpcAclTopic', Buffer.from('over remoting')))).sendStatus).to.equal('SEND_OK');
    const err = await p.send(createMessage('GrpcDeny', Buffer.from('x'))).then(() => null, (e: Error) => e);
    expect(String((err as { remark?: string } | null)?.remark ?? err?.message)).to.contain(
      'org.apache.rocketmq.acl.common.AclException: No default permission for topic:GrpcDeny, org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:611)',
    );
    const wrong = new RemotingClient();
    wrong.registerRPCHook(new AclClientRPCHook({ ...USER, secretKey: 'not-the-secret' }));
    try {
      const res = await wrong.invoke(cluster.brokers[0].brokerAddr, RemotingCommand.createRequest(RequestCode.GET_BROKER_RUNTIME_INFO, null), 5000);
      expect(res.code).to.equal(ResponseCode.SYSTEM_ERROR);
      expect(res.remark).to.equal('org.apache.rocketmq.acl.common.AclException: Check signature failed for accessKey=grpcUser1, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:684)');
    } finally {
      await wrong.shutdown();
    }
  });
});
