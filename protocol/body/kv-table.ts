/**
 * A string-to-string table: `{"table":{...}}`. Broker runtime info (GET_BROKER_RUNTIME_INFO), the
 * REGISTER_BROKER response (order topic config) and the name server's KV listings.
 *
 * @see org.apache.rocketmq.common.protocol.body.KVTable
 */
import { asString, parseBody, stringMap } from './body-util';
import { encodeFastjson } from './fastjson';

export interface KVTable {
  table: Map<string, string>;
}

export function decodeKVTable(buf: Buffer): KVTable {
  return { table: stringMap(parseBody(buf, 'KVTable'), 'table', (v) => asString(v, 'table')) };
}

export function encodeKVTable(v: KVTable): Buffer {
  return encodeFastjson({ table: v.table });
}
