/**
 * The `rocketmq-ts` command's exit codes, as docs/cli.md states them: 2 and one line for a usage mistake (an unknown
 * option, a malformed value, options that exclude each other), 1 and one line for a command that failed; never a
 * stack without --debug. Each case fails before any server starts.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { UsageError, exitCodeOf } from '../../../lib/cli/cli-errors';
import { ConfigError } from '../../../lib/errors';

const MAIN = path.resolve(__dirname, '..', '..', '..', 'lib', 'cli', 'main.js');

function run(...args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, ROCKETMQ_DEBUG: '' } });
  return { status: r.status, stderr: r.stderr };
}

describe('rocketmq-ts exit codes', function () {
  this.timeout(60_000);

  const USAGE_MISTAKES: Array<[string[], string]> = [
    [['start', '--bogus'], 'rocketmq-ts: unknown option --bogus'],
    [['start', '--controller', '--dledger', '3'], 'rocketmq-ts: --controller and --dledger exclude each other'],
    [['namesrv', '-p', 'notaport'], 'rocketmq-ts: bad port: notaport'],
    [['namesrv', '--noSuchKey=1'], 'rocketmq-ts: unknown name server option(s): noSuchKey'],
    [['broker', '--bogus'], 'rocketmq-ts: unknown option --bogus'],
    [['controller', '--bogus'], 'rocketmq-ts: unknown option --bogus'],
    [['dashboard', '--port', 'x'], 'rocketmq-ts: --port takes an integer from 0 to 65535, not x'],
    [['--log-format', 'xml', 'start'], 'rocketmq-ts: --log-format takes pretty or json, not xml'],
  ];
  for (const [args, line] of USAGE_MISTAKES) {
    it(`${args.join(' ')}: exit 2, one line`, () => {
      const r = run(...args);
      expect(r.status, r.stderr).to.equal(2);
      expect(r.stderr).to.equal(`${line}\n`);
    });
  }

  it('bench produce --bogus (Node\'s parseArgs refuses it): exit 2, no stack', () => {
    const r = run('bench', 'produce', '--bogus');
    expect(r.status, r.stderr).to.equal(2);
    expect(r.stderr).to.match(/^rocketmq-ts: Unknown option '--bogus'/);
    expect(r.stderr).to.not.match(/^\s+at /m);
  });

  it('a command that fails (a configuration file that is not there): exit 1, one line', () => {
    const r = run('broker', '-c', '/nonexistent/broker.conf');
    expect(r.status, r.stderr).to.equal(1);
    expect(r.stderr).to.equal('rocketmq-ts: no such file or directory: /nonexistent/broker.conf\n');
  });

  it('exitCodeOf: 2 for UsageError and parseArgs errors only', () => {
    expect(exitCodeOf(new UsageError('x'))).to.equal(2);
    expect(exitCodeOf(Object.assign(new TypeError('x'), { code: 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' }))).to.equal(2);
    expect(exitCodeOf(new ConfigError('x'))).to.equal(1);
    expect(exitCodeOf(Object.assign(new Error('x'), { code: 'ENOENT' }))).to.equal(1);
    expect(exitCodeOf('text')).to.equal(1);
  });
});
