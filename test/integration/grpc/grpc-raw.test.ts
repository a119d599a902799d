/**
 * The endpoint seen by a bare gRPC client (grpc-js with protocol/grpc's .proto files): the in-band statuses of
 * refused requests, with the proxy's codes, and a SendMessage request of several messages (stored as one batch),
 * which rocketmq-client-nodejs never sends.
 */
import path from 'node:path';
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { startCluster, type Cluster } from '../../../lib/server';
import { PROTO_LOADER_OPTIONS, protoRoot } from '../../../lib/grpc/grpc-loader';
import type { GrpcMessagingApplication } from '../../../lib/grpc';
import { registerLeftover } from '../../helpers/root-hooks';
import { randomName } from '../../helpers/cluster';
import { waitFor } from '../../helpers/wait-for';
import { DefaultMQAdminExt, DefaultMQProducer, createMessage } from '../../../lib/index';
import { createTopicAndWait } from '../pop/pop-scenario';

type Unary = (req: object, md: grpc.Metadata, cb: (err: grpc.ServiceError | null, res: Record<string, unknown>) => void) => void;
type Stub = grpc.Client & Record<string, Unary> & {
  telemetry(md: grpc.Metadata): grpc.ClientDuplexStream<object, Record<string, unknown>>;
  receiveMessage(req: object, md: grpc.Metadata, options: grpc.CallOptions): grpc.ClientReadableStream<Record<string, unknown>>;
};

describe('gRPC endpoint: a bare gRPC client', function () {
  this.timeout(60_000);
  let cluster: Cluster;
  let remove: () => void;
  let stub: Stub;
  const md = (clientId = 'raw-client') => {
    const m = new grpc.Metadata();
    if (clientId) m.set('x-mq-client-id', clientId);
    m.set('x-mq-language', 'HTTP');
    return m;
  };
  const call = (method: string, req: object, meta = md()) => new Promise<Record<string, unknown>>((resolve, reject) => {
    stub[method](req, meta, (err, res) => (err ? reject(err) : resolve(res)));
  });

  before(async () => {
    cluster = await startCluster({ grpc: true });
    remove = registerLeftover(() => cluster.stop());
    const root = protoRoot();
    const def = protoLoader.loadSync(path.join(root, 'apache/rocketmq/v2/service.proto'), { ...PROTO_LOADER_OPTIONS, includeDirs: [root] });
    const pkg = grpc.loadPackageDefinition(def) as unknown as { apache: { rocketmq: { v2: { MessagingService: new (addr: string, c: grpc.ChannelCredentials) => Stub } } } };
    stub = new pkg.apache.rocketmq.v2.MessagingService(`127.0.0.1:${cluster.brokers[0].grpcEndpoint?.port}`, grpc.credentials.createInsecure());
  });
  after(async () => {
    stub?.close();
    remove?.();
    await cluster?.stop();
  });

  it('answers refused requests in band, with the proxy\'s codes', async () => {
    const status = async (method: string, req: object, meta = md()) => ((await call(method, req, meta)).status as { code: string }).code;
    expect(await status('queryRoute', { topic: { name: randomName('NOPE') } })).to.equal('TOPIC_NOT_FOUND');
    // the proxy's message (its MQClientException of code 17), which clients match on
    const nope = randomName('NOPE');
    expect(((await call('queryRoute', { topic: { name: nope } })).status as { message: string }).message).to.equal(
      `CODE: 17  DESC: No topic route info in name server for the topic: ${nope}\nFor more information, please visit the url, https://rocketmq.apache.org/docs/bestPractice/06FAQ`);
    expect(await status('queryRoute', { topic: { name: 'bad topic!' } })).to.equal('ILLEGAL_TOPIC');
    expect(await status('queryRoute', { topic: { name: 'SCHEDULE_TOPIC_XXXX' } })).to.equal('ILLEGAL_TOPIC');
    expect(await status('queryRoute', { topic: { name: 'T' } }, md(''))).to.equal('CLIENT_ID_REQUIRED');
    expect(await status('queryAssignment', { topic: { name: 'TBW102x' }, group: { name: 'CID_RMQ_SYS_x' } })).to.equal('ILLEGAL_CONSUMER_GROUP');
    expect(await status('heartbeat', { clientType: 'PRODUCER' })).to.equal('UNRECOGNIZED_CLIENT_TYPE');
    expect(await status('sendMessage', { messages: [] })).to.equal('MESSAGE_CORRUPTED');
    expect(await status('ackMessage', { topic: { name: 'T' }, group: { name: 'G' }, entries: [{ messageId: 'x', receiptHandle: 'not a handle' }] }))
      .to.equal('INVALID_RECEIPT_HANDLE');
    expect(await status('ackMessage', { topic: { name: 'T' }, group: { name: 'G' }, entries: [{ messageId: 'x', receiptHandle: '0 1 1 0 0 broker-a 0 0 0' }] }))
      .to.equal('INVALID_RECEIPT_HANDLE');
    // No half message sent through the endpoint has that transaction id (Java: TRANSACTION_DATA_NOT_FOUND).
    expect(await status('endTransaction', { topic: { name: 'T' }, messageId: 'x', transactionId: 'y' })).to.equal('INTERNAL_SERVER_ERROR');
    expect(await status('endTransaction', { topic: { name: 'T' }, messageId: 'x', transactionId: ' ' })).to.equal('INVALID_TRANSACTION_ID');
  });

  it('stores a request of several messages as one batch and answers their ids', async () => {
    const topic = randomName('GRAW');
    await createTopicAndWait(cluster.namesrvAddr, topic, 1);
    const now = { seconds: Math.floor(Date.now() / 1000), nanos: 0 };
    const msg = (id: string, b: string) => ({
      topic: { name: topic }, body: Buffer.from(b), userProperties: { n: b },
      systemProperties: { messageId: id, tag: 'T', keys: [], bodyEncoding: 'IDENTITY', messageType: 'NORMAL', bornTimestamp: now, bornHost: '10.0.0.1' },
    });
    const res = await call('sendMessage', { messages: [msg('01AA', 'one'), msg('01BB', 'two')] });
    expect((res.status as { code: string }).code).to.equal('OK');
    expect(res.entries).to.have.length(1);
    expect((res.entries as Array<{ messageId: string }>)[0].messageId).to.equal('01AA,01BB');
    expect(cluster.brokers[0].messageStore.getMaxOffsetInQueue(topic, 0)).to.equal(2);
    const mismatched = await call('sendMessage', { messages: [msg('01CC', 'x'), { ...msg('01DD', 'y'), topic: { name: `${topic}2` } }] });
    expect((mismatched.status as { code: string }).code).to.equal('MESSAGE_CORRUPTED');
  });

  it('a receive cancelled while polling pops nothing when a message wakes it: the next receive gets it at its first attempt', async () => {
    const topic = randomName('GRAWC');
    const group = randomName('GRC');
    await createTopicAndWait(cluster.namesrvAddr, topic, 1);
    const clientId = randomName('raw');
    // The client's settings first (Telemetry), as every 5.x consumer does.
    const telemetry = stub.telemetry(md(clientId));
    const settingsAnswered = new Promise((resolve) => telemetry.once('data', resolve));
    telemetry.on('error', () => undefined);
    telemetry.write({
      settings: {
        clientType: 'SIMPLE_CONSUMER', requestTimeout: { seconds: 3 },
        subscription: { group: { name: group }, subscriptions: [{ topic: { name: topic }, expression: { type: 'TAG', expression: '*' } }] },
      },
    });
    await settingsAnswered;
    const receive = stub.receiveMessage({
      group: { name: group }, messageQueue: { topic: { name: topic }, id: -1, broker: { name: 'broker-a' } },
      filterExpression: { type: 'TAG', expression: '*' }, batchSize: 1, invisibleDuration: { seconds: 120 }, longPollingTimeout: { seconds: 20 },
    }, md(clientId), { deadline: Date.now() + 30_000 });
    receive.on('error', () => undefined);
    receive.on('data', () => undefined);
    const cks = cluster.brokers[0].pop.checkPoints;
    await waitFor(() => cluster.brokers[0].pop.polling.size === 1, 10_000, 'the receive held');
    receive.cancel();
    // The message must reach the held receive after the endpoint knows its client is gone, not before: then the
    // message would be written to a stream the client no longer reads (and come back only after 120 s, as in Java).
    const endpoint = cluster.brokers[0].grpcEndpoint as unknown as GrpcMessagingApplication;
    await waitFor(() => endpoint.openReceiveCalls === 0, 10_000, 'the endpoint told of the cancel');
    expect(cluster.brokers[0].pop.polling.size).to.equal(1);
    const p = new DefaultMQProducer({ producerGroup: randomName('RPG'), namesrvAddr: cluster.namesrvAddr, instanceName: randomName('rp') });
    await p.start();
    try {
      await p.send(createMessage(topic, 'for a client gone'));
    } finally {
      await p.shutdown();
    }
    // The held pop is woken and answered, but pops nothing for a call that is gone (it would hide the message for
    // 120 s, or, nacked, count an attempt for nobody).
    await waitFor(() => cluster.brokers[0].pop.polling.size === 0, 10_000, 'the held receive woken');
    expect(cks.inflight(topic, group, 0)).to.equal(0);
    expect(cluster.brokers[0].messageStore.getMaxOffsetInQueue(`%RETRY%${group}_${topic}`, 0)).to.equal(0);
    const again = stub.receiveMessage({
      group: { name: group }, messageQueue: { topic: { name: topic }, id: -1, broker: { name: 'broker-a' } },
      filterExpression: { type: 'TAG', expression: '*' }, batchSize: 1, invisibleDuration: { seconds: 30 }, longPollingTimeout: { seconds: 5 },
    }, md(clientId), { deadline: Date.now() + 15_000 });
    const got: Array<Record<string, unknown>> = [];
    await new Promise<void>((resolve, reject) => {
      again.on('data', (d: Record<string, unknown>) => { if (d.message) got.push(d.message as Record<string, unknown>); });
      again.on('end', resolve);
      again.on('error', reject);
    });
    expect(got.map((m) => Buffer.from(m.body as Uint8Array).toString())).to.deep.equal(['for a client gone']);
    expect((got[0].systemProperties as { deliveryAttempt: number }).deliveryAttempt).to.equal(1);
    telemetry.end();
  });

  it('the broker asks a gRPC consumer for its thread stack and to verify a message through Telemetry (mqadmin consumerStatus -s, consumeMessageDirectly)', async () => {
    const topic = randomName('GRAWV');
    const group = randomName('GRV');
    await createTopicAndWait(cluster.namesrvAddr, topic, 1);
    const clientId = randomName('rawv');
    const telemetry = stub.telemetry(md(clientId));
    telemetry.on('error', () => undefined);
    const commands: Array<Record<string, unknown>> = [];
    // A client that answers as the 5.x clients should: its stack for a PrintThreadStackTraceCommand, a
    // VerifyMessageResult (status FAILED_TO_CONSUME_MESSAGE) for a VerifyMessageCommand.
    telemetry.on('data', (cmd: Record<string, unknown>) => {
      commands.push(cmd);
      const stack = cmd.printThreadStackTraceCommand as { nonce: string } | undefined;
      if (stack) telemetry.write({ status: { code: 'OK', message: 'OK' }, threadStackTrace: { nonce: stack.nonce, threadStackTrace: 'main thread: waiting' } });
      const verify = cmd.verifyMessageCommand as { nonce: string } | undefined;
      if (verify) telemetry.write({ status: { code: 'FAILED_TO_CONSUME_MESSAGE', message: 'listener failed' }, verifyMessageResult: { nonce: verify.nonce } });
    });
    telemetry.write({
      settings: {
        clientType: 'SIMPLE_CONSUMER', requestTimeout: { seconds: 3 },
        subscription: { group: { name: group }, subscriptions: [{ topic: { name: topic }, expression: { type: 'TAG', expression: '*' } }] },
      },
    });
    await waitFor(() => commands.some((c) => c.settings), 10_000, 'the settings answered');
    // The admin finds the group's broker through its retry topic (a gRPC consumer's registration makes none, as in
    // the proxy's local mode; a remoting consumer's first heartbeat does).
    await createTopicAndWait(cluster.namesrvAddr, `%RETRY%${group}`, 1);
    const admin = new DefaultMQAdminExt({ namesrvAddr: cluster.namesrvAddr, instanceName: randomName('adm') });
    const p = new DefaultMQProducer({ producerGroup: randomName('RPG'), namesrvAddr: cluster.namesrvAddr, instanceName: randomName('rp') });
    try {
      await admin.start();
      const info = await admin.getConsumerRunningInfo(group, clientId, true);
      expect(info.jstack).to.equal('main thread: waiting');
      // Without jstack the proxy relays nothing (the call would wait out its timeout): refused at once here.
      const refused = await admin.getConsumerRunningInfo(group, clientId, false).then(() => 'answered', (e: Error) => e.message);
      expect(refused).to.match(/thread stack only/);
      await p.start();
      const sent = await p.send(createMessage(topic, 'verify me'));
      const result = await admin.consumeMessageDirectly(group, clientId, null, sent.offsetMsgId);
      expect(result.consumeResult).to.equal('CR_LATER');
      expect(result.remark).to.equal('from gRPC client');
      const verify = commands.find((c) => c.verifyMessageCommand)?.verifyMessageCommand as { message: { body: Uint8Array } };
      expect(Buffer.from(verify.message.body).toString()).to.equal('verify me');
    } finally {
      await p.shutdown();
      await admin.shutdown();
      telemetry.end();
    }
  });
});
