/**
 * lib/grpc/grpc-access-validator.ts: the authorization header as 5.x clients write it (parsed as Java's
 * AuthorizationHeader), the resources each RPC needs (5.1.x PlainAccessResource.parse(GeneratedMessageV3, ...)),
 * and the check against plain_acl.yml accounts through the broker's PlainAccessValidator: UNAUTHORIZED with the
 * ACL 1.0 reason on refusal.
 */
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { AclException, GrpcProxyError } from '../../../lib/errors';
import { PlainAccessValidator } from '../../../lib/broker/acl/plain-access-validator';
import { Permission } from '../../../lib/broker/acl/permission';
import {
  type AuthenticationHeader, type GrpcRpcName, GrpcAccessValidator, parseAuthorizationHeader, parseGrpcAccessResource,
} from '../../../lib/grpc/grpc-access-validator';
import { RequestCode } from '../../../protocol/code/request-code';

const DATE = '20261204T090000Z';

/** rocketmq-client-nodejs's util.sign and header (BaseClient.getRequestMetadata). */
function header(accessKey: string, secret: string, remoteAddress = '10.1.2.3:50000', datetime: string | null = DATE): AuthenticationHeader {
  const signature = createHmac('sha1', secret).update(DATE).digest('hex').toUpperCase();
  return {
    remoteAddress, datetime, sessionToken: null,
    authorization: `MQv2-HMAC-SHA1 Credential=${accessKey}, SignedHeaders=x-mq-date-time, Signature=${signature}`,
  };
}

const ANON: AuthenticationHeader = { remoteAddress: '10.1.2.3:50000', authorization: null, datetime: DATE, sessionToken: null };

describe('grpc: authorization header (AuthorizationHeader)', () => {
  it('reads the access key, the signed headers and the hex signature (as base64)', () => {
    const sig = createHmac('sha1', 'secret-key').update(DATE).digest();
    const h = parseAuthorizationHeader(`MQv2-HMAC-SHA1 Credential=ak123456/20261204, SignedHeaders=x-mq-date-time, Signature=${sig.toString('hex').toUpperCase()}`);
    expect(h).to.deep.equal({ method: 'MQv2-HMAC-SHA1', accessKey: 'ak123456', signedHeaders: ['x-mq-date-time'], signature: sig.toString('base64') });
  });

  it('refuses what Java refuses, with its messages', () => {
    const msg = (s: string) => {
      try {
        parseAuthorizationHeader(s);
        return null;
      } catch (err) {
        expect(err).to.be.instanceOf(AclException);
        return (err as Error).message;
      }
    };
    expect(msg('MQv2-HMAC-SHA1')).to.equal('authorization header is incorrect');
    expect(msg('MQv2-HMAC-SHA1 Credential')).to.equal('authorization keyValues length is incorrect, actual length=1');
    expect(msg('MQv2-HMAC-SHA1 Credential=/')).to.equal('authorization credential length is incorrect, actual length=0');
    expect(msg('MQv2-HMAC-SHA1 Signature=ABC')).to.equal('Odd number of characters.');
    expect(msg('MQv2-HMAC-SHA1 Signature=ABZZ')).to.equal('Illegal hexadecimal character Z at index 2');
  });
});

describe('grpc: the resources of each RPC (PlainAccessResource.parse for gRPC)', () => {
  const needs = (rpc: GrpcRpcName, request: unknown) => {
    const r = parseGrpcAccessResource(rpc, request, header('ak123456', 'secret-key'));
    return Object.fromEntries(r.resourcePermMap ?? []);
  };
  const t = (name: string) => ({ name, resourceNamespace: '' });
  const { PUB, SUB, ANY } = Permission;

  it('maps every RPC to topic and group (retry topic) permissions', () => {
    expect(needs('QueryRoute', { topic: t('T') })).to.deep.equal({ T: ANY });
    expect(needs('Heartbeat', { clientType: 'PRODUCER' })).to.deep.equal({});
    expect(needs('Heartbeat', { clientType: 'SIMPLE_CONSUMER', group: t('G') })).to.deep.equal({ '%RETRY%G': SUB });
    expect(needs('SendMessage', { messages: [{ topic: t('T') }, { topic: t('T') }] })).to.deep.equal({ T: PUB });
    for (const rpc of ['QueryAssignment', 'AckMessage', 'ForwardMessageToDeadLetterQueue', 'ChangeInvisibleDuration'] as const) {
      expect(needs(rpc, { topic: t('T'), group: t('G') }), rpc).to.deep.equal({ '%RETRY%G': SUB, T: SUB });
    }
    expect(needs('ReceiveMessage', { group: t('G'), messageQueue: { topic: t('T') } })).to.deep.equal({ '%RETRY%G': SUB, T: SUB });
    expect(needs('EndTransaction', { topic: t('T') })).to.deep.equal({ T: PUB });
    expect(needs('RecallMessage', { topic: t('T') })).to.deep.equal({ T: PUB });
    expect(needs('NotifyClientTermination', { group: t('G') })).to.deep.equal({ '%RETRY%G': SUB });
    expect(needs('NotifyClientTermination', { group: null })).to.deep.equal({});
    expect(needs('Telemetry', { command: 'settings', settings: { pubSub: 'publishing', publishing: { topics: [t('A'), t('B')] } } }))
      .to.deep.equal({ A: PUB, B: PUB });
    expect(needs('Telemetry', {
      command: 'settings', settings: { pubSub: 'subscription', subscription: { group: t('G'), subscriptions: [{ topic: t('A') }] } },
    })).to.deep.equal({ '%RETRY%G': SUB, A: SUB });
    expect(needs('Telemetry', { command: 'threadStackTrace', threadStackTrace: { nonce: 'n' } })).to.deep.equal({});
  });

  it('takes the signer, the signed content and the client IP; refuses requests Java refuses before the check', () => {
    const r = parseGrpcAccessResource('SendMessage', { messages: [{ topic: t('T') }] }, header('ak123456', 'secret-key', '[::1]:50000'));
    expect(r.accessKey).to.equal('ak123456');
    expect(r.content?.toString()).to.equal(DATE);
    expect(r.whiteRemoteAddress).to.equal('::1');
    expect(r.requestCode).to.equal(RequestCode.SEND_MESSAGE_V2);
    const anon = parseGrpcAccessResource('QueryRoute', { topic: t('T') }, ANON);
    expect(anon.accessKey).to.equal(null);
    expect(anon.whiteRemoteAddress).to.equal('10.1.2.3');
    const refused = (f: () => unknown) => expect(f).to.throw(AclException);
    refused(() => parseGrpcAccessResource('SendMessage', { messages: [] }, ANON));
    refused(() => parseGrpcAccessResource('SendMessage', { messages: [{ topic: t('A') }, { topic: t('B') }] }, ANON));
    refused(() => parseGrpcAccessResource('Heartbeat', { clientType: 'PUSH_CONSUMER', group: null }, ANON));
    refused(() => parseGrpcAccessResource('Telemetry', { command: 'settings', settings: { clientType: 'PRODUCER' } }, ANON));
    expect(() => parseGrpcAccessResource('QueryRoute', { topic: t('T') }, header('ak123456', 'secret-key', '1.2.3.4:5', null)))
      .to.throw(AclException, 'datetime is null.');
  });
});

describe('grpc: GrpcAccessValidator against plain_acl.yml', () => {
  let home: string;
  let validator: PlainAccessValidator;
  let acl: GrpcAccessValidator;

  before(async () => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'rmq-grpc-acl-'));
    fs.mkdirSync(path.join(home, 'conf'));
    fs.writeFileSync(path.join(home, 'conf', 'plain_acl.yml'), `globalWhiteRemoteAddresses:
  - 192.168.7.*
accounts:
  - accessKey: grpcUser1
    secretKey: grpc-secret-1
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - Orders=PUB|SUB
      - Reports=SUB
  - accessKey: trusted1
    secretKey: trusted-secret
    whiteRemoteAddress: 10.9.9.9
`);
    validator = new PlainAccessValidator({ fileHome: home });
    await validator.aclPlugEngine.load();
    acl = new GrpcAccessValidator(validator);
  });
  after(async () => {
    await validator.shutdown();
    fs.rmSync(home, { recursive: true, force: true });
  });

  const refusal = (rpc: GrpcRpcName, h: AuthenticationHeader, request: unknown): { code: string; message: string } | null => {
    try {
      acl.check(rpc, h, request);
      return null;
    } catch (err) {
      expect(err).to.be.instanceOf(GrpcProxyError);
      return { code: (err as GrpcProxyError).code, message: (err as Error).message };
    }
  };
  const send = (topic: string) => ({ messages: [{ topic: { name: topic } }] });

  it('passes a request signed as rocketmq-client-nodejs signs it, with the permission', () => {
    expect(refusal('SendMessage', header('grpcUser1', 'grpc-secret-1'), send('Orders'))).to.equal(null);
    expect(refusal('QueryRoute', header('grpcUser1', 'grpc-secret-1'), { topic: { name: 'Reports' } })).to.equal(null);
  });

  it('answers UNAUTHORIZED with the ACL 1.0 reason otherwise', () => {
    expect(refusal('SendMessage', header('grpcUser1', 'wrong-secret'), send('Orders')))
      .to.deep.equal({ code: 'UNAUTHORIZED', message: 'Check signature failed for accessKey=grpcUser1' });
    expect(refusal('SendMessage', header('someone1', 'grpc-secret-1'), send('Orders')))
      .to.deep.equal({ code: 'UNAUTHORIZED', message: 'No acl config for someone1' });
    expect(refusal('SendMessage', ANON, send('Orders'))).to.deep.equal({ code: 'UNAUTHORIZED', message: 'No accessKey is configured' });
    expect(refusal('SendMessage', header('grpcUser1', 'grpc-secret-1'), send('Reports')))
      .to.deep.equal({ code: 'UNAUTHORIZED', message: 'No default permission for topic:Reports' });
    expect(refusal('SendMessage', header('grpcUser1', 'grpc-secret-1'), send('Other')))
      .to.deep.equal({ code: 'UNAUTHORIZED', message: 'No default permission for topic:Other' });
  });

  it('white lists as for remoting: a global white address needs no credentials, an account\'s no signature', () => {
    expect(refusal('SendMessage', { ...ANON, remoteAddress: '192.168.7.20:4000' }, send('Anything'))).to.equal(null);
    expect(refusal('SendMessage', { ...header('trusted1', 'not-its-secret'), remoteAddress: '10.9.9.9:4000' }, send('Anything'))).to.equal(null);
    expect(refusal('SendMessage', header('trusted1', 'not-its-secret'), send('Anything'))?.message).to.equal('Check signature failed for accessKey=trusted1');
  });
});
