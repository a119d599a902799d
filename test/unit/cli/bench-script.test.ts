/**
 * bench/bench-util.ts runBenchScript and readBenchOptions: a bench script run directly answers --help with its usage,
 * and an unknown option or a bad value with one line and the usage (exit code 2), not a stack trace and not a run
 * that ignores it; bench/index.ts refuses an option none of the named scenarios reads, before any runs.
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

  const SCRIPTS = [
    'matrix.js', 'producer.js', 'consumer.js', 'grpc.js', 'store.js', 'replicated.js', 'grpc-tls.js', 'security.js', 'controller.js', 'scale.js',
    'broker.js', 'cold-start.js', 'filter.js', 'namesrv.js', 'timer.js',
  ];
  for (const script of SCRIPTS) {
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

  const badValues: Array<[string, string[], string]> = [
    ['controller.js', ['--kills', 'abc'], '--kills takes a number, not "abc"'],
    ['controller.js', ['--kills', '-1'], '--kills needs a whole number, got -1'],
    ['replicated.js', ['--sides', 'ours,jav'], '--sides: "jav" is not one of ours, java'],
    ['matrix.js', ['--scenario', 'sync x2'], '--scenario: "sync x2" is not one of sync x1, sync x16, async x256, drain, latency, sync-flush, store'],
    ['scale.js', ['--topics', '1000,x'], '--topics takes whole numbers separated by commas (or none), not "1000,x"'],
    ['grpc-tls.js', ['--duration'], '--duration needs a value'],
  ];
  for (const [script, args, line] of badValues) {
    it(`${script} ${args.join(' ')}: one line saying what is wrong, and the usage (exit 2)`, () => {
      const bad = run(script, ...args);
      expect(bad.status).to.equal(2);
      expect(bad.stderr.split('\n')[0]).to.equal(line);
      expect(bad.stderr.split('\n')[1]).to.match(/^usage: /);
    });
  }

  it('index.js: an option none of the named scenarios reads, or a bad value, is refused before any scenario runs', () => {
    const typo = run('index.js', 'matrix', 'replicated', '--round', '5');
    expect(typo.status).to.equal(2);
    expect(typo.stderr.split('\n').filter(Boolean)).to.deep.equal(['unknown option --round (read by none of: matrix, replicated)']);
    const badValue = run('index.js', 'matrix', 'replicated', '--rounds', '5', '--kills', 'abc');
    expect(badValue.status).to.equal(2);
    expect(badValue.stderr.split('\n').filter(Boolean)).to.deep.equal(['--kills takes a number, not "abc"']);
    // another scenario's option, on a line that does not name it
    const other = run('index.js', 'codec', '--kills', '3');
    expect(other.status).to.equal(2);
    expect(other.stderr).to.match(/^unknown option --kills \(read by none of: codec\)$/m);
  });
});
