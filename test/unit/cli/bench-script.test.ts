/**
 * bench/bench-util.ts runBenchScript: a bench script run directly answers --help with its usage and an unknown
 * option with one line and the usage (exit code 2), not a stack trace.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';

const BENCH = path.resolve(__dirname, '..', '..', '..', 'bench');

function run(script: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(BENCH, script), ...args], { encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('bench scripts run directly: --help and an unknown option', function () {
  this.timeout(60_000);

  for (const script of ['matrix.js', 'producer.js', 'consumer.js', 'grpc.js']) {
    it(`${script}: --help prints the usage (exit 0); --bogus one line and the usage (exit 2)`, () => {
      const help = run(script, '--help');
      expect(help.status).to.equal(0);
      expect(help.stdout).to.match(new RegExp(`^usage: node \\S*${script.replace('.', '\\.')} \\[--`));
      const bad = run(script, '--bogus');
      expect(bad.status).to.equal(2);
      expect(bad.stderr.split('\n')[0]).to.equal('unknown option --bogus');
      expect(bad.stderr).to.match(/^usage: /m);
      expect(bad.stderr).to.not.match(/^\s+at /m);
    });
  }
});
