/**
 * Shared machinery of the bad-input sweeps: a seeded random generator (the seed is printed so a failure can be
 * replayed with ROBUSTNESS_SEED=<seed>), garbage header values and bodies, a sweep of every request code of a
 * server, raw-socket frames, and a counter of process-level failures (unhandled rejections, uncaught exceptions).
 */
import net from 'node:net';
import { RemotingClient } from '../../../lib/transport/remoting-client';
import { RemotingCommand, SerializeType } from '../../../protocol/remoting-command';
import { requestHeaderCodec } from '../../../protocol/header/request-header-by-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { requestCodeName } from '../../../protocol/code/request-code';

/** mulberry32: small, fast, good enough to make garbage reproducible. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of this run: ROBUSTNESS_SEED when set, else random; printed once. */
export function sweepSeed(what: string): number {
  const env = process.env.ROBUSTNESS_SEED;
  const seed = env ? Number(env) >>> 0 : (Math.random() * 0x100000000) >>> 0;
  console.log(`    ${what}: seed ${seed} (replay with ROBUSTNESS_SEED=${seed})`);
  return seed;
}

export const BIG_STRING = 'Z'.repeat(10 * 1024);

/** Every header value a uniform-garbage case uses. */
export const GARBAGE_VALUES: readonly string[] = [
  'x', '-1', '', BIG_STRING, '2147483648', '99999999999999999999', 'NaN', '1e3', ' 1', '\u0000', '\u{1F4A9}', '%RETRY%',
  '.', '..', '../..', 'a/b',
];

/** Keys every header of this project uses somewhere, for codes without a custom header. */
const GENERIC_KEYS = ['topic', 'consumerGroup', 'group', 'queueId', 'brokerName', 'clusterName', 'brokerAddr', 'key', 'namespace', 'offset', 'timestamp'];

/** The extFields keys of `code`'s request header (plus a few generic ones). */
export function headerKeys(code: number): string[] {
  const codec = requestHeaderCodec(code);
  const keys = new Set<string>(GENERIC_KEYS);
  if (codec) for (const [name, spec] of Object.entries(codec.schema)) keys.add(spec.key ?? name);
  return [...keys];
}

export function randomBytes(rand: () => number, n: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) b[i] = (rand() * 256) | 0;
  return b;
}

function pick<T>(rand: () => number, a: readonly T[]): T {
  return a[(rand() * a.length) | 0];
}

const JSONISH_BODIES = ['{', '{"a":', 'null', '[]', '"x"', '{"topicConfigTable":5}', '{"clientID":7,"consumerDataSet":{}}', '[1,2,', '{:}'];

export interface SweepCase {
  label: string;
  code: number;
  extFields: Record<string, string> | null;
  body: Buffer | null;
  serializeType: SerializeType;
}

/**
 * The bad requests for one code: no extFields; every value replaced by each garbage value; a per-key random mix
 * of garbage and plausible values; garbage bodies (random bytes, broken JSON, and one `oversized` body).
 */
export function casesFor(code: number, rand: () => number, plausible: readonly string[], oversized: Buffer): SweepCase[] {
  const keys = headerKeys(code);
  // The ROCKETMQ binary header holds the code as an i16 (Java writes (short) code): the 5.x codes above 32767 (the
  // POP family) travel in JSON only.
  const fitsI16 = code >= -32768 && code <= 32767;
  const st = (): SerializeType => (rand() < 0.5 || !fitsI16 ? SerializeType.JSON : SerializeType.ROCKETMQ);
  const cases: SweepCase[] = [{ label: 'no extFields', code, extFields: null, body: null, serializeType: st() }];
  for (const v of GARBAGE_VALUES) {
    const ext: Record<string, string> = {};
    for (const k of keys) ext[k] = v;
    cases.push({ label: `every value ${JSON.stringify(v.length > 20 ? `${v.slice(0, 8)}...(${v.length})` : v)}`, code, extFields: ext, body: null, serializeType: st() });
  }
  for (let i = 0; i < 3; i++) {
    const ext: Record<string, string> = {};
    for (const k of keys) ext[k] = rand() < 0.5 ? pick(rand, GARBAGE_VALUES) : pick(rand, plausible);
    cases.push({ label: `mixed #${i}`, code, extFields: ext, body: rand() < 0.5 ? randomBytes(rand, (rand() * 512) | 0) : null, serializeType: st() });
  }
  cases.push({ label: 'random body', code, extFields: null, body: randomBytes(rand, 1 + ((rand() * 4096) | 0)), serializeType: st() });
  cases.push({ label: 'json-ish body', code, extFields: null, body: Buffer.from(pick(rand, JSONISH_BODIES)), serializeType: st() });
  cases.push({ label: `oversized body (${oversized.length} bytes)`, code, extFields: null, body: oversized, serializeType: st() });
  return cases;
}

function toCommand(c: SweepCase): RemotingCommand {
  const cmd = RemotingCommand.createRequest(c.code, c.extFields ? { ...c.extFields } : null, c.body);
  cmd.serializeType = c.serializeType;
  return cmd;
}

/** A JSON client and a ROCKETMQ client (the request's serialize type is the client's). */
export class SweepClients {
  readonly json = new RemotingClient({ serializeType: SerializeType.JSON });
  readonly binary = new RemotingClient({ serializeType: SerializeType.ROCKETMQ });

  of(t: SerializeType): RemotingClient {
    return t === SerializeType.ROCKETMQ ? this.binary : this.json;
  }

  async shutdown(): Promise<void> {
    await this.json.shutdown();
    await this.binary.shutdown();
  }
}

/** What is wrong with one answer (null when it is acceptable). */
export function judge(c: SweepCase, res: RemotingCommand): string | null {
  if (!res.isResponse) return 'answer is not flagged as a response';
  if (res.serializeType !== c.serializeType) return `answered in serialize type ${res.serializeType}, asked in ${c.serializeType}`;
  if (res.code !== ResponseCode.SUCCESS && !(res.remark && res.remark.trim())) return `code ${res.code} without a remark`;
  return null;
}

export function describeCase(c: SweepCase): string {
  return `${requestCodeName(c.code)}(${c.code}) ${c.label} [${c.serializeType === SerializeType.JSON ? 'JSON' : 'ROCKETMQ'}]`;
}

/**
 * Sends every case of one code as a normal request (all at once) and then as oneway, then checks with `probe`
 * that both connections still work. Returns the problems found.
 */
export async function sweepCode(
  addr: string, clients: SweepClients, cases: readonly SweepCase[], timeoutMillis: number,
  probe: (client: RemotingClient) => Promise<string | null>,
): Promise<string[]> {
  const problems: string[] = [];
  await Promise.all(cases.map(async (c) => {
    try {
      const res = await clients.of(c.serializeType).invoke(addr, toCommand(c), timeoutMillis);
      const bad = judge(c, res);
      if (bad) problems.push(`${describeCase(c)}: ${bad}`);
    } catch (err) {
      problems.push(`${describeCase(c)}: no answer (${(err as Error).name}: ${(err as Error).message})`);
    }
  }));
  for (const c of cases) {
    try {
      await clients.of(c.serializeType).invokeOneway(addr, toCommand(c), timeoutMillis);
    } catch (err) {
      problems.push(`${describeCase(c)} oneway: send failed (${(err as Error).message})`);
    }
  }
  for (const client of [clients.json, clients.binary]) {
    const bad = await probe(client).catch((err: Error) => `probe failed: ${err.name}: ${err.message}`);
    if (bad) problems.push(`after ${requestCodeName(cases[0].code)}: ${bad}`);
  }
  return problems;
}

/** Counts process 'unhandledRejection' and 'uncaughtException' events between start() and stop(). */
export class ProcessFailureCounter {
  readonly events: string[] = [];
  readonly #onRejection = (reason: unknown): void => {
    this.events.push(`unhandledRejection: ${reason instanceof Error ? reason.stack : String(reason)}`);
  };
  readonly #onException = (err: Error): void => {
    this.events.push(`uncaughtException: ${err.stack ?? String(err)}`);
  };

  start(): void {
    process.on('unhandledRejection', this.#onRejection);
    process.on('uncaughtException', this.#onException);
  }

  stop(): void {
    process.off('unhandledRejection', this.#onRejection);
    process.off('uncaughtException', this.#onException);
  }
}

/** A raw TCP connection to write arbitrary bytes; resolves `closed` when the peer closes it. */
export async function rawSocket(addr: string): Promise<{ socket: net.Socket; closed: Promise<void>; received: Buffer[] }> {
  const [host, port] = addr.split(':');
  const socket = net.connect(Number(port), host);
  const received: Buffer[] = [];
  socket.on('data', (b: Buffer) => received.push(b));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  return { socket, closed, received };
}

/** A frame by hand: total length, mark (type << 24 | header length), header bytes, body. */
export function handFrame(totalLength: number, serializeType: number, headerLength: number, header: Buffer, body: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(8);
  head.writeInt32BE(totalLength | 0, 0);
  head.writeInt32BE(((serializeType << 24) | (headerLength & 0xffffff)) | 0, 4);
  return Buffer.concat([head, header, body]);
}

/** Resolves true if `p` settles within `ms`. */
export async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([p.then(() => true, () => true), t]);
  } finally {
    clearTimeout(timer);
  }
}
