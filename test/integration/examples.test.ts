/**
 * Every compiled example (dist/examples/*.js) runs as a child process and exits 0: against ROCKETMQ_NAMESRV_ADDR when
 * set, else each against the embedded cluster it starts itself (examples/support.ts).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';

const EXAMPLES_DIR = path.resolve(__dirname, '../../examples');
const EXAMPLES = fs.readdirSync(EXAMPLES_DIR).filter((f) => f.endsWith('.js') && f !== 'support.js').sort();
const PER_EXAMPLE_TIMEOUT = 60_000;

function runExample(file: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(EXAMPLES_DIR, file)], { stdio: ['ignore', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    const timer = setTimeout(() => child.kill('SIGKILL'), PER_EXAMPLE_TIMEOUT);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describe('examples/ run to completion', function () {
  this.timeout(PER_EXAMPLE_TIMEOUT + 10_000);
  let offsetDir = '';
  before(() => {
    offsetDir = fs.mkdtempSync(path.join(os.tmpdir(), 'examples-offsets-'));
  });
  after(() => {
    if (offsetDir) fs.rmSync(offsetDir, { recursive: true, force: true });
  });

  it('finds the examples', () => {
    expect(EXAMPLES).to.include.members([
      'consumer-push.js', 'consumer-orderly.js', 'consumer-broadcasting.js', 'consumer-lite-pull.js', 'consumer-async-iterator.js',
      'producer-sync.js', 'transaction-producer.js',
    ]);
  });

  for (const file of EXAMPLES) {
    it(`${file} exits 0`, async () => {
      const env = { ...process.env, ROCKETMQ_CLIENT_LOCAL_OFFSET_STORE_DIR: offsetDir, LINGER_MS: '15000' };
      const r = await runExample(file, env);
      expect(r.signal, `${file} was killed after ${PER_EXAMPLE_TIMEOUT} ms\n${r.stdout}`).to.equal(null);
      expect(r.code, `${file}\nstdout:\n${r.stdout}\nstderr (tail):\n${r.stderr.slice(-3000)}`).to.equal(0);
      expect(r.stdout.length).to.be.greaterThan(0);
    });
  }
});
