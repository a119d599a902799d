import { expect } from 'chai';
import { RequestCode, requestCodeName } from '../../../../protocol/code/request-code';
import { ResponseCode, responseCodeName } from '../../../../protocol/code/response-code';

describe('protocol/code', () => {
  it('names request codes', () => {
    expect(requestCodeName(310)).to.equal('SEND_MESSAGE_V2');
    expect(requestCodeName(RequestCode.PULL_MESSAGE)).to.equal('PULL_MESSAGE');
    expect(RequestCode.CHECK_TRANSACTION_STATE).to.equal(39);
    expect(RequestCode.GET_ROUTEINFO_BY_TOPIC).to.equal(105);
    expect(RequestCode.UPDATE_AND_CREATE_ACL_CONFIG).to.equal(50); // 4.9.8 only
    expect(RequestCode.POP_MESSAGE).to.equal(200050); // 5.x addition
    expect(requestCodeName(999999)).to.equal('UNKNOWN_REQUEST_CODE_999999');
  });

  it('names response codes, the 4.9.8 name where 5.x reused a value', () => {
    expect(responseCodeName(19)).to.equal('PULL_NOT_FOUND');
    expect(responseCodeName(0)).to.equal('SUCCESS');
    expect(responseCodeName(ResponseCode.NO_PERMISSION)).to.equal('NO_PERMISSION');
    expect(ResponseCode.POLLING_FULL).to.equal(209);
    expect(responseCodeName(209)).to.equal('UPDATE_AND_CREATE_ACL_CONFIG_FAILED');
    expect(responseCodeName(-1000)).to.equal('RPC_UNKNOWN');
    expect(responseCodeName(12345)).to.equal('UNKNOWN_RESPONSE_CODE_12345');
  });

  it('request code names are unique per value', () => {
    const byValue = new Map<number, string>();
    for (const [name, code] of Object.entries(RequestCode)) {
      expect(byValue.has(code), `${name} and ${byValue.get(code)} share ${code}`).to.equal(false);
      byValue.set(code, name);
    }
  });
});
