import { expect } from 'chai';
import { Writable } from 'node:stream';
import { percentile, progressText, reportMode, summarize, table } from '../../../lib/cli/bench-report';

describe('lib/cli bench report', () => {
  it('chooses the live line on a terminal, lines on a pipe, JSON when asked', () => {
    const pipe = new Writable({ write(_c, _e, cb) { cb(); } });
    const tty = Object.assign(new Writable({ write(_c, _e, cb) { cb(); } }), { isTTY: true });
    expect(reportMode(pipe, false)).to.equal('lines');
    expect(reportMode(tty, false)).to.equal('tty');
    expect(reportMode(tty, true)).to.equal('json');
  });

  it('percentiles and summaries', () => {
    expect(percentile([], 99)).to.equal(0);
    const lat = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(summarize(lat)).to.deep.equal({ p50: 51, p99: 100, max: 100 });
  });

  it('the live line and the table read well', () => {
    expect(progressText(12.4, 45321.7, 'sent', 543210, { p50: 1, p99: 3.456, max: 9 }, 0))
      .to.equal('[12s] 45,322 msg/s  sent 543,210  p99 3.46 ms  failed 0');
    expect(table(['mode', 'sent', 'p99 ms'], [['sync', 12345, 1.5], ['async', 7, 10.25]])).to.equal(
      'mode     sent  p99 ms\n' +
      'sync   12,345    1.50\n' +
      'async       7   10.25\n');
  });
});
