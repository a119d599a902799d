/**
 * A small pino destination that turns each JSON line into one short human line for a terminal:
 *   `12:03:04.123 INFO  broker      broker started brokerName=broker-a addr=127.0.0.1:10911`
 * (time, level, component, message, then the other fields as key=value). Server logs are rare enough that parsing
 * each line again costs nothing that matters; the hot paths never log at info.
 */
import { Writable } from 'node:stream';

const LEVELS: Record<number, [string, string]> = {
  10: ['TRACE', '\x1b[90m'],
  20: ['DEBUG', '\x1b[36m'],
  30: ['INFO ', '\x1b[32m'],
  40: ['WARN ', '\x1b[33m'],
  50: ['ERROR', '\x1b[31m'],
  60: ['FATAL', '\x1b[35m'],
};
const RESET = '\x1b[0m';
const DIM = '\x1b[2m';
/** Fields every line has, printed in their own columns or not at all. */
const OMIT = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'name', 'component']);

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

function clock(ms: number): string {
  const d = new Date(ms);
  const millis = d.getMilliseconds();
  return `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}`;
}

function fieldValue(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) || value === '' ? JSON.stringify(value) : value;
  if (value && typeof value === 'object') {
    const err = value as { message?: unknown; type?: unknown };
    if (typeof err.message === 'string') return JSON.stringify(err.message);
    return JSON.stringify(value);
  }
  return String(value);
}

export interface PrettyOptions {
  /** ANSI colours for the level and component. */
  colors?: boolean;
  /** Print an error's stack under error and fatal lines (`--debug`). */
  stacks?: boolean;
}

/** Formats one pino JSON line (without the newline); a line that is not JSON comes back as it is. */
export function formatLogLine(line: string, options: PrettyOptions = {}): string {
  const colors = options.colors === true;
  let obj: Record<string, unknown>;
  try {
    obj = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const [label, color] = LEVELS[obj.level as number] ?? [String(obj.level).padEnd(5), ''];
  const component = typeof obj.component === 'string' ? obj.component : '';
  let out = `${clock(typeof obj.time === 'number' ? obj.time : Date.now())} ` +
    (colors ? `${color}${label}${RESET}` : label) +
    ` ${(colors ? DIM : '') + component.padEnd(15) + (colors ? RESET : '')} ${typeof obj.msg === 'string' ? obj.msg : ''}`;
  for (const key of Object.keys(obj)) {
    if (OMIT.has(key) || obj[key] === undefined) continue;
    out += ` ${key}=${fieldValue(obj[key])}`;
  }
  const stack = (obj.err as { stack?: unknown } | undefined)?.stack;
  if (typeof stack === 'string' && options.stacks && (obj.level as number) >= 50) {
    out += `\n${stack}`;
  }
  return out;
}

/** A writable for pino that prints `formatLogLine` of each line to `out`. */
export function prettyStream(out: NodeJS.WritableStream, options: PrettyOptions = {}): Writable {
  let pending = '';
  return new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _enc, done) {
      pending += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      let nl: number;
      let text = '';
      while ((nl = pending.indexOf('\n')) >= 0) {
        text += formatLogLine(pending.slice(0, nl), options) + '\n';
        pending = pending.slice(nl + 1);
      }
      if (text) out.write(text);
      done();
    },
  });
}
