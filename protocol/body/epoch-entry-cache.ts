/**
 * EpochEntryCache: a controller-mode broker's epoch file, the GET_BROKER_EPOCH_CACHE (1007) answer:
 * `{"brokerId":0,"brokerName":"b","clusterName":"c","epochList":[{"endOffset":9223372036854775807,"epoch":1,
 * "startOffset":0}],"maxOffset":2180}`. The last entry's end offset is Long.MAX_VALUE (open): it reads as
 * {@link EPOCH_ENTRY_OPEN_END} and is written back as Java's literal.
 *
 * @see org.apache.rocketmq.remoting.protocol.body.EpochEntryCache
 * @see org.apache.rocketmq.remoting.protocol.EpochEntry
 */
import { ProtocolError } from '../errors';
import { type JsonObject, asObject, int, objArr, parseBody, reqStr } from './body-util';
import { encodeFastjson } from './fastjson';

/** Java's Long.MAX_VALUE end offset of the open (last) entry, as a JS number. */
export const EPOCH_ENTRY_OPEN_END = Number.MAX_SAFE_INTEGER;
const JAVA_LONG_MAX = 9223372036854775807n;

export interface EpochEntryBody {
  epoch: number;
  startOffset: number;
  endOffset: number;
}

export interface EpochEntryCache {
  clusterName: string;
  brokerName: string;
  brokerId: number;
  epochList: EpochEntryBody[];
  maxOffset: number;
}

function longOf(o: JsonObject, k: string): number {
  const v = o[k];
  if (typeof v === 'bigint') {
    if (v >= BigInt(Number.MAX_SAFE_INTEGER)) return EPOCH_ENTRY_OPEN_END;
    throw new ProtocolError(`EpochEntryCache: ${k} ${v} out of range`);
  }
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (v === undefined || v === null) return 0;
  throw new ProtocolError(`EpochEntryCache: ${k} is not a long`);
}

export function decodeEpochEntryCache(buf: Buffer): EpochEntryCache {
  const o = parseBody(buf, 'EpochEntryCache');
  return {
    clusterName: reqStr(o, 'clusterName'),
    brokerName: reqStr(o, 'brokerName'),
    brokerId: longOf(o, 'brokerId'),
    epochList: objArr(o, 'epochList', (e) => {
      const x = asObject(e, 'epochList');
      return { epoch: int(x, 'epoch'), startOffset: longOf(x, 'startOffset'), endOffset: longOf(x, 'endOffset') };
    }),
    maxOffset: longOf(o, 'maxOffset'),
  };
}

export function encodeEpochEntryCache(c: EpochEntryCache): Buffer {
  return encodeFastjson({
    brokerId: c.brokerId,
    brokerName: c.brokerName,
    clusterName: c.clusterName,
    epochList: c.epochList.map((e) => ({
      endOffset: e.endOffset >= EPOCH_ENTRY_OPEN_END ? JAVA_LONG_MAX : e.endOffset, epoch: e.epoch, startOffset: e.startOffset,
    })),
    maxOffset: c.maxOffset,
  });
}
