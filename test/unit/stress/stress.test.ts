/**
 * `npm run test:stress` (test/stress.ts): its options, and a run of a tiny fixture file: totals and failures per run,
 * the summary, the exit code, and no busy loop left behind.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { parseArgs } from '../../stress';

const STRESS = path.resolve(__dirname, '../../stress.js');
const FIXTURE = path.join(__dirname, 'stress-fixture.js');

function runStress(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [STRESS, ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
  });
}

/** Whether `pid` is a live process (not gone, not a zombie). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ENOENT';
  }
  // "pid (comm) state ...": Z is a zombie, dead already
  return stat.split(') ')[1]?.[0] !== 'Z';
}

describe('test/stress (npm run test:stress)', function () {
  this.timeout(60_000);

  it('parses its options and passes the rest to mocha', () => {
    expect(parseArgs([])).to.deep.equal({ runs: 5, busy: 2, nice: 0, testNice: 0, verbose: false, mochaArgs: ['dist/test/**/*.test.js'] });
    expect(parseArgs(['--runs', '3', '--busy=1', '--nice', '10', '--test-nice', '5', 'a.test.js', '--grep', 'x']))
      .to.deep.equal({ runs: 3, busy: 1, nice: 10, testNice: 5, verbose: false, mochaArgs: ['a.test.js', '--grep', 'x'] });
    expect(parseArgs(['--grep', 'x']).mochaArgs).to.deep.equal(['--grep', 'x']);
    expect(parseArgs(['--bail']).mochaArgs).to.deep.equal(['--bail', 'dist/test/**/*.test.js']);
    expect(() => parseArgs(['--runs', '0'])).to.throw(/--runs/);
    expect(() => parseArgs(['--nice', 'x'])).to.throw(/--nice/);
  });

  it('prints each run\'s totals and failures, exits 1 on a failure, and leaves no busy loop behind', async () => {
    const r = await runStress(['--runs', '2', '--busy', '1', '--nice', '19', FIXTURE], { RMQ_STRESS_FIXTURE_FAIL: '1' });
    const kept = /^logs kept in (.+)$/m.exec(r.stdout);
    if (kept) rmSync(kept[1], { recursive: true, force: true });
    expect(r.code, r.stdout).to.equal(1);
    expect(kept, 'the failed runs\' logs are kept').to.not.equal(null);
    const loops = /pids (\d+)\)/.exec(r.stdout);
    expect(loops, r.stdout).to.not.equal(null);
    expect(alive(Number(loops![1])), 'the busy loop is gone').to.equal(false);
    expect(r.stdout).to.match(/^run 1\/2: 1 passed, 1 failed in \d+ s {3}log: /m);
    expect(r.stdout).to.match(/^run 2\/2: 1 passed, 1 failed in \d+ s/m);
    expect(r.stdout).to.include('  FAILED stress fixture fails when asked to');
    expect(r.stdout).to.match(/^0 of 2 run\(s\) passed$/m);
    expect(r.stdout).to.match(/^ {2}2\/2 {2}stress fixture fails when asked to$/m);
  });

  it('exits 0 when every run passes', async () => {
    const r = await runStress(['--runs', '1', '--busy', '1', '--nice', '19', FIXTURE]);
    expect(r.code, r.stdout).to.equal(0);
    expect(r.stdout).to.match(/^run 1\/1: 2 passed, 0 failed in \d+ s$/m);
    expect(r.stdout).to.match(/^1 of 1 run\(s\) passed$/m);
  });
});
