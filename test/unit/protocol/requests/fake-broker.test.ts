/**
 * test/helpers/fake-broker.ts, the unit tests' broker at the request-module level: requests and answers go through
 * the frame codec and the modules' header codecs, a code without a handler is refused as a broker would.
 */
import { expect } from 'chai';
import { ResponseCode } from '../../../../protocol/code/response-code';
import { MQBrokerError } from '../../../../protocol/errors';
import { GetMaxOffset, PullMessage, UpdateConsumerOffset } from '../../../../protocol/requests/index';
import { call, callOneway } from '../../../../lib/client/request-invoker';
import { PullStatus, pullMessage } from '../../../../lib/client/mq-client-api-consumer';
import { FakeBroker } from '../../../helpers/fake-broker';

describe('test/helpers/fake-broker', () => {
  it('hands the handler the decoded request header and encodes its answer with the response header codec', async () => {
    const seen: unknown[] = [];
    const broker = new FakeBroker().on(GetMaxOffset, (h, _req, addr) => {
      seen.push({ ...h, addr });
      return { header: { offset: 9 } };
    });
    expect(await call(broker, 'b:1', GetMaxOffset, { topic: 'T', queueId: 3 }, 1000)).to.equal(9);
    expect(seen).to.deep.equal([{ topic: 'T', queueId: 3, addr: 'b:1' }]);
    expect(broker.calls).to.deep.equal([{ addr: 'b:1', code: GetMaxOffset.code, name: 'GET_MAX_OFFSET', oneway: false }]);
  });

  it('answers a code without a handler REQUEST_CODE_NOT_SUPPORTED; a oneway request is recorded, not answered', async () => {
    const broker = new FakeBroker();
    const err = await call(broker, 'b:1', GetMaxOffset, { topic: 'T', queueId: 0 }, 1000).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(MQBrokerError);
    expect((err as MQBrokerError).responseCode).to.equal(ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
    const commits: number[] = [];
    broker.on(UpdateConsumerOffset, (h) => { commits.push(h.commitOffset); return {}; });
    await callOneway(broker, 'b:1', UpdateConsumerOffset, { consumerGroup: 'G', topic: 'T', queueId: 0, commitOffset: 7 }, 1000);
    expect(commits).to.deep.equal([7]);
    expect(broker.calls[1]).to.include({ name: 'UPDATE_CONSUMER_OFFSET', oneway: true });
  });

  it('a pull answered PULL_NOT_FOUND reaches the client as NO_NEW_MSG with the header\'s offsets', async () => {
    const broker = new FakeBroker().on(PullMessage, (h) => ({
      code: ResponseCode.PULL_NOT_FOUND, header: { nextBeginOffset: h.queueOffset + 1, minOffset: 0, maxOffset: 12, suggestWhichBrokerId: 0 },
    }));
    const r = await pullMessage(broker, 'b:1', {
      consumerGroup: 'G', topic: 'T', queueId: 0, queueOffset: 4, maxMsgNums: 32, sysFlag: 0, commitOffset: 0, suspendTimeoutMillis: 0, subVersion: 0,
    }, 1000);
    expect(r).to.deep.include({ pullStatus: PullStatus.NO_NEW_MSG, nextBeginOffset: 5, maxOffset: 12, messageBinary: null });
  });
});
