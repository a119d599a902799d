/**
 * test/java/MixedClientDriver.java, a Java 4.9.8 client (on ../shared/javaref's 4.9.8 jars) for the tests and compat
 * rows where it shares a topic with a 5.x gRPC client: `produce` sends bodies built by mixedBody, `consume` prints
 * every delivery with its properties.
 */
import crypto from 'node:crypto';
import { runJavaSource, type RunResult } from './javaref';

const DRIVER = 'MixedClientDriver.java';

/** Body i of size `size`: "java body <i> " then bytes (k * 31 + i) & 0xff (the text alone when size is smaller), as the driver builds it. */
export function mixedBody(i: number, size = 0, head = 'java body'): Buffer {
  const text = Buffer.from(`${head} ${i} `);
  if (size <= text.length) return text;
  const b = Buffer.alloc(size);
  text.copy(b);
  for (let k = text.length; k < size; k++) b[k] = (k * 31 + i) & 0xff;
  return b;
}

export const md5Hex = (b: Buffer): string => crypto.createHash('md5').update(b).digest('hex');

export interface MixedProduced {
  /** The index i of the message (its keys, property and body are built from it). */
  i: number;
  msgId: string;
  queueId: number;
}

export interface MixedProduceOptions {
  group: string;
  count: number;
  tag?: string;
  /** Keys pattern, `{i}` expanded. */
  keys?: string;
  /** One user property `name=value`, `{i}` expanded in the value. */
  prop?: string;
  size?: number;
  timeoutMs?: number;
}

/** Runs the driver's produce to its end; throws with its output unless every message was sent. */
export async function javaMixedProduce(namesrvAddr: string, topic: string, o: MixedProduceOptions): Promise<MixedProduced[]> {
  const args = ['produce', '--namesrv', namesrvAddr, '--topic', topic, '--group', o.group, '--count', String(o.count), '--size', String(o.size ?? 0)];
  if (o.tag !== undefined) args.push('--tag', o.tag);
  if (o.keys !== undefined) args.push('--keys', o.keys);
  if (o.prop !== undefined) args.push('--prop', o.prop);
  const r = await runJavaSource('4.9.8', DRIVER, args, { timeoutMs: o.timeoutMs ?? 90_000 });
  if (!r.stdout.includes(`SENT ok=${o.count} fail=0`)) throw new Error(`the Java producer did not send ${o.count}: ${tail(r)}`);
  return lines(r.stdout, 'OK').map((l) => ({ i: Number(l[1]), msgId: l[2], queueId: Number(l[3]) }));
}

export interface MixedReceived {
  msgId: string;
  tags: string | null;
  keys: string[];
  reconsumeTimes: number;
  bodyLength: number;
  bodyMd5: string;
  properties: Map<string, string>;
}

/** Runs the driver's consume (from the first offset) until `expect` distinct messages came or `timeoutS` passed. */
export async function javaMixedConsume(namesrvAddr: string, topic: string, group: string, expect: number, opts: { timeoutS?: number; tagExpr?: string } = {}): Promise<MixedReceived[]> {
  const timeoutS = opts.timeoutS ?? 60;
  const args = ['consume', '--namesrv', namesrvAddr, '--topic', topic, '--group', group, '--expect', String(expect), '--timeout', String(timeoutS)];
  if (opts.tagExpr !== undefined) args.push('--tag-expr', opts.tagExpr);
  const r = await runJavaSource('4.9.8', DRIVER, args, { timeoutMs: (timeoutS + 60) * 1000 });
  if (!/CONSUMED n=\d+/.test(r.stdout)) throw new Error(`the Java consumer did not finish: ${tail(r)}`);
  return lines(r.stdout, 'RECV').map((l) => ({
    msgId: l[1],
    tags: l[2] === '-' ? null : l[2],
    keys: l[3] === '-' ? [] : l[3].split(','),
    reconsumeTimes: Number(l[4]),
    bodyLength: Number(l[5]),
    bodyMd5: l[6],
    properties: new Map(l[7] === '-' ? [] : l[7].split('&').map((kv) => {
      const eq = kv.indexOf('=');
      return [decode(kv.slice(0, eq)), decode(kv.slice(eq + 1))] as [string, string];
    })),
  }));
}

/** Java's URLEncoder: '+' for a space. */
const decode = (s: string): string => decodeURIComponent(s.replace(/\+/g, ' '));

function lines(stdout: string, kind: string): string[][] {
  return stdout.split('\n').filter((l) => l.startsWith(kind + ' ')).map((l) => l.trim().split(' '));
}

function tail(r: RunResult): string {
  return `exit ${r.code}: ${(r.stdout + r.stderr).slice(-600)}`;
}
