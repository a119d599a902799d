/**
 * What a person sees: an application that produces and consumes prints no log line; the command line reports a user
 * error in one line without a stack, and the servers print short human lines or JSON as asked.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';

const MAIN = path.resolve(__dirname, '../../../lib/cli/main.js');
const QUIET_APP = path.resolve(__dirname, 'quiet-app.js');

interface Run { code: number | null; stdout: string; stderr: string }

/** Runs node with the given args in an environment with no logging settings (as a user's shell has). */
function runNode(args: string[], env: Record<string, string> = {}, killAfterMs = 60_000): Promise<Run> {
  const clean: NodeJS.ProcessEnv = { ...process.env };
  for (const k of ['NODE_ENV', 'ROCKETMQ_LOG_LEVEL', 'ROCKETMQ_LOG_FORMAT', 'ROCKETMQ_DEBUG', 'ROCKETMQ_NAMESRV_ADDR', 'NAMESRV_ADDR']) delete clean[k];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...clean, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('error', reject);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

describe('output a person reads', function () {
  this.timeout(90_000);
  let home: string;
  before(() => { home = fs.mkdtempSync(path.join(os.tmpdir(), 'quiet-')); });
  after(() => { fs.rmSync(home, { recursive: true, force: true }); });

  it('an application that sends and consumes prints no log line', async () => {
    const r = await runNode([QUIET_APP], { HOME: home, ROCKETMQ_CLIENT_LOCAL_OFFSET_STORE_DIR: path.join(home, 'offsets') });
    expect(r.stdout, r.stderr).to.equal('DONE 20\n');
    expect(r.stderr).to.equal('');
    expect(r.code).to.equal(0);
  });

  it('a port in use is one line and a non-zero exit, the stack only with --debug', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '0.0.0.0', () => resolve()));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      const r = await runNode([MAIN, 'start', '--namesrv-port', String(port), '--broker-port', '0', '--store', path.join(home, 's1')], { HOME: home });
      expect(r.code).to.equal(1);
      // the server's own log lines may come first; the error is the last line, alone, without a stack
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines[lines.length - 1]).to.equal(`rocketmq-ts: port ${port} is already in use on 0.0.0.0: stop what holds it or choose another port`);
      expect(r.stderr).not.to.match(/\n\s+at /);
      const d = await runNode([MAIN, '--debug', 'start', '--namesrv-port', String(port), '--broker-port', '0', '--store', path.join(home, 's2')], { HOME: home });
      expect(d.code).to.equal(1);
      expect(d.stderr).to.match(/(^|\n)rocketmq-ts: port \d+ is already in use[^\n]*\n\S*Error[^\n]*\n\s+at /);
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });

  it('a bad broker.conf value, a missing file, an unknown admin command and an unreachable name server: one line each', async () => {
    const conf = path.join(home, 'bad.conf');
    fs.writeFileSync(conf, 'listenPort=abc\n');
    const bad = await runNode([MAIN, 'broker', '-c', conf]);
    expect([bad.code, bad.stderr]).to.deep.equal([1, 'rocketmq-ts: property listenPort: not a number: abc\n']);
    const missing = await runNode([MAIN, 'broker', '-c', path.join(home, 'nope.conf')]);
    expect([missing.code, missing.stderr]).to.deep.equal([1, `rocketmq-ts: no such file or directory: ${path.join(home, 'nope.conf')}\n`]);
    const unknown = await runNode([MAIN, 'admin', 'fooBar']);
    expect(unknown.code).to.equal(2);
    expect(unknown.stderr.trim().split('\n')).to.have.length(1);
    const closed = await new Promise<number>((resolve) => {
      const s = net.createServer();
      s.listen(0, '127.0.0.1', () => { const p = (s.address() as net.AddressInfo).port; s.close(() => resolve(p)); });
    });
    const unreachable = await runNode([MAIN, 'admin', 'clusterList', '-n', `127.0.0.1:${closed}`]);
    expect(unreachable.code).to.equal(1);
    expect(unreachable.stderr).to.equal(`ClusterListSubCommand command failed: connect to 127.0.0.1:${closed} failed\n`);
  });

  it('the servers log short human lines with --log-format pretty and one JSON object per line (no key twice) otherwise', async () => {
    const startAndStop = async (extra: string[]): Promise<Run> => {
      const child = spawn(process.execPath, [MAIN, ...extra, 'start', '--namesrv-port', '0', '--broker-port', '0', '--store', path.join(home, `st-${extra.join('')}`)], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, NODE_ENV: '', ROCKETMQ_LOG_LEVEL: '', HOME: home },
      });
      let stdout = '';
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      await new Promise<void>((resolve) => child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (stdout.includes('store:')) resolve();
      }));
      child.kill('SIGINT');
      return { code: await exited, stdout, stderr };
    };
    const pretty = await startAndStop(['--log-format', 'pretty']);
    expect(pretty.code).to.equal(0);
    const lines = pretty.stderr.trim().split('\n');
    expect(lines.some((l) => /^\d\d:\d\d:\d\d\.\d{3} INFO {2}broker +broker started .*brokerName=broker-a/.test(l)), pretty.stderr).to.equal(true);
    for (const l of lines) expect(l, l).to.match(/^\d\d:\d\d:\d\d\.\d{3} (INFO |WARN |ERROR) \S+/);
    const json = await startAndStop([]); // stderr is a pipe here: JSON
    expect(json.code, json.stderr).to.equal(0);
    const objects = json.stderr.trim().split('\n');
    expect(objects.length).to.be.greaterThan(3);
    for (const l of objects) {
      const obj = JSON.parse(l) as Record<string, unknown>;
      expect(l.split('"component":').length - 1, l).to.equal(1);
      expect(Object.keys(obj).length, l).to.equal(l.match(/"[A-Za-z]+":/g)!.filter((_k, i, a) => a.indexOf(_k) === i).length);
      expect(l.includes('{}'), l).to.equal(false);
    }
  });
});
