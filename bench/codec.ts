/**
 * Codec micro-benchmarks: a SEND_MESSAGE_V2 request with a 1 KiB body (header with the short keys a..n, both
 * serializers), and the decoding of a 32-message PULL_MESSAGE response body.
 */
import { RemotingCommand, SerializeType } from '../protocol/remoting-command';
import { RequestCode } from '../protocol/code/request-code';
import {
  createMessage, createUniqId, decodeMessages, encodeStoredMessage, propertiesToString, stringToProperties,
} from '../protocol/message/index';
import { measure, type BenchResult, type MeasureOptions } from './bench-util';

const BODY_1K = Buffer.alloc(1024, 'x');

function sendMessageV2Request(serializeType: SerializeType): RemotingCommand {
  const msg = createMessage('BenchTopic', BODY_1K, { tags: 'TagA', keys: 'key-1' });
  msg.properties.UNIQ_KEY = createUniqId();
  const cmd = RemotingCommand.createRequest(
    RequestCode.SEND_MESSAGE_V2,
    {
      a: 'PG_BENCH', b: 'BenchTopic', c: 'TBW102', d: '4', e: '1', f: '0', g: String(Date.now()), h: '0',
      i: propertiesToString(msg.properties), j: '0', k: 'false', m: 'false', n: 'broker-a',
    },
    msg.body,
  );
  cmd.serializeType = serializeType;
  return cmd;
}

function pullBody(count: number, bodySize: number): Buffer {
  const records: Buffer[] = [];
  let commitLogOffset = 0;
  for (let i = 0; i < count; i++) {
    const rec = encodeStoredMessage({
      topic: 'BenchTopic', properties: { KEYS: `key-${i}`, UNIQ_KEY: createUniqId(), WAIT: 'true', TAGS: 'TagA', CLUSTER: 'DefaultCluster' },
      body: Buffer.alloc(bodySize, 'y'), queueId: 1, queueOffset: i, commitLogOffset, bornTimestamp: Date.now(),
      bornHost: { address: '127.0.0.1', port: 50000 }, storeTimestamp: Date.now(), storeHost: { address: '127.0.0.1', port: 10911 },
    });
    commitLogOffset += rec.length;
    records.push(rec);
  }
  return Buffer.concat(records);
}

export async function runCodecBench(options: MeasureOptions = {}): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  for (const [label, type] of [['json', SerializeType.JSON], ['rocketmq', SerializeType.ROCKETMQ]] as const) {
    const cmd = sendMessageV2Request(type);
    const frame = cmd.encode();
    results.push(measure(`codec.send-v2.encode.${label}`, () => sendMessageV2Request(type).encode(), {
      ...options, note: `${frame.length} B frame, includes building the message`,
    }));
    results.push(measure(`codec.send-v2.decode.${label}`, () => {
      const c = RemotingCommand.decodeFrame(frame);
      return stringToProperties(c.extFields!.i);
    }, { ...options, note: 'frame + header + properties' }));
  }
  const body = pullBody(32, 1024);
  results.push(measure('codec.pull-body.decode.32x1KiB', () => decodeMessages(body), {
    ...options, note: `${body.length} B, 32 messages per op`,
  }));
  results.push(measure('codec.pull-body.decode.32x1KiB.noBody', () => decodeMessages(body, { readBody: false }), {
    ...options, note: 'readBody: false',
  }));
  return results;
}
