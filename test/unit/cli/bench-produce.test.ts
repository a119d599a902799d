import { expect } from 'chai';
import { Writable } from 'node:stream';
import { benchProduce } from '../../../lib/cli/bench-produce';
import { type ScriptedCluster, sends, startScriptedCluster } from '../../helpers/scripted-cluster';

describe('lib/cli bench produce', function () {
  this.timeout(10_000);
  let cluster: ScriptedCluster;
  beforeEach(async () => { cluster = await startScriptedCluster(1, { BenchT: 2 }); });
  afterEach(async () => { await cluster.stop(); });

  function sink(): { stream: Writable; text: () => string } {
    let text = '';
    return { stream: new Writable({ write(c: Buffer, _e, cb) { text += c.toString(); cb(); } }), text: () => text };
  }

  for (const mode of ['sync', 'async', 'batch']) {
    it(`sends --count messages in ${mode} mode and prints a total`, async () => {
      const out = sink();
      const code = await benchProduce(['--namesrv', cluster.namesrvAddr, '--topic', 'BenchT', '--count', '20', '--mode', mode, '--concurrency', '4', '--batch-size', '8', '--size', '64'], out.stream);
      expect(code).to.equal(0);
      expect(out.text()).to.match(/\[total\] sent=20 /);
      const msgs = sends(cluster.brokers[0]);
      expect(msgs.length).to.equal(mode === 'batch' ? 3 : 20);
    });
  }

  it('--json prints one JSON object with the totals and nothing else', async () => {
    const out = sink();
    const code = await benchProduce(['--namesrv', cluster.namesrvAddr, '--topic', 'BenchT', '--count', '10', '--size', '16', '--json'], out.stream);
    expect(code).to.equal(0);
    const lines = out.text().trim().split('\n');
    expect(lines).to.have.length(1);
    const obj = JSON.parse(lines[0]) as Record<string, unknown>;
    expect(obj).to.include({ mode: 'sync', sent: 10, failed: 0 });
    for (const k of ['seconds', 'tps', 'p50Ms', 'p99Ms', 'maxMs']) expect(obj[k], k).to.be.a('number');
  });

  it('on a terminal it ends with a table', async () => {
    const out = sink();
    (out.stream as unknown as { isTTY: boolean }).isTTY = true;
    const code = await benchProduce(['--namesrv', cluster.namesrvAddr, '--topic', 'BenchT', '--count', '10', '--size', '16'], out.stream);
    expect(code).to.equal(0);
    const lines = out.text().replace('\r\x1b[K', '').trim().split('\n');
    expect(lines[0].split(/\s{2,}/)).to.deep.equal(['mode', 'sent', 'failed', 'seconds', 'msg/s', 'p50 ms', 'p99 ms', 'max ms']);
    expect(lines[1]).to.match(/^sync\s+10\s+0\s+\d+\.\d\d\s/);
    expect(out.text()).not.to.include('[total]');
  });

  it('refuses a missing topic', async () => {
    const saved = process.stderr.write;
    process.stderr.write = (() => true) as typeof process.stderr.write;
    try {
      expect(await benchProduce(['--namesrv', cluster.namesrvAddr])).to.equal(2);
    } finally {
      process.stderr.write = saved;
    }
  });
});
