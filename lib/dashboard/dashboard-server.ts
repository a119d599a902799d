/**
 * DashboardServer: a web console for any RocketMQ cluster (ours or Java's), served by node:http.
 *
 * The page is static (lib/dashboard/static: plain HTML, CSS and vanilla JS that draws its charts as SVG; no build
 * step) and reads a small JSON API (dashboard-api.ts) answered through one DefaultMQAdminExt. A sampler takes each
 * broker's TPS and each group's lag every `sampleIntervalMillis` into a ring of `maxSamples` for the live charts.
 *
 *   GET    /api/cluster                         brokers: role, version, TPS
 *   GET    /api/topics | /api/topic?topic=      topics; one topic's route, queue offsets, consuming groups
 *   POST   /api/topic {topic, readQueueNums, writeQueueNums, perm, clusterName}     create or update
 *   DELETE /api/topic?topic=[&clusterName=]     delete on the brokers and the name servers
 *   GET    /api/groups | /api/group?group=      groups; one group's members and lag per queue
 *   POST   /api/group/reset-offset {group, topic, timestamp, force}
 *   GET    /api/messages?topic=&begin=&end=     by store time; /api/messages?topic=&key= by key
 *   GET    /api/message?id=[&topic=]            one message, with what each group did with it
 *   GET    /api/series                          the live-chart samples
 *
 * Writes take a JSON body (Content-Type application/json), which a cross-site form cannot send without a preflight.
 * The server binds 127.0.0.1 unless told otherwise: it has no login of its own.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { DefaultMQAdminExt } from '../admin/default-mq-admin-ext';
import { DashboardInputError, RocketMQError } from '../errors';
import { type Logger, componentLogger } from '../logger';
import * as api from './dashboard-api';

export interface DashboardServerOptions {
  /** Name server address list, `host:port;host:port`. */
  namesrvAddr: string;
  /** HTTP port (0: any free port). @default 8080 */
  port: number;
  /** Address to bind. @default '127.0.0.1' */
  host: string;
  /** How often the live charts take a sample, ms (0: no sampler). @default 5000 */
  sampleIntervalMillis: number;
  /** Samples kept for the charts. @default 120 */
  maxSamples: number;
  /** Timeout of each admin request, ms. @default 5000 */
  timeoutMillis: number;
}

export const DEFAULT_DASHBOARD_SERVER_OPTIONS: Readonly<Omit<DashboardServerOptions, 'namesrvAddr'>> = Object.freeze({
  port: 8080,
  host: '127.0.0.1',
  sampleIntervalMillis: 5_000,
  maxSamples: 120,
  timeoutMillis: 5_000,
});

/** Where the page's files lie: lib/dashboard/static, from dist/lib/dashboard or from lib/dashboard. */
function staticDir(): string {
  const fromDist = path.resolve(__dirname, '..', '..', '..', 'lib', 'dashboard', 'static');
  return path.basename(path.resolve(__dirname, '..', '..')) === 'dist' ? fromDist : path.resolve(__dirname, 'static');
}

const STATIC_FILES: Record<string, string> = {
  '/': 'index.html',
  '/index.html': 'index.html',
  '/app.js': 'app.js',
  '/style.css': 'style.css',
};

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

const MAX_BODY = 64 * 1024;

export class DashboardServer {
  readonly options: DashboardServerOptions;
  readonly admin: DefaultMQAdminExt;
  readonly #logger: Logger;
  readonly #samples: api.Sample[] = [];
  readonly #assets = new Map<string, Buffer>();
  #server: http.Server | null = null;
  #timer: NodeJS.Timeout | null = null;
  #sampling = false;
  #starting: Promise<void> | null = null;
  #stopping: Promise<void> | null = null;

  constructor(options: Partial<DashboardServerOptions> & { namesrvAddr: string }, extras: { logger?: Logger } = {}) {
    this.options = { ...DEFAULT_DASHBOARD_SERVER_OPTIONS, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) } as DashboardServerOptions;
    this.#logger = componentLogger('dashboard', extras.logger);
    this.admin = new DefaultMQAdminExt({
      namesrvAddr: this.options.namesrvAddr, timeoutMillis: this.options.timeoutMillis, instanceName: `dashboard-${process.pid}`,
    }, { logger: extras.logger });
  }

  /** The bound port (after start). */
  get port(): number {
    const addr = this.#server?.address() as AddressInfo | null | undefined;
    return addr ? addr.port : 0;
  }

  get url(): string {
    const host = this.options.host === '0.0.0.0' || this.options.host === '::' ? '127.0.0.1' : this.options.host;
    return `http://${host.includes(':') ? `[${host}]` : host}:${this.port}/`;
  }

  /** The samples the charts draw (oldest first). */
  get samples(): readonly api.Sample[] {
    return this.#samples;
  }

  /** Starts the admin client, reads the page's files, listens, and starts the sampler (idempotent). */
  start(): Promise<void> {
    if (this.#server) return Promise.resolve();
    if (!this.#starting) {
      this.#starting = (async () => {
        const dir = staticDir();
        for (const file of new Set(Object.values(STATIC_FILES))) this.#assets.set(file, await fs.readFile(path.join(dir, file)));
        await this.admin.start();
        const server = http.createServer((req, res) => { void this.#handle(req, res); });
        try {
          await new Promise<void>((resolve, reject) => {
            server.once('error', reject);
            server.listen(this.options.port, this.options.host, () => { server.off('error', reject); resolve(); });
          });
        } catch (err) {
          await this.admin.shutdown();
          throw err;
        }
        this.#server = server;
        if (this.options.sampleIntervalMillis > 0) {
          void this.sampleNow();
          this.#timer = setInterval(() => { void this.sampleNow(); }, this.options.sampleIntervalMillis);
          this.#timer.unref();
        }
        this.#logger.info({ url: this.url, namesrvAddr: this.options.namesrvAddr }, 'dashboard listening');
      })().finally(() => { this.#starting = null; });
    }
    return this.#starting;
  }

  /** Takes one chart sample now (skipped while one is running). */
  async sampleNow(): Promise<void> {
    if (this.#sampling) return;
    this.#sampling = true;
    try {
      this.#samples.push(await api.takeSample(this.admin));
      while (this.#samples.length > this.options.maxSamples) this.#samples.shift();
    } catch (err) {
      this.#logger.warn({ err }, 'sample failed');
    } finally {
      this.#sampling = false;
    }
  }

  /** Stops the sampler, closes the server and its connections, shuts the admin client down (idempotent). */
  shutdown(): Promise<void> {
    if (!this.#stopping) {
      this.#stopping = (async () => {
        if (this.#starting) await this.#starting.catch(() => undefined);
        if (this.#timer) clearInterval(this.#timer);
        this.#timer = null;
        const server = this.#server;
        this.#server = null;
        if (server) {
          const closed = new Promise<void>((resolve) => server.close(() => resolve()));
          server.closeAllConnections();
          await closed;
        }
        await this.admin.shutdown();
      })().finally(() => { this.#stopping = null; });
    }
    return this.#stopping;
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://dashboard');
    const method = req.method ?? 'GET';
    try {
      const file = STATIC_FILES[url.pathname];
      if (file && (method === 'GET' || method === 'HEAD')) {
        const body = this.#assets.get(file)!;
        res.writeHead(200, { 'Content-Type': CONTENT_TYPES[path.extname(file)], 'Content-Length': body.length, 'Cache-Control': 'no-cache' });
        res.end(method === 'HEAD' ? undefined : body);
        return;
      }
      if (!url.pathname.startsWith('/api/')) return send(res, 404, { error: `not found: ${url.pathname}` });
      const result = await this.#route(method, url.pathname, url.searchParams, req);
      if (result === NOT_FOUND) return send(res, 404, { error: `no ${method} ${url.pathname}` });
      send(res, 200, result);
    } catch (err) {
      const status = err instanceof DashboardInputError ? 400 : 502;
      if (status === 502) this.#logger.warn({ err, path: url.pathname }, 'request failed');
      send(res, status, { error: err instanceof Error ? err.message : String(err), type: err instanceof RocketMQError ? err.name : undefined });
    }
  }

  async #route(method: string, pathname: string, q: URLSearchParams, req: http.IncomingMessage): Promise<unknown> {
    const a = this.admin;
    const num = (name: string, dflt: number) => {
      const v = q.get(name);
      if (v === null || v === '') return dflt;
      const n = Number(v);
      if (!Number.isFinite(n)) throw new DashboardInputError(`${name}: a number`);
      return n;
    };
    switch (`${method} ${pathname}`) {
      case 'GET /api/cluster': return api.clusterView(a);
      case 'GET /api/topics': return api.topicsView(a);
      case 'GET /api/topic': return api.topicView(a, required(q, 'topic'));
      case 'POST /api/topic': return api.createTopic(a, await readJson(req));
      case 'DELETE /api/topic': return api.deleteTopic(a, required(q, 'topic'), q.get('clusterName') ?? undefined);
      case 'GET /api/groups': return api.groupsView(a);
      case 'GET /api/group': return api.groupView(a, required(q, 'group'));
      case 'POST /api/group/reset-offset': return api.resetOffset(a, await readJson(req));
      case 'GET /api/messages': {
        const topic = required(q, 'topic');
        const max = Math.min(Math.max(1, num('max', 64)), 1000);
        const key = q.get('key');
        if (key) return api.messagesByKey(a, topic, key, max);
        const end = num('end', Date.now());
        return api.messagesByTime(a, topic, num('begin', end - 3_600_000), end, max);
      }
      case 'GET /api/message': return api.messageById(a, required(q, 'id'), q.get('topic') || undefined);
      case 'GET /api/series': return { intervalMillis: this.options.sampleIntervalMillis, samples: this.#samples };
      default: return NOT_FOUND;
    }
  }
}

const NOT_FOUND = Symbol('not found');

function required(q: URLSearchParams, name: string): string {
  const v = q.get(name);
  if (!v) throw new DashboardInputError(`${name} is required`);
  return v;
}

function send(res: http.ServerResponse, status: number, value: unknown): void {
  const body = Buffer.from(JSON.stringify(value, (_k, v: unknown) => (v instanceof Map ? Object.fromEntries(v) : v)));
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length, 'Cache-Control': 'no-store' });
  res.end(body);
}

async function readJson(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  if (!(req.headers['content-type'] ?? '').startsWith('application/json')) throw new DashboardInputError('send the body as application/json');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new DashboardInputError('body too large');
    chunks.push(chunk as Buffer);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new DashboardInputError('body is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new DashboardInputError('body must be a JSON object');
  return value as Record<string, unknown>;
}
