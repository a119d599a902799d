import { expect } from 'chai';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { createMessage } from '../../../protocol/message/message';
import { DefaultMQProducer } from '../../../lib/producer/default-mq-producer';
import { type ScriptedCluster, startScriptedCluster } from '../../helpers/scripted-cluster';
import { waitFor } from '../../helpers/wait-for';

describe('lib/producer: network.request and network.request_queue_size reach the producer\'s listeners', function () {
  this.timeout(20_000);
  let cluster: ScriptedCluster;
  let producer: DefaultMQProducer | null = null;

  beforeEach(async () => {
    cluster = await startScriptedCluster(1, { T: 4 });
  });

  afterEach(async () => {
    await producer?.shutdown();
    producer = null;
    await cluster.stop();
  });

  it('one network.request per request (route and send among them), with the client id, code, address and size', async () => {
    producer = new DefaultMQProducer({ producerGroup: 'PG_NET_EVENTS', namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1', sendMsgTimeout: 30_000 });
    const seen: Array<{ clientId: string; addr: string; code: number; responseCode: number | null; size: number; durationMs: number }> = [];
    producer.on('network.request', (e) => seen.push(e.payload));
    await producer.start();
    await producer.send(createMessage('T', 'hello'));
    const route = seen.find((e) => e.code === RequestCode.GET_ROUTEINFO_BY_TOPIC);
    const send = seen.find((e) => e.code === RequestCode.SEND_MESSAGE_V2);
    expect(route, 'a route request').to.not.equal(undefined);
    expect(route!.addr).to.equal(cluster.namesrvAddr);
    expect(send, 'a send request').to.not.equal(undefined);
    expect(send!.responseCode).to.equal(ResponseCode.SUCCESS);
    expect(send!.size).to.be.greaterThan(5);
    expect(send!.clientId).to.equal(producer.clientConfig.buildMQClientId());
  });

  it('maxInflightRequests: 1 queues concurrent sends, reports the queue, and still sends them all', async () => {
    producer = new DefaultMQProducer({
      producerGroup: 'PG_NET_QUEUE', namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1', sendMsgTimeout: 30_000, maxInflightRequests: 1,
    });
    const sizes: number[] = [];
    producer.on('network.request_queue_size', (e) => sizes.push(e.payload.size));
    await producer.start();
    await producer.send(createMessage('T', 'warm-up'));
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => producer!.send(createMessage('T', `m${i}`))));
    expect(results.map((r) => r.sendStatus)).to.deep.equal(Array(5).fill('SEND_OK'));
    expect(Math.max(...sizes)).to.be.at.least(1);
    // background requests (heartbeats, route polls) may still queue behind the sends: the queue empties in the end
    await waitFor(() => sizes[sizes.length - 1] === 0, 10_000, 'the request queue to empty');
  });
});
