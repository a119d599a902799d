/**
 * The ```ts run blocks of docs/getting-started.md, run as written (in order) against an in-process cluster.
 */
import { createRequire } from 'node:module';
import { expect } from 'chai';
import { type Cluster, startCluster } from '../../../lib/server';
import { docBlocks, runnableModule } from '../../helpers/doc-blocks';

const nodeRequire = createRequire(__filename);

const PACKAGE: Record<string, string> = {
  'rocketmq-ts': require.resolve('../../../lib/index'),
  'rocketmq-ts/server': require.resolve('../../../lib/server'),
};

/** Runs one snippet with `process.env.ROCKETMQ_NAMESRV_ADDR` pointing at the cluster; resolves with what it logged. */
async function runSnippet(code: string, namesrvAddr: string): Promise<string[]> {
  const logged: string[] = [];
  const fakeConsole = { ...console, log: (...args: unknown[]) => { logged.push(args.map(String).join(' ')); } };
  const fakeProcess = { ...process, env: { ...process.env, ROCKETMQ_NAMESRV_ADDR: namesrvAddr } };
  const mod = { exports: {} as { __main?: () => Promise<void> } };
  const load = (id: string): unknown => nodeRequire(PACKAGE[id] ?? id);
  new Function('require', 'module', 'exports', 'console', 'process', runnableModule(code))(load, mod, mod.exports, fakeConsole, fakeProcess);
  await mod.exports.__main!();
  return logged;
}

describe('docs/getting-started.md snippets', function () {
  this.timeout(60_000);
  let cluster: Cluster;

  before(async () => {
    cluster = await startCluster();
  });

  after(async () => {
    await cluster?.stop();
  });

  const blocks = docBlocks().filter((b) => b.page === 'docs/getting-started.md' && b.info === 'ts run');

  it('has the send, receive and in-process cluster snippets', () => {
    expect(blocks).to.have.length(3);
  });

  it('sends a message, receives it, and starts and stops a cluster, as written', async () => {
    const [send, receive, inProcess] = blocks;
    const sent = await runSnippet(send.code, cluster.namesrvAddr);
    expect(sent).to.have.length(1);
    expect(sent[0]).to.match(/^SEND_OK [0-9A-F]{32} \d+ 0$/);
    const received = await runSnippet(receive.code, cluster.namesrvAddr);
    expect(received[0]).to.equal(`received ${sent[0].split(' ')[1]} Hello RocketMQ`);
    const started = await runSnippet(inProcess.code, cluster.namesrvAddr);
    expect(started[0]).to.match(/^name server at 127\.0\.0\.1:\d+$/);
  });
});
