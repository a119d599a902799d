/**
 * The logger: component loggers replace the `component` binding instead of repeating it, module-level loggers follow
 * setRootLogger(), the server format switch, and the pretty line format.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import pino from 'pino';
import ts from 'typescript';
import { componentLogger, configureRootLogger, moduleLogger, rootLogger, setRootLogger } from '../../lib/logger';
import { LocalFileOffsetStore } from '../../lib/consumer/offset/local-file-offset-store';
import { formatLogLine, prettyStream } from '../../lib/util/pretty-log';

/** A pino logger writing into an array of raw lines. */
function memoryLogger(level = 'info'): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(l);
      done();
    },
  });
  return { logger: pino({ name: 'app', level }, stream), lines };
}

/** How many times `"key":` occurs at the top level of a JSON line. */
function keyCount(line: string, key: string): number {
  return line.split(`"${key}":`).length - 1;
}

describe('logger', () => {
  let saved: pino.Logger;
  beforeEach(() => { saved = rootLogger(); });
  afterEach(() => { setRootLogger(saved); });

  it('a component logger derived from another replaces its component and keeps its other bindings', () => {
    const { logger, lines } = memoryLogger();
    const broker = componentLogger('broker', logger).child({ brokerName: 'broker-a' });
    const tx = componentLogger('transaction', broker);
    tx.info({ topic: 'T' }, 'hello');
    expect(lines).to.have.length(1);
    const line = lines[0];
    for (const key of ['component', 'name', 'brokerName', 'pid', 'hostname']) expect(keyCount(line, key), `${key} in ${line}`).to.equal(1);
    const obj = JSON.parse(line) as Record<string, unknown>;
    expect(obj).to.include({ component: 'transaction', brokerName: 'broker-a', topic: 'T', name: 'app', msg: 'hello' });
  });

  it('a module-level logger follows setRootLogger() made after it was created', () => {
    const log = moduleLogger('late-module');
    const first = memoryLogger('warn');
    setRootLogger(first.logger);
    log.warn('one');
    const second = memoryLogger('warn');
    setRootLogger(second.logger);
    log.warn('two');
    log.info('below the level');
    expect(first.lines.map((l) => JSON.parse(l).msg)).to.deep.equal(['one']);
    expect(second.lines.map((l) => JSON.parse(l).msg)).to.deep.equal(['two']);
    expect(JSON.parse(second.lines[0]).component).to.equal('late-module');
  });

  it("an SDK module's warning reaches the application's logger (the offset store's unreadable file)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logger-offsets-'));
    try {
      const { logger, lines } = memoryLogger('warn');
      setRootLogger(logger);
      const store = new LocalFileOffsetStore('client-1', 'G1', dir);
      const file = store.storePath;
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, '{ not json');
      await store.load();
      expect(lines.map((l) => JSON.parse(l).component)).to.include('offset-store');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('configureRootLogger: pretty lines at the level asked, and the result becomes the root logger', () => {
    const captured: string[] = [];
    const fake = new Writable({ write(c: Buffer | string, _e, done) { captured.push(c.toString()); done(); } }) as unknown as NodeJS.WriteStream;
    const previous = process.env.ROCKETMQ_LOG_LEVEL;
    process.env.ROCKETMQ_LOG_LEVEL = 'info'; // under mocha the default is silent
    try {
      const pretty = configureRootLogger({ level: 'info', format: 'pretty', stream: fake });
      componentLogger('broker', pretty).info({ port: 10911 }, 'broker started');
      expect(rootLogger()).to.equal(pretty);
      expect(captured.join('')).to.match(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}broker {10}broker started port=10911\n$/);
    } finally {
      if (previous === undefined) delete process.env.ROCKETMQ_LOG_LEVEL;
      else process.env.ROCKETMQ_LOG_LEVEL = previous;
    }
  });
});

describe('pretty log lines', () => {
  it('time, level, component, message, then the other fields; errors by their message', () => {
    const time = new Date(2026, 0, 2, 3, 4, 5, 6).getTime();
    const line = JSON.stringify({
      level: 40, time, pid: 1, hostname: 'h', name: 'rocketmq-ts', component: 'store', msg: 'disk almost full',
      ratio: 0.91, path: '/var/store x', err: { type: 'Error', message: 'boom', stack: 'Error: boom\n  at x' },
    });
    expect(formatLogLine(line)).to.equal('03:04:05.006 WARN  store           disk almost full ratio=0.91 path="/var/store x" err="boom"');
    expect(formatLogLine(line.replace('"level":40', '"level":50'), { stacks: true })).to.match(/err="boom"\nError: boom\n {2}at x$/);
    expect(formatLogLine('not json at all')).to.equal('not json at all');
  });

  it('prettyStream formats whole lines, also when a line arrives in pieces', async () => {
    const out: string[] = [];
    const sink = new Writable({ write(c: Buffer | string, _e, done) { out.push(c.toString()); done(); } });
    const stream = prettyStream(sink);
    const line = JSON.stringify({ level: 30, time: 0, component: 'namesrv', msg: 'up' });
    await new Promise<void>((resolve) => stream.write(line.slice(0, 10), () => resolve()));
    expect(out).to.deep.equal([]);
    await new Promise<void>((resolve) => stream.write(line.slice(10) + '\n', () => resolve()));
    expect(out.join('')).to.match(/ INFO {2}namesrv {9}up\n$/);
  });
});

describe('loggers are made by their owners, not at import time', () => {
  /** Top-level statements of lib/ that call a logger factory: evaluated once at import, they miss setRootLogger() and every logger option. */
  function importTimeLoggers(dir: string, out: string[] = []): string[] {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) importTimeLoggers(p, out);
      else if (entry.name.endsWith('.ts') && !p.endsWith(path.join('lib', 'logger.ts'))) {
        const sf = ts.createSourceFile(p, fs.readFileSync(p, 'utf8'), ts.ScriptTarget.Latest, true);
        for (const stmt of sf.statements) {
          if (!ts.isVariableStatement(stmt)) continue;
          const visit = (n: ts.Node): void => {
            if (ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isClassExpression(n)) return;
            if (ts.isCallExpression(n) && /^(componentLogger|moduleLogger|rootLogger|pino)$/.test(n.expression.getText(sf))) {
              out.push(`${path.relative(ROOT, p)}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`);
            }
            ts.forEachChild(n, visit);
          };
          visit(stmt);
        }
      }
    }
    return out;
  }
  const ROOT = path.resolve(__dirname, '..', '..', '..');

  it('no module of lib/ creates a logger when it is imported', () => {
    expect(fs.existsSync(path.join(ROOT, 'lib', 'consumer', 'rebalance-impl.ts'))).to.equal(true);
    expect(importTimeLoggers(path.join(ROOT, 'lib'))).to.deep.equal([]);
  });
});
