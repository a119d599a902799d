/**
 * A frame fuzzer: real Java request frames (test/fixtures/golden/frames, c2s) mutated (bit flips, truncation, bad
 * lengths, bad codes, bad JSON, oversized fields) and sent to a server, each on a connection of its own that the
 * fuzzer half-closes after the frame. Judged per frame: whatever comes back parses as frames, and the server closes
 * the connection (it may answer first). A health probe on another connection must answer between rounds; the
 * server's RSS is sampled (by /proc/<pid>/status when it is a child process).
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { FrameDecoder } from '../protocol/frame';
import { RemotingCommand } from '../protocol/remoting-command';

export const MUTATIONS = ['bitflip', 'truncate', 'truncate-stream', 'bad-length', 'bad-code', 'bad-json', 'oversized-field', 'garbage-tail'] as const;
export type Mutation = (typeof MUTATIONS)[number];

/** Every client-to-server request frame of the captures (whole frames, length prefix included). */
export function goldenRequestFrames(goldenDir: string): Buffer[] {
  const out: Buffer[] = [];
  const root = path.join(goldenDir, 'frames');
  for (const scenario of fs.readdirSync(root).sort()) {
    const sdir = path.join(root, scenario);
    if (!fs.statSync(sdir).isDirectory()) continue;
    for (const conn of fs.readdirSync(sdir).sort()) {
      const cdir = path.join(sdir, conn);
      if (!fs.statSync(cdir).isDirectory()) continue;
      for (const f of fs.readdirSync(cdir).sort()) if (/-c2s-req\d+\.bin$/.test(f)) out.push(fs.readFileSync(path.join(cdir, f)));
    }
  }
  return out;
}

export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One mutated frame; `halfClose` false means the fuzzer ends the stream itself right after (a cut stream). */
export function mutate(frame: Buffer, kind: Mutation, rand: () => number): Buffer {
  const f = Buffer.from(frame);
  const int = (n: number): number => Math.floor(rand() * n);
  const headerLength = f.length >= 8 ? f.readInt32BE(4) & 0xffffff : 0;
  switch (kind) {
    case 'bitflip': {
      for (let i = 0, n = 1 + int(8); i < n; i++) f[int(f.length)] ^= 1 << int(8);
      return f;
    }
    case 'truncate': {
      // A shorter frame whose length field says so: fields cut at a random point.
      const len = 8 + int(Math.max(1, f.length - 8));
      const out = f.subarray(0, len);
      out.writeInt32BE(len - 4, 0);
      return Buffer.from(out);
    }
    case 'truncate-stream':
      // The bytes stop in the middle of the frame (the length field promises more).
      return f.subarray(0, int(f.length));
    case 'bad-length': {
      const choices = [0, 1, 3, -1, 0x7fffffff, f.length - 4 + 1 + int(1000), 16 * 1024 * 1024 + 1, int(f.length)];
      f.writeInt32BE(choices[int(choices.length)] | 0, 0);
      if (rand() < 0.3) f.writeInt32BE((f.readInt32BE(4) & 0xff000000) | (int(0xffffff) & 0xffffff), 4); // header length too
      return f;
    }
    case 'bad-code': {
      if (f.length < 8 + headerLength || (f[4] !== 0)) return mutate(frame, 'bitflip', rand);
      const header = f.subarray(8, 8 + headerLength).toString('latin1');
      const codes = [-1, 0, 99999, 2147483647, -2147483648, int(400), int(20000)];
      return Buffer.from(f.toString('latin1').replace(header, header.replace(/"code":-?\d+/, `"code":${codes[int(codes.length)]}`)), 'latin1');
    }
    case 'bad-json': {
      if (f.length < 8 + headerLength || f[4] !== 0) return mutate(frame, 'bitflip', rand);
      const header = Buffer.from(f.subarray(8, 8 + headerLength));
      const edits = [
        () => { header[int(header.length)] = '{}[]":,\\'.charCodeAt(int(8)); },
        () => { header.fill(0x20, int(header.length)); },
        () => { header[0] = 0x5b; },
        () => { header.write('null', int(Math.max(1, header.length - 4)), 'latin1'); },
      ];
      edits[int(edits.length)]();
      return Buffer.concat([f.subarray(0, 8), header, f.subarray(8 + headerLength)]);
    }
    case 'oversized-field': {
      if (f.length < 8 + headerLength || f[4] !== 0) return mutate(frame, 'bad-length', rand);
      const header = f.subarray(8, 8 + headerLength).toString('latin1');
      const big = 'Z'.repeat([1024, 65536, 1 << 20][int(3)]);
      const json = header.replace(/"(topic|group|consumerGroup|producerGroup|remark|keys|properties)":"/, `"$1":"${big}`);
      const h = Buffer.from(json, 'latin1');
      const body = f.subarray(8 + headerLength);
      const head = Buffer.alloc(8);
      head.writeInt32BE(4 + h.length + body.length, 0);
      head.writeInt32BE(h.length & 0xffffff, 4);
      return Buffer.concat([head, h, body]);
    }
    case 'garbage-tail': {
      const g = Buffer.alloc(1 + int(64));
      for (let i = 0; i < g.length; i++) g[i] = int(256);
      return Buffer.concat([f, g]);
    }
  }
}

export interface FuzzOutcome {
  answered: boolean;
  /** The largest response frame (bytes): GET_ALL_* answers grow with what the fuzzing registered. */
  largest: number;
  closed: boolean;
  /** Bytes back that were not frames (a bad response): must never happen. */
  badResponse: string | null;
}

/** Sends `bytes` on a fresh connection, half-closes it and waits for the server to close (or `limitMs`). */
export function fuzzOne(addr: string, bytes: Buffer, limitMs: number): Promise<FuzzOutcome> {
  const [host, port] = addr.split(':');
  return new Promise((resolve) => {
    const out: FuzzOutcome = { answered: false, largest: 0, closed: false, badResponse: null };
    const decoder = new FrameDecoder((payload) => {
      try {
        RemotingCommand.decode(payload);
        out.answered = true;
        out.largest = Math.max(out.largest, payload.length + 4);
      } catch (e) {
        out.badResponse ??= `${(e as Error).message} (payload ${payload.subarray(0, 48).toString('hex')})`;
      }
      // Java's encoder has no outbound limit; a GET_ALL_* answer after the fuzzer registered 1 MiB names passes 16 MiB.
    }, 1 << 30);
    const socket = net.connect(Number(port), host, () => socket.end(bytes));
    const timer = setTimeout(() => { socket.destroy(); resolve(out); }, limitMs);
    socket.on('data', (chunk: Buffer) => {
      if (out.badResponse) return; // the first error is the one that tells
      try {
        decoder.push(chunk);
      } catch (e) {
        out.badResponse = `${(e as Error).message} (after ${chunk.length} bytes: ${chunk.subarray(0, 48).toString('hex')})`;
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      out.closed = true;
      resolve(out);
    });
  });
}

/** A long-lived connection sending one valid request per `probe()`. */
export class HealthProbe {
  readonly #socket: net.Socket;
  readonly #waiting = new Map<number, (ok: boolean) => void>();
  #opaque = 1_000_000;

  constructor(addr: string, readonly code: number) {
    const [host, port] = addr.split(':');
    this.#socket = net.connect(Number(port), host);
    this.#socket.on('error', () => undefined);
    const decoder = new FrameDecoder((payload) => {
      const cmd = RemotingCommand.decode(payload);
      this.#waiting.get(cmd.opaque)?.(true);
      this.#waiting.delete(cmd.opaque);
    });
    this.#socket.on('data', (c: Buffer) => decoder.push(c));
    this.#socket.on('close', () => { for (const w of this.#waiting.values()) w(false); this.#waiting.clear(); });
  }

  /** Resolves true when the server answers within `limitMs`. */
  probe(limitMs: number): Promise<boolean> {
    const req = RemotingCommand.createRequest(this.code);
    req.opaque = ++this.#opaque;
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.#waiting.delete(req.opaque); resolve(false); }, limitMs);
      this.#waiting.set(req.opaque, (ok) => { clearTimeout(timer); resolve(ok); });
      this.#socket.write(req.encode());
    });
  }

  close(): void {
    this.#socket.destroy();
  }
}

export function rssOf(pid: number): number {
  const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return m ? Number(m[1]) * 1024 : 0;
}

export interface FuzzReport {
  frames: number;
  answered: number;
  closedOnly: number;
  hung: number;
  badResponses: string[];
  probesFailed: number;
  rssStart: number;
  rssEnd: number;
  largestResponse: number;
  byMutation: Record<string, number>;
}

/**
 * Fuzzes `count` frames at `addr` (`parallel` connections at a time), probing health every round. `pid` (the
 * server's) gives RSS samples after the first round (warm-up) and at the end.
 */
export async function fuzzServer(addr: string, frames: Buffer[], opts: { count: number; seed: number; pid?: number; probeCode: number; parallel?: number; limitMs?: number }): Promise<FuzzReport> {
  const rand = seeded(opts.seed);
  const parallel = opts.parallel ?? 16;
  const limitMs = opts.limitMs ?? 30_000;
  const probe = new HealthProbe(addr, opts.probeCode);
  const r: FuzzReport = { frames: 0, answered: 0, closedOnly: 0, hung: 0, badResponses: [], probesFailed: 0, rssStart: 0, rssEnd: 0, largestResponse: 0, byMutation: {} };
  try {
    if (!(await probe.probe(limitMs))) throw new Error(`health probe (code ${opts.probeCode}) unanswered before fuzzing`);
    while (r.frames < opts.count) {
      const batch: Promise<void>[] = [];
      for (let i = 0; i < parallel && r.frames < opts.count; i++, r.frames++) {
        const kind = MUTATIONS[Math.floor(rand() * MUTATIONS.length)];
        r.byMutation[kind] = (r.byMutation[kind] ?? 0) + 1;
        const bytes = mutate(frames[Math.floor(rand() * frames.length)], kind, rand);
        batch.push(fuzzOne(addr, bytes, limitMs).then((o) => {
          if (o.badResponse && r.badResponses.length < 10) r.badResponses.push(`${kind}: ${o.badResponse}`);
          r.largestResponse = Math.max(r.largestResponse, o.largest);
          if (!o.closed) r.hung++;
          else if (o.answered) r.answered++;
          else r.closedOnly++;
        }));
      }
      await Promise.all(batch);
      if (!(await probe.probe(limitMs))) r.probesFailed++;
      if (opts.pid && r.rssStart === 0 && r.frames >= Math.min(opts.count / 10, 2000)) r.rssStart = rssOf(opts.pid);
    }
    if (opts.pid) r.rssEnd = rssOf(opts.pid);
  } finally {
    probe.close();
  }
  return r;
}
