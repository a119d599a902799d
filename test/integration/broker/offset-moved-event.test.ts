import { expect } from 'chai';
import { getCluster, randomName, waitFor, type TestCluster } from '../../helpers/cluster';
import { newClient, pullRequest, sendHeader, sendRequest } from './broker-helpers';
import type { RemotingClient } from '../../../lib/transport/remoting-client';
import { ResponseCode } from '../../../protocol/code/response-code';
import { decodeMessages } from '../../../protocol/message/message-decoder';
import { decodeFastjson } from '../../../protocol/body/fastjson';
import { PullMessageResponseHeader } from '../../../protocol/header/pull-message-response-header';
import type { BrokerController } from '../../../lib/broker/broker-controller';

describe('broker: PULL_OFFSET_MOVED stores an OFFSET_MOVED_EVENT as Java does', function () {
  this.timeout(30000);
  let tc: TestCluster;
  let client: RemotingClient;
  let broker: BrokerController;

  before(async function () {
    tc = await getCluster();
    if (!tc.cluster) {
      await tc.stop();
      this.skip();
    }
    broker = tc.cluster.brokers[0];
    client = newClient();
  });
  after(async () => {
    await client?.shutdown();
    await tc?.stop();
  });

  it('a pull far beyond the max offset answers PULL_OFFSET_MOVED and the event reaches OFFSET_MOVED_EVENT queue 0', async () => {
    const topic = randomName('T');
    const group = randomName('G');
    const addr = broker.brokerAddr;
    for (let i = 0; i < 3; i++) {
      const r = await client.invoke(addr, sendRequest('V2', sendHeader(topic, {}, 1), Buffer.from('x')), 5000);
      expect(r.code).to.equal(ResponseCode.SUCCESS);
    }
    const before = broker.messageStore.getMaxOffsetInQueue('OFFSET_MOVED_EVENT', 0);
    const res = await client.invoke(addr, pullRequest(group, topic, 1, 100), 5000);
    expect(res.code).to.equal(ResponseCode.PULL_OFFSET_MOVED);
    expect(PullMessageResponseHeader.decode(res.extFields).nextBeginOffset).to.equal(0); // Java corrects to the min offset when it is 0
    await waitFor(() => broker.messageStore.getMaxOffsetInQueue('OFFSET_MOVED_EVENT', 0) === before + 1, 5000, 'the event stored');
    const pulled = await client.invoke(addr, pullRequest(randomName('reader'), 'OFFSET_MOVED_EVENT', 0, before), 5000);
    expect(pulled.code, pulled.remark ?? '').to.equal(ResponseCode.SUCCESS);
    const [event] = decodeMessages(pulled.body!);
    expect(event.properties).to.deep.equal({ KEYS: group, DELAY: '0', TAGS: group });
    expect(Object.keys(event.properties)).to.deep.equal(['KEYS', 'DELAY', 'TAGS']);
    expect(event.body.toString()).to.equal(
      `{"consumerGroup":"${group}","messageQueue":{"brokerName":"${broker.brokerConfig.brokerName}","queueId":1,"topic":"${topic}"},"offsetNew":0,"offsetRequest":100}`,
    );
    expect(decodeFastjson(event.body)).to.have.property('offsetNew', 0);
    expect(event.bornHost.port).to.equal(event.storeHost.port);
  });

  it('a pull within the queue answers normally and stores no event', async () => {
    const topic = randomName('T');
    const addr = broker.brokerAddr;
    await client.invoke(addr, sendRequest('V2', sendHeader(topic, {}, 0), Buffer.from('x')), 5000);
    const before = broker.messageStore.getMaxOffsetInQueue('OFFSET_MOVED_EVENT', 0);
    const res = await client.invoke(addr, pullRequest(randomName('G'), topic, 0, 0), 5000);
    expect(res.code).to.equal(ResponseCode.SUCCESS);
    await new Promise((r) => setTimeout(r, 50));
    expect(broker.messageStore.getMaxOffsetInQueue('OFFSET_MOVED_EVENT', 0)).to.equal(before);
  });
});
