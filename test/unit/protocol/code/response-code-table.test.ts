import { expect } from 'chai';
import { ResponseCode } from '../../../../protocol/code/response-code';
import { RESPONSE_CODE_TABLE, createBrokerError, responseCodeInfo, retriableResponseCodes } from '../../../../protocol/code/response-code-table';
import { MQBrokerError } from '../../../../protocol/errors';
import { DEFAULT_RETRY_RESPONSE_CODES } from '../../../../lib/producer/default-mq-producer';

describe('protocol/code/response-code-table', () => {
  it('retriable is exactly Java 4.9.8 DefaultMQProducer.retryResponseCodes (SYSTEM_BUSY only from 5.x)', () => {
    expect(retriableResponseCodes().sort((a, b) => a - b)).to.deep.equal([
      ResponseCode.SYSTEM_ERROR, ResponseCode.SERVICE_NOT_AVAILABLE, ResponseCode.NO_PERMISSION, ResponseCode.TOPIC_NOT_EXIST,
      ResponseCode.NO_BUYER_ID, ResponseCode.NOT_IN_CURRENT_UNIT,
    ]);
    expect([...DEFAULT_RETRY_RESPONSE_CODES].sort((a, b) => a - b)).to.deep.equal(retriableResponseCodes());
    expect(responseCodeInfo(ResponseCode.SYSTEM_BUSY).retriable).to.equal(false);
  });

  it('lists every ResponseCode value once, in code order, under its Java name', () => {
    const values = new Set(Object.values(ResponseCode));
    expect(RESPONSE_CODE_TABLE.map((e) => e.code)).to.deep.equal([...values].sort((a, b) => a - b));
    expect(responseCodeInfo(17)).to.deep.equal({ code: 17, name: 'TOPIC_NOT_EXIST', retriable: true });
    expect(responseCodeInfo(209).name).to.equal('UPDATE_AND_CREATE_ACL_CONFIG_FAILED');
  });

  it('an unknown code is named UNKNOWN_RESPONSE_CODE_<n> and not retriable', () => {
    expect(responseCodeInfo(9999)).to.deep.equal({ code: 9999, name: 'UNKNOWN_RESPONSE_CODE_9999', retriable: false });
  });

  it('createBrokerError carries the table flag; options may override it', () => {
    const e = createBrokerError(ResponseCode.SERVICE_NOT_AVAILABLE, 'busy', '127.0.0.1:10911');
    expect(e).to.be.instanceOf(MQBrokerError);
    expect(e.retriable).to.equal(true);
    expect(e.message).to.equal('CODE: 14 DESC: busy BROKER: 127.0.0.1:10911');
    expect(createBrokerError(ResponseCode.MESSAGE_ILLEGAL, null).retriable).to.equal(false);
    expect(createBrokerError(ResponseCode.SYSTEM_ERROR, null, undefined, { retriable: false }).retriable).to.equal(false);
  });
});
