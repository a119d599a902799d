/**
 * The controller's DLedger entries byte for byte as Java 5.3.3's EventSerializer writes them (the expected texts
 * were printed by org.apache.rocketmq.controller.impl.event.EventSerializer from ../shared/javaref/5.3.3's jars).
 */
import { expect } from 'chai';
import { type EventMessage, EventType, deserializeEvent, serializeEvent } from '../../../lib/controller/event-serializer';
import { ProtocolError } from '../../../protocol/errors';

const JAVA: Array<[EventMessage, number, string]> = [
  [{ eventType: 'ALTER_SYNC_STATE_SET_EVENT', brokerName: 'b<1>', newSyncStateSet: [2, 1] }, 1,
    '{"brokerName":"b\\u003C1\\u003E","eventType":"ALTER_SYNC_STATE_SET_EVENT","newSyncStateSet":[1,2]}'],
  [{ eventType: 'APPLY_BROKER_ID_EVENT', clusterName: 'c', brokerName: 'b', brokerAddress: '127.0.0.1:1', newBrokerId: 1, registerCheckCode: '127.0.0.1:1;123' }, 2,
    '{"brokerAddress":"127.0.0.1:1","brokerName":"b","clusterName":"c","eventType":"APPLY_BROKER_ID_EVENT","newBrokerId":1,"registerCheckCode":"127.0.0.1:1;123"}'],
  [{ eventType: 'ELECT_MASTER_EVENT', brokerName: 'b', newMasterElected: true, newMasterBrokerId: 2 }, 3,
    '{"brokerName":"b","eventType":"ELECT_MASTER_EVENT","newMasterBrokerId":2,"newMasterElected":true}'],
  [{ eventType: 'ELECT_MASTER_EVENT', brokerName: 'b', newMasterElected: false, newMasterBrokerId: null }, 3,
    '{"brokerName":"b","eventType":"ELECT_MASTER_EVENT","newMasterElected":false}'],
  [{ eventType: 'CLEAN_BROKER_DATA_EVENT', brokerName: 'b', brokerIdSetToClean: [3] }, 5,
    '{"brokerIdSetToClean":[3],"brokerName":"b","eventType":"CLEAN_BROKER_DATA_EVENT"}'],
  [{ eventType: 'CLEAN_BROKER_DATA_EVENT', brokerName: 'b', brokerIdSetToClean: null }, 5,
    '{"brokerName":"b","eventType":"CLEAN_BROKER_DATA_EVENT"}'],
  [{ eventType: 'UPDATE_BROKER_ADDRESS', clusterName: 'c', brokerName: 'b', brokerAddress: '127.0.0.1:2', brokerId: 1 }, 6,
    '{"brokerAddress":"127.0.0.1:2","brokerId":1,"brokerName":"b","clusterName":"c","eventType":"UPDATE_BROKER_ADDRESS"}'],
];

describe('controller: event serializer (Java impl/event/EventSerializer)', () => {
  for (const [event, type, json] of JAVA) {
    it(`${event.eventType}: 2-byte type ${type} + fastjson as Java writes it, and back`, () => {
      const bytes = serializeEvent(event);
      expect(bytes.readInt16BE(0)).to.equal(type);
      expect(bytes.subarray(2).toString('utf8')).to.equal(json);
      const back = deserializeEvent(bytes)!;
      const expected = { ...event } as EventMessage;
      if (expected.eventType === 'ALTER_SYNC_STATE_SET_EVENT') expected.newSyncStateSet = [...expected.newSyncStateSet].sort((a, b) => a - b);
      expect(back).to.deep.equal(expected);
    });
  }

  it("escapes what SerializerFeature.BrowserSecure escapes (Java's output for the same strings)", () => {
    const bytes = serializeEvent({ eventType: 'APPLY_BROKER_ID_EVENT', clusterName: 'c(x)', brokerName: 'b/é"\\\n\u2028&\'', brokerAddress: 'a', newBrokerId: 1, registerCheckCode: '<>' });
    expect(bytes.subarray(2).toString('utf8')).to.equal(
      '{"brokerAddress":"a","brokerName":"b/é\\"\\\\\\n\u2028&\'","clusterName":"c\\u0028x\\u0029","eventType":"APPLY_BROKER_ID_EVENT","newBrokerId":1,"registerCheckCode":"\\u003C\\u003E"}');
    expect(deserializeEvent(bytes)).to.deep.include({ clusterName: 'c(x)', registerCheckCode: '<>' });
  });

  it('skips the empty entry, READ_EVENT and types of later versions; refuses a malformed body', () => {
    expect(deserializeEvent(Buffer.alloc(0))).to.equal(null);
    const read = Buffer.from([0, EventType.READ_EVENT, 0x7b, 0x7d]);
    expect(deserializeEvent(read)).to.equal(null);
    expect(deserializeEvent(Buffer.from([0, 9, 0x7b, 0x7d]))).to.equal(null);
    expect(() => deserializeEvent(Buffer.concat([Buffer.from([0, 3]), Buffer.from('{"brokerName":')]))).to.throw(ProtocolError);
  });
});
