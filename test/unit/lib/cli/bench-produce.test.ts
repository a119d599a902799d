import { expect } from 'chai';
import { Writable } from 'node:stream';
import { benchProduce } from '../../../../lib/cli/bench-produce';
import { type ScriptedCluster, sends, startScriptedCluster } from '../helpers/scripted-cluster';

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
