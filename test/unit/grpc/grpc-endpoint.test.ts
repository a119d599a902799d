/**
 * lib/grpc's pure parts (receipt handles, the message-group queue hash, message conversion, client settings) against
 * Java's values, and the loading rule: neither the SDK nor a broker without grpcServerPort loads @grpc/grpc-js.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { BrokerController } from '../../../lib/broker/broker-controller';
import type { GrpcBrokerPort } from '../../../lib/grpc/grpc-broker-port';
import { consistentHash } from '../../../lib/grpc/send-message-activity';
import { buildMessage, buildMessageProperties, messageTypeOf } from '../../../lib/grpc/grpc-converter';
import { DEFAULT_GRPC_PROXY_CONFIG } from '../../../lib/grpc/grpc-proxy-config';
import { GrpcClientSettingsManager, consumerBackoffPolicy } from '../../../lib/grpc/grpc-client-settings-manager';
import { combinedStatus } from '../../../lib/grpc/consumer-ack-activities';
import { GrpcProxyError } from '../../../lib/errors';
import { javaStringHashCode } from '../../../protocol/message/java-hash';
import { newSubscriptionGroupConfig } from '../../../protocol/body/subscription-group-wrapper';
import {
  createReceiptHandle, decodeReceiptHandle, encodeReceiptHandle, isReceiptHandleExpired, receiptHandleRealTopic,
} from '../../../protocol/grpc/receipt-handle';
import { isClientErrorCode } from '../../../protocol/grpc/code';
import { ProtocolError } from '../../../protocol/errors';
import type { PbMessage } from '../../../lib/grpc/pb';
import { GrpcChannelManager } from '../../../lib/grpc/grpc-channel-manager';
import { isVirtualChannel } from '../../../lib/broker/client-manager/virtual-channel';
import { parseStartArgs } from '../../../lib/cli/start';
import { ConfigError } from '../../../lib/errors';

/** Compile-time: the controller is the port lib/broker/grpc-endpoint.ts hands over untyped. */
const brokerIsPort: BrokerController extends GrpcBrokerPort ? true : never = true;

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

describe('grpc: receipt handles (ReceiptHandle.decode / encode, ConsumerProcessor.createHandle)', () => {
  it('reads the nine fields of a handle: POP_CK then the commit-log offset', () => {
    const h = decodeReceiptHandle(createReceiptHandle('12 1700000000000 20000 3 1 broker-a 2 14', 8806));
    expect(h).to.include({
      startOffset: 12, retrieveTime: 1700000000000, invisibleTime: 20000, nextVisibleTime: 1700000020000, reviveQueueId: 3,
      topicType: '1', brokerName: 'broker-a', queueId: 2, offset: 14, commitLogOffset: 8806,
    });
    expect(h.receiptHandle).to.equal('12 1700000000000 20000 3 1 broker-a 2 14 8806');
    expect(receiptHandleRealTopic(h, 'T', 'G')).to.equal('%RETRY%G_T');
    expect(receiptHandleRealTopic({ topicType: '2' }, 'T', 'G')).to.equal('%RETRY%G+T');
    expect(receiptHandleRealTopic({ topicType: '0' }, 'T', 'G')).to.equal('T');
  });

  it('an eight-field handle has no commit-log offset (-1); fewer fields or a non-number is a ProtocolError', () => {
    expect(decodeReceiptHandle('0 1 2 3 0 b 0 5').commitLogOffset).to.equal(-1);
    expect(() => decodeReceiptHandle('0 1 2 3 0 b 0')).to.throw(ProtocolError, 'dataList size 7');
    expect(() => decodeReceiptHandle('0 x 2 3 0 b 0 5')).to.throw(ProtocolError, 'retrieveTime');
  });

  it('encodes in Java\'s field order and expires at retrieveTime + invisibleTime', () => {
    const s = encodeReceiptHandle({ startOffset: 1, retrieveTime: 1000, invisibleTime: 500, reviveQueueId: 7, topicType: '0', brokerName: 'b', queueId: 3, offset: 4 });
    expect(s).to.equal('1 1000 500 7 0 b 3 4 0');
    expect(isReceiptHandleExpired(decodeReceiptHandle(s), 1499)).to.equal(false);
    expect(isReceiptHandleExpired(decodeReceiptHandle(s), 1500)).to.equal(true);
  });
});

describe('grpc: the queue of a message group (Guava Hashing.consistentHash of String.hashCode)', () => {
  // Printed by Java 17 with Guava (javaref 5.3.3's guava.jar) for buckets 1, 2, 4, 8, 16, 100.
  const BUCKETS = [1, 2, 4, 8, 16, 100];
  const byKey: Array<[string, number, number[]]> = [
    ['order-1', -1207111310, [0, 0, 3, 3, 3, 3]],
    ['group-A', 293427315, [0, 0, 2, 2, 12, 60]],
    ['a', 97, [0, 0, 0, 0, 0, 29]],
    ['消息组', 27744189, [0, 0, 2, 7, 7, 95]],
    ['x-very-long-message-group-name-0123456789', -2025187836, [0, 0, 3, 3, 3, 3]],
  ];
  for (const [key, hash, expected] of byKey) {
    it(`"${key}"`, () => {
      expect(javaStringHashCode(key)).to.equal(hash);
      expect(BUCKETS.map((b) => consistentHash(hash, b))).to.deep.equal(expected);
    });
  }
  it('long inputs, the extremes included', () => {
    const byLong: Array<[bigint, number[]]> = [
      [0n, [0, 0, 0, 0, 0, 0]], [1n, [0, 0, 0, 6, 6, 55]], [-1n, [0, 1, 2, 7, 10, 92]], [123456789n, [0, 0, 0, 7, 7, 34]],
      [9223372036854775807n, [0, 0, 2, 7, 8, 97]], [-9223372036854775808n, [0, 1, 3, 5, 12, 84]],
    ];
    for (const [input, expected] of byLong) expect(BUCKETS.map((b) => consistentHash(input, b)), String(input)).to.deep.equal(expected);
  });
});

function pbMessage(sp: Partial<NonNullable<PbMessage['systemProperties']>>, userProperties: Record<string, string> = {}): PbMessage {
  return {
    topic: { name: 'T', resourceNamespace: '' },
    userProperties,
    body: Buffer.from('x'),
    systemProperties: { keys: [], messageId: '01AB', bodyEncoding: 'IDENTITY', messageType: 'NORMAL', bornTimestamp: null, bornHost: '', storeHost: '', queueId: 0, ...sp },
  };
}

describe('grpc: messages in (SendMessageActivity.buildMessageProperty) and out (GrpcConverter.buildMessage)', () => {
  const config = DEFAULT_GRPC_PROXY_CONFIG;

  it('system properties become remoting properties: UNIQ_KEY, TAGS, KEYS, TIMER_DELIVER_MS, __SHARDINGKEY, PGROUP = the topic', () => {
    const p = buildMessageProperties(pbMessage({
      tag: 'TagA', _tag: 'tag', keys: ['k1', 'k2'], messageId: '0102FC000000016CF60B231FEA00000000',
      deliveryTimestamp: { seconds: 1_700_000_100, nanos: 5_000_000 }, messageGroup: 'g1', traceContext: 'tc', bornHost: '10.0.0.1',
      bornTimestamp: { seconds: 1_700_000_000, nanos: 0 },
    }, { color: 'red' }), 'T', '127.0.0.1:1', config, 1_700_000_000_000);
    expect(p).to.deep.equal({
      color: 'red', TAGS: 'TagA', KEYS: 'k1 k2', UNIQ_KEY: '0102FC000000016CF60B231FEA00000000', TIMER_DELIVER_MS: '1700000100005',
      RECONSUME_TIME: '0', PGROUP: 'T', __SHARDINGKEY: 'g1', TRACE_CONTEXT: 'tc', __BORNHOST: '10.0.0.1', BORN_TIMESTAMP: '1700000000000',
    });
  });

  it('a transactional message is TRAN_MSG with its recovery time; the peer is the born host when the client sent none', () => {
    const p = buildMessageProperties(pbMessage({ messageType: 'TRANSACTION', orphanedTransactionRecoveryDuration: { seconds: 30, nanos: 0 } }), 'T', '1.2.3.4:5', config);
    expect(p).to.include({ TRAN_MSG: 'true', CHECK_IMMUNITY_TIME_IN_SECONDS: '30', __BORNHOST: '1.2.3.4:5' });
  });

  it('refuses what the proxy refuses, with its codes', () => {
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return err instanceof GrpcProxyError ? err.code : String(err);
      }
      return 'accepted';
    };
    expect(code(() => buildMessageProperties(pbMessage({}, { TAGS: 'x' }), 'T', '', config))).to.equal('ILLEGAL_MESSAGE_PROPERTY_KEY');
    expect(code(() => buildMessageProperties(pbMessage({ tag: 'a|b' }), 'T', '', config))).to.equal('ILLEGAL_MESSAGE_TAG');
    expect(code(() => buildMessageProperties(pbMessage({ messageId: ' ' }), 'T', '', config))).to.equal('ILLEGAL_MESSAGE_ID');
    expect(code(() => buildMessageProperties(pbMessage({ messageGroup: 'g'.repeat(64) }), 'T', '', config))).to.equal('ILLEGAL_MESSAGE_GROUP');
    expect(code(() => buildMessageProperties(pbMessage({ keys: ['a\u0001'] }), 'T', '', config))).to.equal('ILLEGAL_MESSAGE_KEY');
    expect(code(() => buildMessageProperties(pbMessage({ deliveryTimestamp: { seconds: 2 * 86400 + 10, nanos: 0 } }), 'T', '', config, 0)))
      .to.equal('ILLEGAL_DELIVERY_TIME');
    expect(isClientErrorCode('ILLEGAL_TOPIC')).to.equal(true);
    expect(isClientErrorCode('INTERNAL_SERVER_ERROR')).to.equal(false);
  });

  it('a stored message goes out with the system properties a 5.x client reads, the rest as user properties', () => {
    const body = Buffer.from('hello');
    const m = buildMessage({
      topic: 'T', flag: 0, body, queueId: 2, storeSize: 0, queueOffset: 7, sysFlag: 0, bornTimestamp: 1_700_000_000_123,
      bornHost: { address: '10.0.0.9', port: 5 }, storeTimestamp: 1_700_000_000_200, storeHost: { address: '10.0.0.1', port: 10911 },
      msgId: 'X', offsetMsgId: 'Y', commitLogOffset: 100, bodyCRC: 0, reconsumeTimes: 2, preparedTransactionOffset: 0,
      properties: { TAGS: 'A', KEYS: 'k1 k2', UNIQ_KEY: 'U1', POP_CK: 'h', __SHARDINGKEY: 'g', color: 'red', WAIT: 'true' },
    }, false);
    expect(m.userProperties).to.deep.equal({ __SHARDINGKEY: 'g', color: 'red' });
    expect(m.systemProperties).to.deep.include({
      tag: 'A', keys: ['k1', 'k2'], messageId: 'U1', bodyEncoding: 'IDENTITY', messageType: 'FIFO', bornHost: '10.0.0.9',
      storeHost: '10.0.0.1:10911', receiptHandle: 'h', queueId: 2, queueOffset: 7, deliveryAttempt: 3, messageGroup: 'g',
    });
    expect(m.systemProperties?.bodyDigest).to.deep.equal({ type: 'MD5', checksum: '5D41402ABC4B2A76B9719D911017C592' });
    expect(m.systemProperties?.bornTimestamp).to.deep.equal({ seconds: 1_700_000_000, nanos: 123_000_000 });
    expect(messageTypeOf({ TRAN_MSG: 'true', DELAY: '3' })).to.equal('TRANSACTION');
    expect(messageTypeOf({ TIMER_DELIVER_MS: '1' })).to.equal('DELAY');
    expect(messageTypeOf({})).to.equal('NORMAL');
  });
});

describe('grpc: client settings (GrpcClientSettingsManager)', () => {
  const group = newSubscriptionGroupConfig('G');
  const port = { subscriptionGroupManager: { findSubscriptionGroupConfig: (g: string) => (g === 'G' ? group : null) } };

  it('a producer gets the proxy\'s backoff (3 attempts, 10 ms x2 up to 1 s) and max body size', () => {
    const m = new GrpcClientSettingsManager(port, DEFAULT_GRPC_PROXY_CONFIG);
    m.updateClientSettings('c1', { clientType: 'PRODUCER', publishing: { topics: [{ name: 'T' }], maxBodySize: 0, validateMessageType: false }, pubSub: 'publishing' });
    const s = m.getClientSettings('c1')!;
    expect(s.backoffPolicy).to.deep.equal({
      maxAttempts: 3, strategy: 'exponentialBackoff',
      exponentialBackoff: { initial: { seconds: 0, nanos: 10_000_000 }, max: { seconds: 1, nanos: 0 }, multiplier: 2 },
    });
    expect(s.publishing).to.include({ maxBodySize: 4 * 1024 * 1024, validateMessageType: true });
    expect(s.metric).to.deep.equal({ on: false, endpoints: null });
    expect(m.removeAndGetClientSettings('c1')).to.not.equal(null);
    expect(m.getClientSettings('c1')).to.equal(null);
  });

  it('a consumer gets its group\'s retry policy (retryMaxTimes + 1 attempts, Java\'s customized delays), batch 32, polling 20 s', () => {
    const m = new GrpcClientSettingsManager(port, DEFAULT_GRPC_PROXY_CONFIG);
    m.updateClientSettings('c2', { clientType: 'SIMPLE_CONSUMER', subscription: { group: { name: 'G' }, subscriptions: [] }, pubSub: 'subscription' });
    const s = m.getClientSettings('c2')!;
    expect(s.subscription).to.include({ receiveBatchSize: 32, fifo: false });
    expect(s.subscription?.longPollingTimeout).to.deep.equal({ seconds: 20, nanos: 0 });
    expect(s.backoffPolicy?.maxAttempts).to.equal(17);
    expect(s.backoffPolicy?.customizedBackoff?.next.slice(0, 3)).to.deep.equal([{ seconds: 1, nanos: 0 }, { seconds: 5, nanos: 0 }, { seconds: 10, nanos: 0 }]);
    expect(s.backoffPolicy?.customizedBackoff?.next).to.have.length(18);
    const exp = consumerBackoffPolicy(newSubscriptionGroupConfig('E', { retryMaxTimes: 3, extra: { groupRetryPolicy: { type: 'EXPONENTIAL' } } }));
    expect(exp).to.deep.equal({
      maxAttempts: 4, strategy: 'exponentialBackoff',
      exponentialBackoff: { initial: { seconds: 5, nanos: 0 }, max: { seconds: 7200, nanos: 0 }, multiplier: 2 },
    });
  });

  it('several results: their one code, or MULTIPLE_RESULTS', () => {
    expect(combinedStatus([{ code: 'OK', message: '' }, { code: 'OK', message: '' }], 'e')).to.deep.equal({ code: 'OK', message: 'OK' });
    expect(combinedStatus([{ code: 'OK', message: '' }, { code: 'INVALID_RECEIPT_HANDLE', message: '' }], 'e').code).to.equal('MULTIPLE_RESULTS');
    expect(combinedStatus([], 'empty')).to.deep.equal({ code: 'INTERNAL_SERVER_ERROR', message: 'empty' });
  });
});

describe('grpc: client channels (GrpcChannelManager)', () => {
  const ctx = { clientId: 'c1', language: 'HTTP', clientVersion: '5.0.0', namespace: '', remoteAddress: '1.2.3.4:5', localAddress: '127.0.0.1:8081', deadline: Infinity };

  it('one virtual channel per client; one the broker closed is replaced when the client comes back', () => {
    const m = new GrpcChannelManager();
    const a = m.createChannel(ctx);
    expect(isVirtualChannel(a)).to.equal(true);
    expect(a.id).to.be.below(0);
    expect(m.createChannel(ctx)).to.equal(a);
    a.close();
    expect(a.isActive).to.equal(false);
    const b = m.createChannel(ctx);
    expect(b).to.not.equal(a);
    expect(b.isActive).to.equal(true);
    expect(m.removeChannel('c1')).to.equal(b);
    expect(m.getChannel('c1')).to.equal(undefined);
  });

  it('writes telemetry commands only while a stream is attached', () => {
    const c = new GrpcChannelManager().createChannel(ctx);
    const written: unknown[] = [];
    expect(c.writeTelemetryCommand({ command: 'settings' })).to.equal(false);
    c.setClientObserver({ write: (x) => written.push(x) > 0 });
    expect(c.writeTelemetryCommand({ command: 'settings' })).to.equal(true);
    c.close();
    expect(c.writeTelemetryCommand({ command: 'settings' })).to.equal(false);
    expect(written).to.have.length(1);
  });
});

describe('grpc: rocketmq-ts start --grpc-port', () => {
  it('takes a port (0 included) and refuses anything else', () => {
    expect(parseStartArgs(['--grpc-port', '8081']).grpcPort).to.equal(8081);
    expect(parseStartArgs(['--grpc-port', '0']).grpcPort).to.equal(0);
    expect(parseStartArgs([]).grpcPort).to.equal(undefined);
    expect(() => parseStartArgs(['--grpc-port', 'x'])).to.throw(ConfigError, 'bad --grpc-port');
    expect(() => parseStartArgs(['--grpc-port'])).to.throw(ConfigError);
  });
});

describe('grpc: loaded only when grpcServerPort is set', function () {
  this.timeout(60_000);

  /** Which of @grpc/grpc-js and lib/grpc a fresh node process has loaded after `script`. */
  function loadedAfter(script: string): string[] {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'grpc-load-'));
    try {
      const out = execFileSync(process.execPath, ['-e', `
        const path = require('node:path');
        const dist = ${JSON.stringify(path.join(ROOT, 'dist'))};
        const dir = ${JSON.stringify(dir)};
        (async () => {
          ${script}
          const hit = Object.keys(require.cache).filter((k) => k.includes('@grpc' + path.sep + 'grpc-js') || k.includes(path.join('lib', 'grpc') + path.sep));
          process.stdout.write(JSON.stringify([...new Set(hit.map((k) => k.includes('@grpc') ? '@grpc/grpc-js' : 'lib/grpc'))].sort()));
        })().catch((e) => { process.stderr.write(String(e.stack)); process.exit(1); });
      `], { encoding: 'utf8', env: { ...process.env, ROCKETMQ_LOG_LEVEL: 'silent' } });
      return JSON.parse(out) as string[];
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  it('the SDK entry and a broker without the port load neither; a broker with it loads both', () => {
    expect(brokerIsPort).to.equal(true);
    expect(loadedAfter(`require(path.join(dist, 'lib/index.js'));`)).to.deep.equal([]);
    const broker = (conf: string) => `
      const { BrokerController } = require(path.join(dist, 'lib/server.js'));
      new BrokerController({ brokerConfig: { storePathRootDir: dir${conf} } });`;
    expect(loadedAfter(broker(''))).to.deep.equal([]);
    expect(loadedAfter(broker(', grpcServerPort: 0'))).to.deep.equal(['@grpc/grpc-js', 'lib/grpc']);
  });
});
