/**
 * Prometheus text exposition (format 0.0.4), hand-written: the servers publish a few dozen series, built at scrape
 * time from counters they keep anyway, so a registry library would add a dependency and a second copy of every
 * figure for nothing. `Histogram` is the one live instrument (fixed buckets, no allocation per observation).
 * `startMetricsServer` serves `GET /metrics` over node:http.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';

export type Labels = Readonly<Record<string, string | number>>;

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function labelText(labels: Labels | undefined, extra?: string): string {
  const parts: string[] = [];
  if (labels) for (const k of Object.keys(labels)) parts.push(`${k}="${escapeLabel(String(labels[k]))}"`);
  if (extra) parts.push(extra);
  return parts.length ? `{${parts.join(',')}}` : '';
}

function valueText(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

/** A page of metrics being built for one scrape. */
export class Exposition {
  #out = '';

  #family(name: string, help: string, type: string): void {
    this.#out += `# HELP ${name} ${help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n# TYPE ${name} ${type}\n`;
  }

  /** A gauge family: one line per labelled sample (nothing but the header when there are none). */
  gauge(name: string, help: string, samples: Iterable<readonly [Labels | undefined, number]>): this {
    this.#family(name, help, 'gauge');
    for (const [labels, v] of samples) this.#out += `${name}${labelText(labels)} ${valueText(v)}\n`;
    return this;
  }

  /** A counter family (`name` should end in `_total`). */
  counter(name: string, help: string, samples: Iterable<readonly [Labels | undefined, number]>): this {
    this.#family(name, help, 'counter');
    for (const [labels, v] of samples) this.#out += `${name}${labelText(labels)} ${valueText(v)}\n`;
    return this;
  }

  histogram(h: Histogram, labels?: Labels): this {
    this.#family(h.name, h.help, 'histogram');
    let cumulative = 0;
    for (let i = 0; i < h.buckets.length; i++) {
      cumulative += h.counts[i];
      this.#out += `${h.name}_bucket${labelText(labels, `le="${h.buckets[i]}"`)} ${cumulative}\n`;
    }
    cumulative += h.counts[h.buckets.length];
    this.#out += `${h.name}_bucket${labelText(labels, 'le="+Inf"')} ${cumulative}\n`;
    this.#out += `${h.name}_sum${labelText(labels)} ${valueText(h.sum)}\n${h.name}_count${labelText(labels)} ${cumulative}\n`;
    return this;
  }

  text(): string {
    return this.#out;
  }
}

/** Latency buckets in seconds, 0.5 ms to 10 s. */
export const LATENCY_BUCKETS = Object.freeze([0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);

/** A fixed-bucket histogram; `observe` is a short loop and two additions. */
export class Histogram {
  readonly counts: Float64Array;
  sum = 0;

  constructor(readonly name: string, readonly help: string, readonly buckets: readonly number[] = LATENCY_BUCKETS) {
    this.counts = new Float64Array(buckets.length + 1);
  }

  observe(value: number): void {
    let i = 0;
    while (i < this.buckets.length && value > this.buckets[i]) i++;
    this.counts[i]++;
    this.sum += value;
  }
}

/** The usual process figures, under Prometheus' standard names. */
export function processMetrics(page: Exposition): Exposition {
  const mem = process.memoryUsage();
  const cpu = process.cpuUsage();
  return page
    .gauge('process_resident_memory_bytes', 'Resident memory size in bytes.', [[undefined, mem.rss]])
    .counter('process_cpu_seconds_total', 'Total user and system CPU time spent in seconds.', [[undefined, (cpu.user + cpu.system) / 1e6]])
    .gauge('nodejs_heap_size_used_bytes', 'Process heap size used from Node.js in bytes.', [[undefined, mem.heapUsed]])
    .gauge('process_start_time_seconds', 'Start time of the process since unix epoch in seconds.', [[undefined, Math.round(Date.now() / 1000 - process.uptime())]]);
}

export interface MetricsServer {
  /** host:port the endpoint listens on. */
  readonly address: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Serves `GET /metrics` with what `collect` builds at each scrape; other paths are 404. */
export async function startMetricsServer(options: { host?: string; port: number; collect: () => string | Promise<string>; logger?: Logger }): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: the metrics are at /metrics\n');
      return;
    }
    Promise.resolve().then(options.collect).then(
      (body) => { res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(body); },
      (err: unknown) => {
        options.logger?.warn({ err }, 'metrics collection failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n');
      },
    );
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host || undefined, () => { server.off('error', reject); resolve(); });
  });
  const addr = server.address() as AddressInfo;
  let closing: Promise<void> | null = null;
  return {
    address: `${options.host || '0.0.0.0'}:${addr.port}`,
    port: addr.port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
