import { expect } from 'chai';
import { NamespaceUtil, withoutNamespace } from '../../../lib/client/namespace';
import { getDLQTopic, getRetryTopic, isSysConsumerGroup, isSystemTopic, MixAll } from '../../../lib/client/mix-all';
import { checkGroup, checkMessage, checkTopic } from '../../../lib/client/validators';
import { ClientConfig, DEFAULT_CLIENT_CONFIG, getLocalAddress } from '../../../lib/client/client-config';
import { topicRouteData2TopicPublishInfo, topicRouteData2TopicSubscribeInfo } from '../../../lib/client/route-convert';
import { MQClientError } from '../../../lib/errors';
import type { RouteQueues as TopicRouteData } from '../../../lib/client/route-types';

const NS = 'MQ_INST_XXX';

describe('lib/client building blocks', () => {
  it('NamespaceUtil: the cases of Java NamespaceUtilTest', () => {
    expect(withoutNamespace(`${NS}%TOPIC_XXX`, NS)).to.equal('TOPIC_XXX');
    expect(withoutNamespace(`${NS}%TOPIC_XXX`)).to.equal('TOPIC_XXX');
    expect(withoutNamespace(`${NS}%GID_XXX`, NS)).to.equal('GID_XXX');
    expect(withoutNamespace(`%RETRY%${NS}%GID_XXX`, NS)).to.equal('%RETRY%GID_XXX');
    expect(withoutNamespace(`%RETRY%${NS}%GID_XXX`)).to.equal('%RETRY%GID_XXX');
    expect(withoutNamespace(`%RETRY%${NS}%GID_XXX`, 'MQ_INST_XXX1')).to.equal(`%RETRY%${NS}%GID_XXX`);
    expect(withoutNamespace(`${NS}%T`, undefined)).to.equal(`${NS}%T`); // two-argument form, empty namespace
    expect(NamespaceUtil.wrapNamespace(NS, 'TOPIC_XXX')).to.equal(`${NS}%TOPIC_XXX`);
    expect(NamespaceUtil.wrapNamespace(NS, `${NS}%TOPIC_XXX`)).to.equal(`${NS}%TOPIC_XXX`);
    expect(NamespaceUtil.wrapNamespace(NS, '%RETRY%GID_XXX')).to.equal(`%RETRY%${NS}%GID_XXX`);
    expect(NamespaceUtil.wrapNamespace(NS, `%RETRY%${NS}%GID_XXX`)).to.equal(`%RETRY%${NS}%GID_XXX`);
    expect(NamespaceUtil.wrapNamespace(NS, '%DLQ%GID_XXX')).to.equal(`%DLQ%${NS}%GID_XXX`);
    expect(NamespaceUtil.wrapNamespace(NS, 'rmq_sys_topic')).to.equal('rmq_sys_topic');
    expect(NamespaceUtil.wrapNamespace(NS, 'TBW102')).to.equal('TBW102');
    expect(NamespaceUtil.wrapNamespace(NS, 'CID_RMQ_SYS_X')).to.equal('CID_RMQ_SYS_X');
    expect(NamespaceUtil.getNamespaceFromResource('TOPIC_XXX')).to.equal('');
    expect(NamespaceUtil.getNamespaceFromResource(`${NS}%TOPIC_XXX`)).to.equal(NS);
    expect(NamespaceUtil.getNamespaceFromResource(`%RETRY%${NS}%GID_XXX`)).to.equal(NS);
    expect(NamespaceUtil.wrapNamespaceAndRetry(NS, 'G')).to.equal(`%RETRY%${NS}%G`);
    expect(NamespaceUtil.wrapNamespaceAndRetry(NS, '')).to.equal(null);
  });

  it('MixAll helpers', () => {
    expect(getRetryTopic('G')).to.equal('%RETRY%G');
    expect(getDLQTopic('G')).to.equal('%DLQ%G');
    expect(isSysConsumerGroup('CID_RMQ_SYS_TRANS')).to.equal(true);
    expect(isSysConsumerGroup(MixAll.DEFAULT_CONSUMER_GROUP)).to.equal(false);
    expect(isSystemTopic('TBW102')).to.equal(true);
    expect(isSystemTopic('rmq_sys_x')).to.equal(true);
    expect(isSystemTopic('T')).to.equal(false);
  });

  it('Validators: topics, groups and messages as Java', () => {
    expect(() => checkTopic('abc%|_-09AZ')).not.to.throw();
    expect(() => checkTopic('a'.repeat(127))).not.to.throw();
    expect(() => checkTopic('a'.repeat(128))).to.throw('longer than topic max length 127');
    expect(() => checkTopic('  ')).to.throw('The specified topic is blank');
    expect(() => checkTopic('a.b')).to.throw('contains illegal characters');
    expect(() => checkTopic('中')).to.throw('contains illegal characters');
    expect(() => checkGroup('g'.repeat(256))).to.throw('longer than group max length 255');
    expect(() => checkGroup('g g')).to.throw('illegal characters');
    const code = (fn: () => void) => {
      try { fn(); } catch (e) { return (e as MQClientError).responseCode; }
      return undefined;
    };
    expect(code(() => checkMessage(null, 10))).to.equal(13);
    expect(code(() => checkMessage({ topic: 'T' }, 10))).to.equal(13);
    expect(code(() => checkMessage({ topic: 'T', body: Buffer.alloc(0) }, 10))).to.equal(13);
    expect(code(() => checkMessage({ topic: 'T', body: 'x'.repeat(11) }, 10))).to.equal(13);
    expect(code(() => checkMessage({ topic: 'SCHEDULE_TOPIC_XXXX', body: 'x' }, 10))).to.equal(-1);
    expect(code(() => checkMessage({ topic: 'a b', body: 'x' }, 10))).to.equal(-1);
    expect(() => checkMessage({ topic: 'TBW102', body: 'x' }, 10)).not.to.throw(); // allowed by 4.9.8
    expect(() => checkMessage({ topic: 'T', body: Buffer.alloc(10) }, 10)).not.to.throw();
  });

  it('ClientConfig: defaults, env, client id and namespace', () => {
    expect(Object.isFrozen(DEFAULT_CLIENT_CONFIG)).to.equal(true);
    const c = new ClientConfig({ clientIP: '10.1.1.1' }, { NAMESRV_ADDR: '1.1.1.1:9876' });
    expect(c.namesrvAddr).to.equal('1.1.1.1:9876');
    expect([c.pollNameServerInterval, c.heartbeatBrokerInterval, c.persistConsumerOffsetInterval, c.mqClientApiTimeout]).to.deep.equal([30000, 30000, 5000, 3000]);
    expect(c.buildMQClientId()).to.equal('10.1.1.1@DEFAULT');
    c.unitName = 'u1';
    expect(c.buildMQClientId()).to.equal('10.1.1.1@DEFAULT@u1');
    c.changeInstanceNameToPID();
    expect(c.instanceName).to.match(new RegExp(`^${process.pid}#\\d+$`));
    expect(new ClientConfig({ namesrvAddr: 'x:1' }, { NAMESRV_ADDR: 'y:1' }).namesrvAddr).to.equal('x:1');
    const inst = new ClientConfig({ clientIP: '1.2.3.4', namesrvAddr: 'http://MQ_INST_123_abc.host.com:80' }, {});
    expect(inst.getNamespace()).to.equal('MQ_INST_123_abc');
    expect(inst.withNamespace('T')).to.equal('MQ_INST_123_abc%T');
    expect(inst.withoutNamespace('MQ_INST_123_abc%T')).to.equal('T');
    expect(inst.cloneClientConfig().buildMQClientId()).to.equal('1.2.3.4@DEFAULT');
  });

  it('getLocalAddress prefers a public IPv4, then the last IPv4, then IPv6, then 127.0.0.1', () => {
    const v4 = (address: string, internal = false) => ({ address, family: 'IPv4' as const, internal, netmask: '', mac: '', cidr: null });
    const v6 = (address: string) => ({ address, family: 'IPv6' as const, internal: false, netmask: '', mac: '', cidr: null, scopeid: 0 });
    expect(getLocalAddress({ lo: [v4('127.0.0.1', true)], eth0: [v4('192.168.1.2'), v4('10.0.0.5')] })).to.equal('10.0.0.5');
    expect(getLocalAddress({ eth0: [v4('192.168.1.2'), v4('192.168.1.3')] })).to.equal('192.168.1.3');
    expect(getLocalAddress({ eth0: [v6('fe80::1')] })).to.equal('[fe80::1]');
    expect(getLocalAddress({})).to.equal('127.0.0.1');
  });

  it('route → publish and subscribe queues as MQClientInstance', () => {
    const route: TopicRouteData = {
      queueDatas: [
        { brokerName: 'b', readQueueNums: 2, writeQueueNums: 3, perm: 6, topicSysFlag: 0 },
        { brokerName: 'a', readQueueNums: 1, writeQueueNums: 2, perm: 6, topicSysFlag: 0 },
        { brokerName: 'c', readQueueNums: 2, writeQueueNums: 2, perm: 4, topicSysFlag: 0 }, // read only
        { brokerName: 'd', readQueueNums: 1, writeQueueNums: 1, perm: 6, topicSysFlag: 0 }, // no master
        { brokerName: 'e', readQueueNums: 1, writeQueueNums: 1, perm: 6, topicSysFlag: 0 }, // no BrokerData
      ],
      brokerDatas: [
        { cluster: 'k', brokerName: 'a', brokerAddrs: new Map([[0, 'h:1']]) },
        { cluster: 'k', brokerName: 'b', brokerAddrs: new Map([[0, 'h:2']]) },
        { cluster: 'k', brokerName: 'c', brokerAddrs: new Map([[0, 'h:3']]) },
        { cluster: 'k', brokerName: 'd', brokerAddrs: new Map([[1, 'h:4']]) },
      ],
    };
    const pub = topicRouteData2TopicPublishInfo('T', route);
    expect(pub.orderTopic).to.equal(false);
    expect(pub.messageQueueList.map((q) => `${q.brokerName}${q.queueId}`)).to.deep.equal(['a0', 'a1', 'b0', 'b1', 'b2']);
    expect(pub.getQueueIdByBroker('b')).to.equal(3);
    expect(pub.getQueueIdByBroker('c')).to.equal(-1);
    const sub = topicRouteData2TopicSubscribeInfo('T', route);
    expect(sub.map((q) => `${q.brokerName}${q.queueId}`).sort()).to.deep.equal(['a0', 'b0', 'b1', 'c0', 'c1', 'd0', 'e0']);
    const ordered = topicRouteData2TopicPublishInfo('T', { ...route, orderTopicConf: 'x:2;y:1' });
    expect(ordered.orderTopic).to.equal(true);
    expect(ordered.messageQueueList.map((q) => `${q.brokerName}${q.queueId}`)).to.deep.equal(['x0', 'x1', 'y0']);
  });
});
