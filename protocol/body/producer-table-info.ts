/**
 * GET_ALL_PRODUCER_INFO (328) response body: every producer group of the broker with its instances,
 * `{"data":{"<group>":[{"clientId":..,"language":"JAVA","lastUpdateTimestamp":..,"remoteIP":"/127.0.0.1:5432","version":..}]}}`.
 *
 * @see org.apache.rocketmq.common.protocol.body.ProducerTableInfo
 * @see org.apache.rocketmq.common.protocol.body.ProducerInfo
 */
import { asObject, long, parseBody, reqStr } from './body-util';
import { encodeFastjson } from './fastjson';

export interface ProducerInfo {
  clientId: string;
  /** Java's InetSocketAddress.toString of the producer's connection: `/host:port`. */
  remoteIP: string;
  /** LanguageCode name. */
  language: string;
  version: number;
  lastUpdateTimestamp: number;
}

export interface ProducerTableInfo {
  /** Group → instances (a Java HashMap). */
  data: Map<string, ProducerInfo[]>;
}

/** ProducerInfo.toString (4.9.8 spells it without a space after the first comma). */
export function producerInfoToString(p: ProducerInfo): string {
  return `clientId=${p.clientId},remoteIP=${p.remoteIP}, language=${p.language}, version=${p.version}, lastUpdateTimestamp=${p.lastUpdateTimestamp}`;
}

export function decodeProducerTableInfo(buf: Buffer): ProducerTableInfo {
  const o = parseBody(buf, 'ProducerTableInfo');
  const data = new Map<string, ProducerInfo[]>();
  const raw = o.data === undefined || o.data === null ? {} : asObject(o.data, 'ProducerTableInfo.data');
  for (const [group, list] of Object.entries(raw)) {
    data.set(group, (Array.isArray(list) ? list : []).map((x) => {
      const p = asObject(x, 'ProducerInfo');
      return {
        clientId: reqStr(p, 'clientId'), remoteIP: reqStr(p, 'remoteIP'), language: reqStr(p, 'language'),
        version: long(p, 'version'), lastUpdateTimestamp: long(p, 'lastUpdateTimestamp'),
      };
    }));
  }
  return { data };
}

export function encodeProducerTableInfo(t: ProducerTableInfo): Buffer {
  const data: Record<string, unknown[]> = {};
  for (const [group, list] of t.data) {
    data[group] = list.map((p) => ({
      clientId: p.clientId, language: p.language, lastUpdateTimestamp: p.lastUpdateTimestamp, remoteIP: p.remoteIP, version: p.version,
    }));
  }
  return encodeFastjson({ data });
}
