/**
 * REGISTER_BROKER (103) request body, in two forms chosen by the header's `compressed` flag.
 *
 * JSON form: `{"filterServerList":[...],"topicConfigSerializeWrapper":{...}}`.
 *
 * Compressed form (RegisterBrokerBody.encode(true) / decode(bytes, true)), one zlib stream (Java Deflater,
 * BEST_COMPRESSION, with the zlib header) over:
 *   int32 BE length | DataVersion JSON
 *   int32 BE topic count
 *   per topic: int32 BE length | TopicConfig.encode() text `name read write perm filterType`
 *              (topicSysFlag and order do not travel: the decoder gives them their defaults)
 *   int32 BE length | filterServerList JSON array
 *   5.x only: int32 BE count, then per entry int32 BE length | TopicQueueMappingInfo JSON
 *
 * @see org.apache.rocketmq.common.protocol.body.RegisterBrokerBody
 */
import zlib from 'node:zlib';
import { ProtocolError } from '../errors';
import { type JsonObject, asObject, parseBody, strArr } from './body-util';
import { decodeDataVersion, encodeDataVersion } from './data-version';
import { encodeFastjson, parseFastjson, toFastjson } from './fastjson';
import { topicConfigFromLine, topicConfigToLine } from './topic-config';
import {
  type TopicConfigSerializeWrapper, topicConfigSerializeWrapperFromJson, topicConfigSerializeWrapperToJson,
} from './topic-config-serialize-wrapper';

export interface RegisterBrokerBody {
  topicConfigSerializeWrapper: TopicConfigSerializeWrapper;
  filterServerList: string[];
  /** 5.x compressed form only: the TopicQueueMappingInfo entries, as parsed. */
  topicQueueMappingInfos?: unknown[];
}

export function registerBrokerBodyFromJson(o: JsonObject): RegisterBrokerBody {
  return {
    topicConfigSerializeWrapper: topicConfigSerializeWrapperFromJson(
      asObject(o.topicConfigSerializeWrapper ?? {}, 'topicConfigSerializeWrapper')),
    filterServerList: strArr(o, 'filterServerList'),
  };
}

export function registerBrokerBodyToJson(b: RegisterBrokerBody): JsonObject {
  return {
    filterServerList: b.filterServerList,
    topicConfigSerializeWrapper: topicConfigSerializeWrapperToJson(b.topicConfigSerializeWrapper),
  };
}

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
}

export function encodeRegisterBrokerBody(b: RegisterBrokerBody, compress = false): Buffer {
  if (!compress) return encodeFastjson(registerBrokerBodyToJson(b));
  const parts: Buffer[] = [];
  const put = (buf: Buffer): void => {
    parts.push(int32(buf.length), buf);
  };
  put(encodeDataVersion(b.topicConfigSerializeWrapper.dataVersion));
  parts.push(int32(b.topicConfigSerializeWrapper.topicConfigTable.size));
  for (const t of b.topicConfigSerializeWrapper.topicConfigTable.values()) put(Buffer.from(topicConfigToLine(t), 'utf8'));
  put(Buffer.from(toFastjson(b.filterServerList), 'utf8'));
  if (b.topicQueueMappingInfos !== undefined) {
    parts.push(int32(b.topicQueueMappingInfos.length));
    for (const info of b.topicQueueMappingInfos) put(Buffer.from(toFastjson(info), 'utf8'));
  }
  return zlib.deflateSync(Buffer.concat(parts), { level: zlib.constants.Z_BEST_COMPRESSION });
}

export function decodeRegisterBrokerBody(buf: Buffer, compressed = false): RegisterBrokerBody {
  if (!compressed) return registerBrokerBodyFromJson(parseBody(buf, 'RegisterBrokerBody'));
  let raw: Buffer;
  try {
    raw = zlib.inflateSync(buf);
  } catch (e) {
    throw new ProtocolError('compressed RegisterBrokerBody: bad zlib stream', { cause: e });
  }
  let pos = 0;
  const readInt = (): number => {
    if (pos + 4 > raw.length) throw new ProtocolError('compressed RegisterBrokerBody: truncated');
    const n = raw.readInt32BE(pos);
    pos += 4;
    return n;
  };
  const readBytes = (): Buffer => {
    const n = readInt();
    if (n < 0 || pos + n > raw.length) throw new ProtocolError('compressed RegisterBrokerBody: truncated');
    const b = raw.subarray(pos, pos + n);
    pos += n;
    return b;
  };
  const dataVersion = decodeDataVersion(readBytes());
  const topicConfigTable = new Map<string, ReturnType<typeof topicConfigFromLine>>();
  const count = readInt();
  for (let i = 0; i < count; i++) {
    const t = topicConfigFromLine(readBytes().toString('utf8'));
    topicConfigTable.set(t.topicName, t);
  }
  const fl = parseFastjson(readBytes().toString('utf8'));
  const filterServerList = strArr({ fl }, 'fl');
  const body: RegisterBrokerBody = { topicConfigSerializeWrapper: { topicConfigTable, dataVersion }, filterServerList };
  if (pos < raw.length) {
    const n = readInt();
    const infos: unknown[] = [];
    for (let i = 0; i < n; i++) infos.push(parseFastjson(readBytes().toString('utf8')));
    body.topicQueueMappingInfos = infos;
  }
  return body;
}
