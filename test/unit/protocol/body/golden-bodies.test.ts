import { expect } from 'chai';
import { ProtocolError } from '../../../../protocol/errors';
import * as body from '../../../../protocol/body/index';
import { type GoldenFrameEntry, frameIndex, readFrame, scenarios } from '../../../helpers/golden';

interface GoldenBody {
  scenario: string;
  file: string;
  body: Buffer;
}

/** Every body of request (or response to request) `code` in the captures, responses paired by opaque. */
function bodies(code: number, kind: 'req' | 'resp', scenario?: string): GoldenBody[] {
  const out: GoldenBody[] = [];
  for (const sc of scenarios()) {
    if (scenario && sc !== scenario) continue;
    const idx = frameIndex(sc);
    const reqCode = new Map<string, number>();
    const conn = (e: GoldenFrameEntry): string => e.file.split('/')[0];
    const isResp = (e: GoldenFrameEntry): boolean => ((e.header.flag as number) & 1) === 1;
    for (const e of idx) if (!isResp(e)) reqCode.set(`${conn(e)}:${e.dir}:${String(e.header.opaque)}`, e.header.code as number);
    for (const e of idx) {
      if (e.bodyLength === 0) continue;
      let c = e.header.code as number;
      if (isResp(e)) {
        if (kind !== 'resp') continue;
        c = reqCode.get(`${conn(e)}:${e.dir === 's2c' ? 'c2s' : 's2c'}:${String(e.header.opaque)}`) ?? -1;
      } else if (kind !== 'req') continue;
      if (c !== code) continue;
      const frame = readFrame(sc, e.file);
      out.push({ scenario: sc, file: e.file, body: frame.subarray(8 + (frame.readInt32BE(4) & 0xffffff)) });
    }
  }
  return out;
}

function first(code: number, kind: 'req' | 'resp', scenario: string): Buffer {
  const all = bodies(code, kind, scenario);
  expect(all.length, `${scenario} ${kind}${code}`).to.be.greaterThan(0);
  return all[0].body;
}

type Codec = [string, number, 'req' | 'resp', (b: Buffer) => unknown, (v: never) => Buffer];

// Every captured body of these kinds: decode, re-encode, and compare to Java's bytes.
const CODECS: Codec[] = [
  ['TopicRouteData (standard JSON form)', 105, 'resp', body.decodeTopicRouteData,
    (v: body.TopicRouteData) => body.encodeTopicRouteData(v, { standardJson: true })],
  ['ClusterInfo', 106, 'resp', body.decodeClusterInfo, body.encodeClusterInfo],
  ['HeartbeatData', 34, 'req', body.decodeHeartbeatData, body.encodeHeartbeatData],
  ['RegisterBrokerBody', 103, 'req', (b) => body.decodeRegisterBrokerBody(b, false),
    (v: body.RegisterBrokerBody) => body.encodeRegisterBrokerBody(v, false)],
  ['KVTable (register-broker result)', 103, 'resp', body.decodeKVTable, body.encodeKVTable],
  ['KVTable (broker runtime info)', 28, 'resp', body.decodeKVTable, body.encodeKVTable],
  ['GetConsumerListByGroupResponseBody', 38, 'resp', body.decodeGetConsumerListByGroupResponseBody,
    body.encodeGetConsumerListByGroupResponseBody],
  ['CheckClientRequestBody', 46, 'req', body.decodeCheckClientRequestBody, body.encodeCheckClientRequestBody],
  ['LockBatchRequestBody', 41, 'req', body.decodeLockBatchRequestBody, body.encodeLockBatchRequestBody],
  ['LockBatchResponseBody', 41, 'resp', body.decodeLockBatchResponseBody, body.encodeLockBatchResponseBody],
  ['UnlockBatchRequestBody', 42, 'req', body.decodeUnlockBatchRequestBody, body.encodeUnlockBatchRequestBody],
  ['TopicList', 206, 'resp', body.decodeTopicList, body.encodeTopicList],
  ['ConsumeStats', 208, 'resp', body.decodeConsumeStats, body.encodeConsumeStats],
  ['TopicStatsTable', 202, 'resp', body.decodeTopicStatsTable, body.encodeTopicStatsTable],
  ['SubscriptionGroupConfig', 200, 'req', body.decodeSubscriptionGroupConfig, body.encodeSubscriptionGroupConfig],
  ['SubscriptionGroupWrapper', 201, 'resp', body.decodeSubscriptionGroupWrapper, body.encodeSubscriptionGroupWrapper],
  ['ConsumerOffsetSerializeWrapper', 43, 'resp', body.decodeConsumerOffsetSerializeWrapper,
    body.encodeConsumerOffsetSerializeWrapper],
];

describe('protocol/body golden captures', () => {
  for (const [name, code, kind, decode, encode] of CODECS) {
    it(`${name}: every captured ${kind}${code} body decodes, re-encodes to Java's bytes, and decodes equal`, () => {
      const all = bodies(code, kind);
      expect(all.length).to.be.greaterThan(0);
      for (const g of all) {
        const v = decode(g.body);
        const again = encode(v as never);
        expect(again.toString('utf8'), `${g.scenario}/${g.file}`).to.equal(g.body.toString('utf8'));
        expect(decode(again)).to.deep.equal(v);
      }
    });
  }

  it('decodes route data (quoted broker ids) and writes the legacy form with bare keys', () => {
    const b = first(105, 'resp', '01-startup');
    const r = body.decodeTopicRouteData(b);
    expect(r.brokerDatas).to.have.length(1);
    expect(r.brokerDatas[0].brokerName).to.equal('broker-cap');
    expect(r.brokerDatas[0].cluster).to.equal('DefaultCluster');
    expect(r.brokerDatas[0].brokerAddrs).to.deep.equal(new Map([[0, '127.0.0.1:20911']]));
    expect(body.selectBrokerAddr(r.brokerDatas[0])).to.equal('127.0.0.1:20911');
    expect(r.queueDatas[0]).to.deep.equal({ brokerName: 'broker-cap', perm: 6, readQueueNums: 4, writeQueueNums: 4, topicSysFlag: 0 });
    expect(r.filterServerTable.size).to.equal(0);
    expect(r.orderTopicConf).to.equal(undefined);
    const legacy = body.encodeTopicRouteData(r).toString();
    expect(legacy).to.contain('"brokerAddrs":{0:"127.0.0.1:20911"}');
    expect(body.decodeTopicRouteData(Buffer.from(legacy))).to.deep.equal(r);
  });

  it('decodes 5.x route data with enableActingMaster', () => {
    const r = body.decodeTopicRouteData(first(105, 'resp', '10-java5-broker'));
    expect(r.brokerDatas[0].enableActingMaster).to.equal(false);
    expect(r.brokerDatas[0].brokerName).to.equal('broker-5x');
  });

  it('decodes cluster info with unquoted integer keys', () => {
    const raw = first(106, 'resp', '01-startup');
    expect(raw.toString()).to.contain('{0:"127.0.0.1:20911"}');
    const c = body.decodeClusterInfo(raw);
    expect(c.brokerAddrTable.get('broker-cap')?.brokerAddrs.get(0)).to.equal('127.0.0.1:20911');
    expect(c.clusterAddrTable.get('DefaultCluster')).to.deep.equal(['broker-cap']);
    expect(body.retrieveAllAddrByCluster(c, 'DefaultCluster')).to.deep.equal(['127.0.0.1:20911']);
  });

  it('decodes heartbeats: producer and consumer groups, tag subscriptions with codeSet', () => {
    const hb = bodies(34, 'req', '03-consume').map((g) => body.decodeHeartbeatData(g.body));
    const tag = hb.find((h) => h.consumerDataSet.some((c) => c.groupName === 'CG_TAG'));
    expect(tag).to.not.equal(undefined);
    expect(tag?.producerDataSet).to.deep.equal([{ groupName: 'CLIENT_INNER_PRODUCER' }]);
    const cd = tag?.consumerDataSet.find((c) => c.groupName === 'CG_TAG');
    expect(cd?.consumeType).to.equal(body.ConsumeType.CONSUME_PASSIVELY);
    expect(cd?.messageModel).to.equal(body.MessageModel.CLUSTERING);
    expect(cd?.consumeFromWhere).to.equal(body.ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
    const sub = cd?.subscriptionDataSet.find((s) => s.topic === 'CapTopic');
    expect(sub?.subString).to.equal('TagA || TagB');
    expect(sub?.tagsSet).to.deep.equal(['TagA', 'TagB']);
    expect(sub?.codeSet).to.deep.equal([2598919, 2598920]);
    expect(sub?.expressionType).to.equal(body.ExpressionType.TAG);
    const sql = hb.flatMap((h) => h.consumerDataSet).flatMap((c) => c.subscriptionDataSet)
      .find((s) => s.expressionType === body.ExpressionType.SQL92);
    expect(sql?.subString).to.equal("a > 2 AND region = 'r1'");
    expect(sql?.topic).to.equal('SqlTopic');
  });

  it('decodes CHECK_CLIENT_CONFIG with an SQL92 subscription', () => {
    const c = body.decodeCheckClientRequestBody(first(46, 'req', '03-consume'));
    expect(c.group).to.equal('CG_SQL');
    expect(c.subscriptionData?.expressionType).to.equal('SQL92');
  });

  it('decodes 4.9.8 and 5.x REGISTER_BROKER bodies (all captured ones are uncompressed JSON)', () => {
    for (const sc of scenarios()) {
      for (const e of frameIndex(sc)) {
        if (e.header.code === 103 && ((e.header.flag as number) & 1) === 0) {
          const ext = e.header.extFields as Record<string, string>;
          expect(ext.compressed).to.equal('false');
        }
      }
    }
    const r = body.decodeRegisterBrokerBody(first(103, 'req', '01-startup'));
    const w = r.topicConfigSerializeWrapper;
    expect(w.dataVersion).to.deep.equal({ counter: 0, timestamp: 1795936537377 });
    expect(w.topicConfigTable.get('TBW102')).to.deep.equal(body.newTopicConfig('TBW102', { perm: 7, readQueueNums: 8, writeQueueNums: 8 }));
    expect(r.filterServerList).to.deep.equal([]);
    const r5 = body.decodeRegisterBrokerBody(first(103, 'req', '10-java5-broker'));
    expect(r5.topicConfigSerializeWrapper.dataVersion.stateVersion).to.equal(0);
    expect(r5.topicConfigSerializeWrapper.mappingDataVersion?.counter).to.equal(0);
    expect(r5.topicConfigSerializeWrapper.topicConfigTable.get('TBW102')?.attributes?.size).to.equal(0);
  });

  it('round-trips the compressed REGISTER_BROKER form (name, queues, perm and filter type travel)', () => {
    const r = body.decodeRegisterBrokerBody(first(103, 'req', '01-startup'));
    r.topicConfigSerializeWrapper.topicConfigTable.set('OrderT', body.newTopicConfig('OrderT', {
      perm: 6, topicFilterType: body.TopicFilterType.MULTI_TAG, order: true, topicSysFlag: 1,
    }));
    const z = body.encodeRegisterBrokerBody(r, true);
    expect(z[0]).to.equal(0x78); // zlib header, as java.util.zip.Deflater writes
    const back = body.decodeRegisterBrokerBody(z, true);
    expect(back.topicConfigSerializeWrapper.dataVersion).to.deep.equal(r.topicConfigSerializeWrapper.dataVersion);
    expect(back.filterServerList).to.deep.equal([]);
    const t = back.topicConfigSerializeWrapper.topicConfigTable.get('OrderT');
    // Java's compressed form carries only name, read, write, perm and filter type.
    expect(t).to.deep.equal(body.newTopicConfig('OrderT', { perm: 6, topicFilterType: 'MULTI_TAG' }));
    expect([...back.topicConfigSerializeWrapper.topicConfigTable.keys()])
      .to.deep.equal([...r.topicConfigSerializeWrapper.topicConfigTable.keys()]);
    expect(() => body.decodeRegisterBrokerBody(Buffer.from('not zlib'), true)).to.throw(ProtocolError);
  });

  it('decodes GET_CONSUME_STATS with MessageQueue keys', () => {
    const s = body.decodeConsumeStats(first(208, 'resp', '06-admin'));
    expect(s.consumeTps).to.equal(0);
    expect(s.offsetTable).to.have.length(5);
    expect(s.offsetTable[0]).to.deep.equal([
      { topic: 'CapTopic', brokerName: 'broker-cap', queueId: 3 },
      { brokerOffset: 4, consumerOffset: 4, lastTimestamp: 1795936605425 },
    ]);
    expect(body.computeTotalDiff(s)).to.equal(0);
  });

  it('decodes GET_TOPIC_STATS_INFO', () => {
    const t = body.decodeTopicStatsTable(first(202, 'resp', '06-admin'));
    const q0 = t.offsetTable.find(([mq]) => mq.queueId === 0);
    expect(q0?.[1]).to.deep.equal({ minOffset: 0, maxOffset: 9, lastUpdateTimestamp: 1795936611403 });
  });

  it('decodes LOCK_BATCH_MQ request and response', () => {
    const req = body.decodeLockBatchRequestBody(first(41, 'req', '04-orderly-retry-rebalance'));
    expect(req.consumerGroup).to.equal('CG_ORD');
    expect(req.mqSet[0]).to.deep.equal({ topic: 'OrderTopic', brokerName: 'broker-cap', queueId: 0 });
    const resp = body.decodeLockBatchResponseBody(first(41, 'resp', '04-orderly-retry-rebalance'));
    expect(resp.lockOKMQSet).to.deep.equal([{ topic: 'OrderTopic', brokerName: 'broker-cap', queueId: 0 }]);
  });

  it('decodes the consumer list, topic list and runtime info', () => {
    expect(body.decodeGetConsumerListByGroupResponseBody(first(38, 'resp', '03-consume')).consumerIdList)
      .to.deep.equal(['127.0.0.1@harness-30154']);
    const tl = body.decodeTopicList(first(206, 'resp', '06-admin'));
    expect(tl.topicList).to.include.members(['CapTopic', 'TBW102', '%RETRY%CG_ALL']);
    expect(tl.brokerAddr).to.equal(undefined);
    const kv = body.decodeKVTable(first(28, 'resp', '01-startup'));
    expect(kv.table.get('brokerVersionDesc')).to.equal('V4_9_8');
    expect(kv.table.get('brokerVersion')).to.equal('409');
  });

  it('decodes subscription group tables', () => {
    const w = body.decodeSubscriptionGroupWrapper(first(201, 'resp', '09-master-slave'));
    expect(w.subscriptionGroupTable.get('TOOLS_CONSUMER')).to.deep.equal(body.newSubscriptionGroupConfig('TOOLS_CONSUMER'));
  });

  it('raises ProtocolError on malformed bodies', () => {
    expect(() => body.decodeTopicRouteData(Buffer.from('{"brokerDatas":[{"brokerAddrs":{0:"a"}]}'))).to.throw(ProtocolError);
    expect(() => body.decodeClusterInfo(Buffer.from('[1]'))).to.throw(ProtocolError);
    expect(() => body.decodeHeartbeatData(Buffer.from('{"clientID":5}'))).to.throw(ProtocolError);
    expect(() => body.decodeConsumeStats(Buffer.from('{"offsetTable":{{"topic":"T"}:{"brokerOffset":9223372036854775807}}}')))
      .to.throw(ProtocolError);
  });
});
