/**
 * Replays the requests a real Java 4.9.8 client (DefaultMQProducer, DefaultMQPushConsumer, TransactionMQProducer,
 * mqadmin) sent to the Java broker, as captured in ../shared/golden/frames, into OUR broker over a real socket, and
 * compares our answers with the Java broker's captured answers.
 *
 * A captured request goes out as captured (same code, version, language, flag, serialize type, extFields and body);
 * only these are rewritten:
 * - the Java broker address `127.0.0.1:20911` in extFields and bodies becomes ours;
 * - values that point into the Java broker's store (commit-log offsets, offset msgIds, queue offsets of half
 *   messages) become the values our broker answered earlier for the same message (see {@link OffsetMap});
 * - a PULL_MESSAGE's suspendTimeoutMillis (15 s) becomes {@link REPLAY_SUSPEND_MILLIS} so a held pull comes back
 *   quickly; the hold path is still taken.
 *
 * Comparison ({@link compareResponse}) yields a list of differences: the same response code, the same set of
 * extFields keys with values of the same kind, equal values where both stores hold the same messages, and bodies
 * that decode to equivalent values. Tests assert that list equals the documented intended differences.
 */
import { RemotingCommand, SerializeType } from '../../../protocol/remoting-command';
import { OUR_ONLY_BROKER_CONFIG_KEYS } from '../../helpers/broker-config-keys';
import { RequestCode } from '../../../protocol/code/request-code';
import { decodeMessages } from '../../../protocol/message/message-decoder';
import type { MessageExt } from '../../../protocol/message/message';
import { decodeOffsetMessageId } from '../../../protocol/message/message-id';
import { FastjsonMap, JavaDouble, parseFastjson } from '../../../protocol/body/fastjson';
import { RemotingClient } from '../../../lib/transport/remoting-client';
import { frameIndex, type GoldenFrameEntry, readFrame } from '../../helpers/golden';

export const JAVA_BROKER_ADDR = '127.0.0.1:20911';
export const REPLAY_SUSPEND_MILLIS = 50;

export interface CapturedExchange {
  file: string;
  request: RemotingCommand;
  /** null for a oneway request, or a request the capture ended before answering. */
  response: RemotingCommand | null;
}

function decodeFile(scenario: string, file: string): RemotingCommand {
  return RemotingCommand.decodeFrame(readFrame(scenario, file));
}

function connOf(e: GoldenFrameEntry): string {
  return e.file.split('/')[0];
}

/** The client-to-broker connections of a scenario (server port 20911), each with its exchanges in capture order. */
export function brokerConnections(scenario: string): Map<string, CapturedExchange[]> {
  const index = frameIndex(scenario).filter((e) => e.serverPort === 20911);
  const out = new Map<string, CapturedExchange[]>();
  const requests = index.filter((e) => e.dir === 'c2s' && ((e.header.flag as number) & 1) === 0).sort((a, b) => a.file.localeCompare(b.file));
  for (const e of requests) {
    const resp = index.find((r) => connOf(r) === connOf(e) && r.dir === 's2c' && ((r.header.flag as number) & 1) === 1 && r.header.opaque === e.header.opaque);
    const list = out.get(connOf(e)) ?? [];
    list.push({ file: e.file, request: decodeFile(scenario, e.file), response: resp ? decodeFile(scenario, resp.file) : null });
    out.set(connOf(e), list);
  }
  return out;
}

/** Java-store values → ours, learned from our answers as the replay goes. */
export class OffsetMap {
  /** Java commit-log offset → ours. */
  readonly phy = new Map<number, number>();
  /** Java offset msgId → ours. */
  readonly msgId = new Map<string, string>();
  /** `${topic}/${queueId}/${javaQueueOffset}` → our queue offset. */
  readonly queue = new Map<string, number>();
  /**
   * UNIQ_KEY of a half message → where OUR store holds it now (commit-log offset and half-queue offset): from our
   * answer to its send, then from each CHECK_TRANSACTION_STATE our broker sends (a check re-puts the half message).
   */
  readonly half = new Map<string, { commitLogOffset: number; tranStateTableOffset: number }>();

  learnMsgIds(javaIds: string, ourIds: string): void {
    const j = javaIds.split(',');
    const o = ourIds.split(',');
    j.forEach((id, i) => {
      if (!o[i]) return;
      this.msgId.set(id, o[i]);
      this.phy.set(decodeOffsetMessageId(id).offset, decodeOffsetMessageId(o[i]).offset);
    });
  }

  learnMessages(java: MessageExt[], ours: MessageExt[]): void {
    java.forEach((m, i) => {
      const o = ours[i];
      if (!o) return;
      this.phy.set(m.commitLogOffset, o.commitLogOffset);
      this.msgId.set(m.offsetMsgId, o.offsetMsgId);
    });
  }
}

/** Kind of an extFields value, for comparing values that must differ between two stores. */
export function valueKind(v: string | undefined): string {
  if (v === undefined) return 'absent';
  if (v === '') return 'empty';
  if (/^-?\d+$/.test(v)) return 'integer';
  if (v === 'true' || v === 'false') return 'boolean';
  if (/^[0-9A-F]{32}(,[0-9A-F]{32})*$/.test(v)) return v.includes(',') ? 'offsetMsgId-list' : 'offsetMsgId';
  if (/^[0-9A-F]{56}$/.test(v)) return 'uniqId-v6';
  return 'string';
}

/** Store-specific properties a pulled message carries that depend on which broker stored it and when. */
const STORE_SPECIFIC_PROPERTIES = new Set(['MIN_OFFSET', 'MAX_OFFSET', 'CONSUME_START_TIME']);

/** Properties holding an offset msgId of the storing broker. */
const OFFSET_MSG_ID_PROPERTIES = new Set(['ORIGIN_MESSAGE_ID']);

export interface ComparableMessage {
  topic: string;
  queueId: number;
  queueOffset: number;
  tags: string | undefined;
  keys: string | undefined;
  body: string;
  sysFlag: number;
  flag: number;
  reconsumeTimes: number;
  properties: Record<string, string>;
}

export function comparable(m: MessageExt): ComparableMessage {
  const properties: Record<string, string> = {};
  // Sorted: the stored order is a Java HashMap's (a broker re-encodes the map after adding CLUSTER).
  for (const k of Object.keys(m.properties).sort()) {
    if (STORE_SPECIFIC_PROPERTIES.has(k)) continue;
    // an offset msgId names the store host and commit-log offset: only its form can match
    properties[k] = OFFSET_MSG_ID_PROPERTIES.has(k) ? valueKind(m.properties[k]) : m.properties[k];
  }
  return {
    topic: m.topic,
    queueId: m.queueId,
    queueOffset: m.queueOffset,
    tags: m.properties.TAGS,
    keys: m.properties.KEYS,
    body: Buffer.from(m.body).toString('base64'),
    sysFlag: m.sysFlag,
    flag: m.flag,
    reconsumeTimes: m.reconsumeTimes,
    properties,
  };
}

/** The shape of a fastjson value: objects keep their (sorted) keys, arrays their element shapes, leaves their type. */
export function shapeOf(v: unknown): unknown {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return [...new Set(v.map((x) => JSON.stringify(shapeOf(x))))].sort().map((s) => JSON.parse(s) as unknown);
  if (v instanceof FastjsonMap) {
    const shapes = v.entries.map(([k, x]) => JSON.stringify([shapeOf(k), shapeOf(x)]));
    return { '<map>': [...new Set(shapes)].sort().map((s) => JSON.parse(s) as unknown) };
  }
  if (v instanceof JavaDouble) return 'number';
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(o).sort()) out[k] = shapeOf(o[k]);
    return out;
  }
  if (typeof v === 'number' || typeof v === 'bigint') return 'number';
  return typeof v;
}

export interface Difference {
  file: string;
  what: string;
}

export interface CompareOptions {
  /** extFields whose values must be equal, not only of the same kind (default: none). */
  equalFields?: readonly string[];
  /** Compare the body with this instead of the default (null when bodies are equal enough). */
  body?: (ours: Buffer | null, java: Buffer | null) => string | null;
}

/** Differences between our answer and Java's to the same request (empty when equivalent). */
export function compareResponse(file: string, ours: RemotingCommand, java: RemotingCommand, options: CompareOptions = {}): Difference[] {
  const d: Difference[] = [];
  const add = (what: string): void => {
    d.push({ file, what });
  };
  if (ours.code !== java.code) add(`code ${ours.code} (${ours.remark ?? ''}) vs Java ${java.code} (${java.remark ?? ''})`);
  if (ours.serializeType !== java.serializeType) add(`serializeType ${ours.serializeType} vs Java ${java.serializeType}`);
  const ok = Object.keys(ours.extFields ?? {}).sort();
  const jk = Object.keys(java.extFields ?? {}).sort();
  if (ok.join(',') !== jk.join(',')) add(`extFields keys [${ok.join(',')}] vs Java [${jk.join(',')}]`);
  for (const k of jk) {
    const ov = ours.extFields?.[k];
    const jv = java.extFields?.[k];
    if (ov === undefined) continue;
    if (valueKind(ov) !== valueKind(jv)) add(`extFields.${k} kind ${valueKind(ov)} (${ov}) vs Java ${valueKind(jv)} (${jv})`);
    else if (options.equalFields?.includes(k) && ov !== jv) add(`extFields.${k} ${ov} vs Java ${jv}`);
  }
  const bodyDiff = options.body ? options.body(ours.body, java.body) : defaultBodyCompare(ours.body, java.body);
  if (bodyDiff) add(bodyDiff);
  return d;
}

function parseBody(b: Buffer): unknown {
  return parseFastjson(b.toString('utf8'));
}

/** Bodies present on both sides or neither; JSON bodies of the same shape. */
export function defaultBodyCompare(ours: Buffer | null, java: Buffer | null): string | null {
  const on = !ours || ours.length === 0;
  const jn = !java || java.length === 0;
  if (on !== jn) return `body ${on ? 'absent' : 'present'} vs Java ${jn ? 'absent' : 'present'}`;
  if (on || jn) return null;
  let os: unknown;
  let js: unknown;
  try {
    js = shapeOf(parseBody(java!));
  } catch {
    return null; // not JSON: the caller compares it
  }
  try {
    os = shapeOf(parseBody(ours!));
  } catch (err) {
    return `body is not fastjson: ${(err as Error).message}`;
  }
  if (JSON.stringify(os) !== JSON.stringify(js)) return `body shape ${JSON.stringify(os)} vs Java ${JSON.stringify(js)}`;
  return null;
}

/** Pull bodies: the same messages (see {@link comparable}). */
export function pullBodyCompare(ours: Buffer | null, java: Buffer | null): string | null {
  const o = ours && ours.length ? decodeMessages(ours).map(comparable) : [];
  const j = java && java.length ? decodeMessages(java).map(comparable) : [];
  if (o.length !== j.length) return `pulled ${o.length} messages vs Java ${j.length}: ${o.map((m) => `${m.topic}/${m.queueId}/${m.queueOffset}`)} vs ${j.map((m) => `${m.topic}/${m.queueId}/${m.queueOffset}`)}`;
  for (let i = 0; i < o.length; i++) {
    const a = JSON.stringify(o[i]);
    const b = JSON.stringify(j[i]);
    if (a !== b) return `pulled message ${i} differs: ${a} vs Java ${b}`;
  }
  return null;
}

/** Replaces the Java broker's address with ours in every extFields value. */
export function rewriteAddr(cmd: RemotingCommand, ourAddr: string): void {
  if (!cmd.extFields) return;
  for (const [k, v] of Object.entries(cmd.extFields)) if (v.includes(JAVA_BROKER_ADDR)) cmd.extFields[k] = v.split(JAVA_BROKER_ADDR).join(ourAddr);
  if (cmd.body && cmd.body.includes(JAVA_BROKER_ADDR)) cmd.body = Buffer.from(cmd.body.toString('utf8').split(JAVA_BROKER_ADDR).join(ourAddr));
}

/** One replayed connection: a RemotingClient of its own (its own socket, so its own channel on the broker). */
export class ReplayConnection {
  readonly client = new RemotingClient();
  /** CHECK_TRANSACTION_STATE requests our broker sent on this connection. */
  readonly checks: RemotingCommand[] = [];

  constructor(readonly addr: string, offsets?: OffsetMap) {
    this.client.registerProcessor(RequestCode.CHECK_TRANSACTION_STATE, (request) => {
      this.checks.push(request);
      const x = request.extFields ?? {};
      if (offsets && x.msgId) offsets.half.set(x.msgId, { commitLogOffset: Number(x.commitLogOffset), tranStateTableOffset: Number(x.tranStateTableOffset) });
      return null;
    });
  }

  /** Sends a captured request (after rewriting) and returns our answer (null for oneway). */
  async send(request: RemotingCommand): Promise<RemotingCommand | null> {
    if (request.isOneway) {
      await this.client.invokeOneway(this.addr, request, 5000);
      return null;
    }
    const timeout = request.code === RequestCode.PULL_MESSAGE ? Number(request.extFields?.suspendTimeoutMillis ?? 0) + 5000 : 5000;
    return this.client.invoke(this.addr, request, timeout);
  }

  close(): Promise<void> {
    return this.client.shutdown();
  }
}

/** Decoded messages of a pull body (empty for none). */
export function pulled(body: Buffer | null): MessageExt[] {
  return body && body.length ? decodeMessages(body) : [];
}

export function isBinary(cmd: RemotingCommand): boolean {
  return cmd.serializeType === SerializeType.ROCKETMQ;
}

/** Value formats of GET_BROKER_RUNTIME_INFO entries that Java's tools parse (clusterList, brokerStatus, statsAll). */
const RUNTIME_VALUE_FORMATS: Record<string, RegExp> = {
  brokerVersion: /^\d+$/,
  brokerVersionDesc: /^V\d+_\d+_\d+/,
  bootTimestamp: /^\d+$/,
  runtime: /^\[ \d+ days, \d+ hours, \d+ minutes, \d+ seconds \]$/,
  msgPutTotalTodayNow: /^\d+$/,
  msgGetTotalTodayNow: /^\d+$/,
  msgPutTotalTodayMorning: /^\d+$/,
  msgGetTotalTodayMorning: /^\d+$/,
  msgPutTotalYesterdayMorning: /^\d+$/,
  msgGetTotalYesterdayMorning: /^\d+$/,
  commitLogDiskRatio: /^-?\d+(\.\d+)?(E-?\d+)?$/,
  consumeQueueDiskRatio: /^-?\d+(\.\d+)?(E-?\d+)?$/,
  commitLogMinOffset: /^-?\d+$/,
  commitLogMaxOffset: /^\d+$/,
  earliestMessageTimeStamp: /^-?\d+$/,
  putMessageTimesTotal: /^\d+$/,
  putMessageSizeTotal: /^\d+$/,
  putMessageAverageSize: /^\d+\.\d+(E-?\d+)?$/,
  // "  " before the first sample, then up to three space-separated numbers
  putTps: /^( *|[\d.E-]+( [\d.E-]+){0,2} ?)$/,
  getTransferedTps: /^( *|[\d.E-]+( [\d.E-]+){0,2} ?)$/,
  getFoundTps: /^( *|[\d.E-]+( [\d.E-]+){0,2} ?)$/,
  getMissTps: /^( *|[\d.E-]+( [\d.E-]+){0,2} ?)$/,
  getTotalTps: /^( *|[\d.E-]+( [\d.E-]+){0,2} ?)$/,
  remainHowManyDataToFlush: /^\d+(\.\d)? [KMGTPE]?i?B$/,
  commitLogDirCapacity: /^Total : \d+(\.\d)? [KMGTPE]?i?B, Free : \d+(\.\d)? [KMGTPE]?i?B\.$/,
  startAcceptSendRequestTimeStamp: /^\d+$/,
  dispatchBehindBytes: /^\d+$/,
  pageCacheLockTimeMills: /^\d+$/,
};

function runtimeKey(k: string): string {
  if (k.startsWith('commitLogDiskRatio_')) return 'commitLogDiskRatio_<commitlog dir>';
  if (/^scheduleMessageOffset_\d+$/.test(k)) return 'scheduleMessageOffset_<level>';
  return k;
}

/** GET_BROKER_RUNTIME_INFO bodies: the same keys (paths and delay levels aside), values in the formats Java parses. */
export function runtimeInfoCompare(ours: Buffer | null, java: Buffer | null): string | null {
  if (!ours || !java) return ours === java ? null : 'runtime info body missing';
  const table = (b: Buffer): Record<string, string> => (JSON.parse(b.toString('utf8')) as { table: Record<string, string> }).table;
  const o = table(ours);
  const j = table(java);
  const ok = [...new Set(Object.keys(o).map(runtimeKey))].filter((k) => k !== 'scheduleMessageOffset_<level>').sort();
  const jk = [...new Set(Object.keys(j).map(runtimeKey))].filter((k) => k !== 'scheduleMessageOffset_<level>').sort();
  const problems: string[] = [];
  if (ok.join(',') !== jk.join(',')) problems.push(`keys [${ok.filter((k) => !jk.includes(k))}] only ours, [${jk.filter((k) => !ok.includes(k))}] only Java's`);
  for (const [k, re] of Object.entries(RUNTIME_VALUE_FORMATS)) {
    if (j[k] !== undefined && !re.test(j[k])) problems.push(`format of ${k} does not fit Java's own ${JSON.stringify(j[k])}`);
    if (o[k] !== undefined && !re.test(o[k])) problems.push(`${k}=${JSON.stringify(o[k])} not in Java's format`);
  }
  for (const [k, v] of Object.entries(o)) if (/^scheduleMessageOffset_\d+$/.test(k) && !/^\d+,\d+$/.test(v)) problems.push(`${k}=${v}`);
  return problems.length ? `runtime info: ${problems.join('; ')}` : null;
}

/** Options our broker has that a 4.9.8 broker does not print (ours only; a Java tool just lists them). */

/**
 * GET_BROKER_CONFIG bodies: `key=value` lines as Java's MixAll.string2Properties reads them. Ours prints the
 * options our broker has (fewer than Java's 178: thread-pool, netty, HA and other options it does not implement);
 * every key we print must be one Java prints too, except {@link OUR_ONLY_BROKER_CONFIG_KEYS}.
 */
export function brokerConfigCompare(ours: Buffer | null, java: Buffer | null): string | null {
  if (!ours || !java) return ours === java ? null : 'broker config body missing';
  const keys = (b: Buffer): string[] => b.toString('utf8').split('\n').filter((l) => l.trim() !== '').map((l) => {
    const i = l.indexOf('=');
    return i > 0 ? l.slice(0, i) : `<not a property line: ${l}>`;
  });
  const j = new Set(keys(java));
  const unknown = keys(ours).filter((k) => !j.has(k) && !OUR_ONLY_BROKER_CONFIG_KEYS.includes(k));
  return unknown.length ? `broker config keys Java does not print: ${unknown.join(', ')}` : null;
}
