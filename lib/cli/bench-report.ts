/**
 * How `rocketmq-ts bench produce|consume` report, by where their output goes:
 * - a terminal: one live progress line rewritten every second (rate, messages so far, p99, failures), then a table;
 * - a pipe or file: one `key=value` line per second and a `[total]` line (what scripts already parse);
 * - `--json`: nothing while running, then one JSON object with the totals.
 */

export type ReportMode = 'tty' | 'lines' | 'json';

/** The report mode for an output stream and the `--json` / `--quiet` flags. */
export function reportMode(out: NodeJS.WritableStream, json: boolean): ReportMode {
  if (json) return 'json';
  return (out as NodeJS.WriteStream).isTTY ? 'tty' : 'lines';
}

/** p-th percentile of ascending `sorted` (0 when empty). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export interface LatencySummary {
  p50: number;
  p99: number;
  max: number;
}

/** p50 / p99 / max of a latency sample (sorted in place). */
export function summarize(latencies: number[]): LatencySummary {
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies[latencies.length - 1] ?? 0 };
}

const CLEAR_LINE = '\r\x1b[K';

/** Writes the live progress line on a terminal (rewritten in place). */
export function writeProgress(out: NodeJS.WritableStream, text: string): void {
  out.write(`${CLEAR_LINE}${text}`);
}

/** Ends the live line so the table starts on a clean one. */
export function endProgress(out: NodeJS.WritableStream): void {
  out.write(CLEAR_LINE);
}

function grouped(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** `1,234 msg/s`, latencies with 2 decimals: the live line's pieces. */
export function progressText(elapsedSeconds: number, rate: number, what: string, count: number, lat: LatencySummary, failed?: number): string {
  return `[${elapsedSeconds.toFixed(0)}s] ${grouped(rate)} msg/s  ${what} ${grouped(count)}  p99 ${lat.p99.toFixed(2)} ms` +
    (failed !== undefined ? `  failed ${grouped(failed)}` : '');
}

/** A plain text table: a header row and value rows, columns padded to their widest cell, numbers right-aligned. */
export function table(header: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
  const cells = [header.map(String), ...rows.map((r) => r.map((c) => (typeof c === 'number' ? formatNumber(c) : c)))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const numeric = header.map((_, i) => rows.every((r) => typeof r[i] === 'number'));
  return cells.map((r) => r.map((c, i) => (numeric[i] ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd()).join('\n') + '\n';
}

function formatNumber(n: number): string {
  return Number.isInteger(n) ? grouped(n) : n.toFixed(2);
}
