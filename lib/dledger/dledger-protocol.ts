/**
 * DLedger's peer protocol: request codes, response codes and the JSON bodies (fastjson: fields in alphabetical
 * order, byte[] as base64, enums by name) that DLedgerRpcNettyService puts in a RemotingCommand body.
 *
 * @see io.openmessaging.storage.dledger.protocol.DLedgerRequestCode
 * @see io.openmessaging.storage.dledger.protocol.DLedgerResponseCode
 * @see io.openmessaging.storage.dledger.DLedgerRpcNettyService
 */
import type { DLedgerEntry } from './dledger-entry';

export const DLedgerRequestCode = {
  METADATA: 50000,
  APPEND: 50001,
  GET: 50002,
  VOTE: 51001,
  HEART_BEAT: 51002,
  PULL: 51003,
  PUSH: 51004,
  LEADERSHIP_TRANSFER: 51005,
} as const;

export const DLedgerResponseCode = {
  UNKNOWN: -1,
  SUCCESS: 200,
  TIMEOUT: 300,
  METADATA_ERROR: 301,
  NETWORK_ERROR: 302,
  UNSUPPORTED: 303,
  UNKNOWN_GROUP: 400,
  UNKNOWN_MEMBER: 401,
  UNEXPECTED_MEMBER: 402,
  EXPIRED_TERM: 403,
  NOT_LEADER: 404,
  NOT_FOLLOWER: 405,
  INCONSISTENT_STATE: 406,
  INCONSISTENT_TERM: 407,
  INCONSISTENT_INDEX: 408,
  INCONSISTENT_LEADER: 409,
  INDEX_OUT_OF_RANGE: 410,
  UNEXPECTED_ARGUMENT: 411,
  REPEATED_REQUEST: 412,
  REPEATED_PUSH: 413,
  DISK_ERROR: 414,
  DISK_FULL: 415,
  TERM_NOT_READY: 416,
  FALL_BEHIND_TOO_MUCH: 417,
  TAKE_LEADERSHIP_FAILED: 418,
  INDEX_LESS_THAN_LOCAL_BEGIN: 419,
  REQUEST_WITH_EMPTY_BODYS: 420,
  PUSH_REQUEST_IS_FULL: 421,
  INTERNAL_ERROR: 500,
  TERM_CHANGED: 501,
  WAIT_QUORUM_ACK_TIMEOUT: 502,
  LEADER_PENDING_FULL: 503,
  ILLEGAL_MEMBER_STATE: 504,
  LEADER_NOT_READY: 505,
  LEADER_TRANSFERRING: 506,
} as const;

/** VoteResponse.RESULT */
export type VoteResult = 'UNKNOWN' | 'ACCEPT' | 'REJECT_UNKNOWN_LEADER' | 'REJECT_UNEXPECTED_LEADER' | 'REJECT_EXPIRED_VOTE_TERM'
  | 'REJECT_ALREADY_VOTED' | 'REJECT_ALREADY_HAS_LEADER' | 'REJECT_TERM_NOT_READY' | 'REJECT_TERM_SMALL_THAN_LEDGER'
  | 'REJECT_EXPIRED_LEDGER_TERM' | 'REJECT_SMALL_LEDGER_END_INDEX' | 'REJECT_TAKING_LEADERSHIP';

/** PushEntryRequest.Type */
export type PushType = 'APPEND' | 'COMMIT' | 'COMPARE' | 'TRUNCATE';

/** RequestOrResponse: the fields every request and response carries. */
export interface RequestOrResponse {
  group: string;
  remoteId: string;
  localId: string;
  code: number;
  leaderId: string | null;
  term: number;
}

export interface VoteRequest extends RequestOrResponse { ledgerEndIndex: number; ledgerEndTerm: number }
export interface VoteResponse extends RequestOrResponse { voteResult: VoteResult }
export type HeartBeatRequest = RequestOrResponse;
export type HeartBeatResponse = RequestOrResponse;
export interface PushEntryRequest extends RequestOrResponse { commitIndex: number; type: PushType; entry: DLedgerEntry | null; batchEntry: DLedgerEntry[] }
export interface PushEntryResponse extends RequestOrResponse { index: number | null; beginIndex: number; endIndex: number; count: number }
export interface LeadershipTransferRequest extends RequestOrResponse { transferId: string; transfereeId: string; takeLeadershipLedgerIndex: number }

type Json = Record<string, unknown>;

function entryToJson(e: DLedgerEntry): Json {
  return {
    body: e.body.toString('base64'), bodyCrc: e.bodyCrc, chainCrc: e.chainCrc, channel: e.channel, index: e.index,
    magic: e.magic, pos: e.pos, size: e.size, term: e.term,
  };
}

/**
 * An entry's JSON, made once per entry object: the leader sends the same entries to every follower (the base64 of
 * the body is most of the work).
 */
const entryJsonCache = new WeakMap<DLedgerEntry, string>();
function entryJson(e: DLedgerEntry): string {
  let j = entryJsonCache.get(e);
  if (j === undefined) {
    j = JSON.stringify(entryToJson(e));
    entryJsonCache.set(e, j);
  }
  return j;
}

function entryFromJson(j: Json | null | undefined): DLedgerEntry | null {
  if (!j) return null;
  return {
    body: typeof j.body === 'string' ? Buffer.from(j.body, 'base64') : Buffer.alloc(0),
    bodyCrc: num(j.bodyCrc, 0), chainCrc: num(j.chainCrc, 0), channel: num(j.channel, 0), index: num(j.index, -1),
    magic: num(j.magic, 0), pos: num(j.pos, -1), size: num(j.size, 0), term: num(j.term, -1),
  };
}

function num(v: unknown, dflt: number): number {
  return typeof v === 'number' ? v : typeof v === 'string' && v !== '' ? Number(v) : dflt;
}

/** Serializes a request or response the way fastjson writes the Java bean (alphabetical keys, no nulls). */
export function encodeBody(o: RequestOrResponse & Json): Buffer {
  const out: Json = {};
  const src: Json = { ...o };
  if ('type' in src) {
    // PushEntryRequest's derived getters.
    const p = o as unknown as PushEntryRequest;
    const batch = p.batchEntry ?? [];
    src.batch = batch.length > 0;
    src.count = batch.length > 0 ? batch.length : p.entry ? 1 : 0;
    src.firstEntryIndex = batch.length > 0 ? batch[0].index : p.entry ? p.entry.index : -1;
    src.lastEntryIndex = batch.length > 0 ? batch[batch.length - 1].index : p.entry ? p.entry.index : -1;
    src.totalSize = batch.reduce((s, e) => s + e.size, 0);
    // The entries' JSON is spliced in as made once per entry (the same text JSON.stringify would write).
    const parts: string[] = [];
    for (const k of Object.keys(src).sort()) {
      const v = k === 'entry' ? (p.entry ? entryJson(p.entry) : null) : k === 'batchEntry' ? `[${batch.map(entryJson).join(',')}]` : src[k];
      if (v === null || v === undefined) continue;
      parts.push(`${JSON.stringify(k)}:${k === 'entry' || k === 'batchEntry' ? (v as string) : JSON.stringify(v)}`);
    }
    return Buffer.from(`{${parts.join(',')}}`);
  }
  for (const k of Object.keys(src).sort()) if (src[k] !== null && src[k] !== undefined) out[k] = src[k];
  return Buffer.from(JSON.stringify(out));
}

function base(j: Json): RequestOrResponse {
  return {
    group: String(j.group ?? ''), remoteId: String(j.remoteId ?? ''), localId: String(j.localId ?? ''),
    code: num(j.code, DLedgerResponseCode.SUCCESS), leaderId: j.leaderId == null ? null : String(j.leaderId), term: num(j.term, -1),
  };
}

function parse(body: Buffer | null | undefined): Json {
  if (!body || body.length === 0) return {};
  return JSON.parse(body.toString('utf8')) as Json;
}

export function decodeVoteRequest(b: Buffer | null): VoteRequest {
  const j = parse(b);
  return { ...base(j), ledgerEndIndex: num(j.ledgerEndIndex, -1), ledgerEndTerm: num(j.ledgerEndTerm, -1) };
}
export function decodeVoteResponse(b: Buffer | null): VoteResponse {
  const j = parse(b);
  return { ...base(j), voteResult: (j.voteResult as VoteResult) ?? 'UNKNOWN' };
}
export function decodeHeartBeat(b: Buffer | null): HeartBeatRequest {
  return base(parse(b));
}
export function decodePushEntryRequest(b: Buffer | null): PushEntryRequest {
  const j = parse(b);
  const batch = Array.isArray(j.batchEntry) ? (j.batchEntry as Json[]).map((e) => entryFromJson(e) as DLedgerEntry) : [];
  return { ...base(j), commitIndex: num(j.commitIndex, -1), type: (j.type as PushType) ?? 'APPEND', entry: entryFromJson(j.entry as Json), batchEntry: batch };
}
export function decodePushEntryResponse(b: Buffer | null): PushEntryResponse {
  const j = parse(b);
  return { ...base(j), index: j.index == null ? null : num(j.index, -1), beginIndex: num(j.beginIndex, 0), endIndex: num(j.endIndex, 0), count: num(j.count, 0) };
}
export function decodeLeadershipTransfer(b: Buffer | null): LeadershipTransferRequest {
  const j = parse(b);
  return { ...base(j), transferId: String(j.transferId ?? ''), transfereeId: String(j.transfereeId ?? ''), takeLeadershipLedgerIndex: num(j.takeLeadershipLedgerIndex, 0) };
}
