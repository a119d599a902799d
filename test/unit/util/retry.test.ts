import { expect } from 'chai';
import { retry, isRetriable } from '../../../lib/util/retry';
import { sendRetryDecision } from '../../../lib/producer/default-mq-producer';
import { CommunicationMode } from '../../../lib/client/send-result';
import {
  MQBrokerError, MQClientError, ProtocolError, RemotingConnectError, RemotingTimeoutError, RemotingTooMuchRequestError,
} from '../../../lib/errors';

describe('lib/util/retry', () => {
  it('retries by the retriable flag by default and stops at the attempt count', async () => {
    let calls = 0;
    const out = await retry(async () => {
      calls++;
      throw new RemotingConnectError('x:1');
    }, { attempts: 3 });
    expect(calls).to.equal(3);
    expect(out.end).to.equal('exhausted');
    expect(out.attempts).to.equal(3);
    expect(out.lastError).to.be.instanceOf(RemotingConnectError);
  });

  it('rethrows a non-retriable error at once', async () => {
    let calls = 0;
    const err = await retry(async () => {
      calls++;
      throw new ProtocolError('bad');
    }, { attempts: 3 }).then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(ProtocolError);
    expect(calls).to.equal(1);
  });

  it('accepts the first result, or keeps a refused one as the fallback', async () => {
    expect(await retry(async (n) => n, { attempts: 3 })).to.include({ result: 0, end: 'accepted', attempts: 1 });
    const out = await retry(async (n) => n, { attempts: 3, accept: (r) => r === 5 });
    expect(out).to.include({ result: 2, hasResult: true, end: 'exhausted', attempts: 3 });
  });

  it('ends with budget when beforeAttempt refuses, stopped when onError says stop', async () => {
    let calls = 0;
    const budget = await retry(async () => { calls++; throw new RemotingTimeoutError('x:1', 1); }, { attempts: 5, beforeAttempt: (n) => n < 2 });
    expect(budget).to.include({ end: 'budget', attempts: 2 });
    expect(calls).to.equal(2);
    const stopped = await retry(async () => { throw new RemotingTooMuchRequestError('full'); }, { attempts: 5, onError: () => 'stop' });
    expect(stopped).to.include({ end: 'stopped', attempts: 0 });
  });

  it('isRetriable reads the flag of our errors only', () => {
    expect(isRetriable(new RemotingTimeoutError('x:1', 1))).to.equal(true);
    expect(isRetriable(new MQClientError(1, 'x'))).to.equal(false);
    expect(isRetriable(new Error('x'))).to.equal(false);
  });
});

describe('sendRetryDecision (Java DefaultMQProducerImpl.sendDefaultImpl / MQClientAPIImpl.onExceptionImpl)', () => {
  const codes = new Set([17, 14, 1, 16, 204, 205]);
  const { SYNC, ASYNC } = CommunicationMode;
  const cases: Array<[string, unknown, CommunicationMode, boolean, string]> = [
    ['too many requests ends the loop', new RemotingTooMuchRequestError('x'), SYNC, false, 'stop'],
    ['sync: a network failure retries', new RemotingConnectError('x:1'), SYNC, false, 'retry'],
    ['sync: a retry code retries', new MQBrokerError(17, null), SYNC, false, 'retry'],
    ['sync: another broker code throws', new MQBrokerError(13, null), SYNC, false, 'throw'],
    ['sync: another broker code after a not-OK result stops (the result is returned)', new MQBrokerError(13, null), SYNC, true, 'stop'],
    ['sync: a client error retries', new MQClientError(-1, 'x'), SYNC, false, 'retry'],
    ['sync: a foreign error throws', new TypeError('x'), SYNC, false, 'throw'],
    ['async: a timeout retries', new RemotingTimeoutError('x:1', 1), ASYNC, false, 'retry'],
    ['async: a broker code throws, even a retry code', new MQBrokerError(17, null), ASYNC, false, 'throw'],
    ['async: a client error throws', new MQClientError(-1, 'x'), ASYNC, false, 'throw'],
  ];
  for (const [what, err, mode, haveResult, expected] of cases) {
    it(what, () => expect(sendRetryDecision(err, mode, codes, haveResult)).to.equal(expected));
  }
});
