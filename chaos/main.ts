/**
 * `npm run chaos -- <scenario|all> [--cycles N] [--pause-ms MS] [--keep]`: runs chaos scenarios against child processes
 * and prints `cycles, acknowledged, lost, duplicated` for each. Exit 1 when a scenario that promises no loss lost a
 * message (or failed to run).
 * `npm run chaos -- net <scenario|all> [--minutes M] [--keep]`: the network scenarios across hosts in network
 * namespaces (chaos/net; root only), each ending with the checker's report; exit 1 when a check fails.
 */
import { parseArgs } from 'node:util';
import { SCENARIOS, formatResult } from './scenarios';
import { killAll } from './procs';
import { fuzzRun } from './fuzz-run';
import { NET_SCENARIOS, NET_SCENARIO_NEEDS } from './net/scenarios';
import { formatReport } from './net/checker';
import { destroyAllNetClusters, netFaultsUnavailable, netnsUnavailable } from './net/netns';

const USAGE = `usage: npm run chaos -- <scenario|all> [--cycles N] [--pause-ms MS] [--acks-per-cycle N] [--keep]
       npm run chaos -- fuzz [--frames N] [--seed S]
       npm run chaos -- net <net scenario|all> [--minutes M] [--producers N] [--keep]
scenarios: ${Object.keys(SCENARIOS).join(', ')}
net scenarios (root, ip netns): ${Object.keys(NET_SCENARIOS).join(', ')}
`;

async function net(name: string | undefined, minutes: number | undefined, producers: number | undefined, keep: boolean): Promise<number> {
  if (!name || (name !== 'all' && !NET_SCENARIOS[name])) {
    process.stdout.write(USAGE);
    return 2;
  }
  const why = netnsUnavailable();
  if (why) {
    process.stdout.write(`net scenarios skipped: ${why}\n`);
    return 0;
  }
  let bad = false;
  const missing = netFaultsUnavailable();
  for (const n of name === 'all' ? Object.keys(NET_SCENARIOS) : [name]) {
    const need = NET_SCENARIO_NEEDS[n];
    if (need && missing[need]) {
      process.stdout.write(`${n}: skipped, ${need} unavailable here: ${missing[need]}\n`);
      continue;
    }
    const started = Date.now();
    try {
      const r = await NET_SCENARIOS[n]({ minutes, producers, keep, log: (l) => process.stderr.write(`[${new Date().toISOString().slice(11, 23)}] ${l}\n`) });
      const levels = r.levels.map((l) => `level ${l.label}: ${l.tbf ? `tbf on ${l.tbf.host} sent ${l.tbf.sentPackets} packets, overlimits ${l.tbf.overlimits}, dropped ${l.tbf.dropped}` : `loss rules dropped ${JSON.stringify(l.dropped)}`}`);
      process.stdout.write(`${formatReport(`${n} (${r.mode})`, r.report)}\n  ${[...levels, ...r.notes].join('\n  ')}\n  [${Math.round((Date.now() - started) / 1000)} s]\n`);
      if (r.report.failures.length > 0) bad = true;
    } catch (err) {
      process.stdout.write(`${n}: FAILED ${(err as Error).stack}\n`);
      bad = true;
    }
  }
  return bad ? 1 : 0;
}

async function fuzz(frames: number, seed?: number): Promise<number> {
  const r = await fuzzRun({ frames, seed, log: (l) => process.stdout.write(`${l}\n`) });
  const bad = [r.namesrv, r.broker].some((x) => x.hung > 0 || x.badResponses.length > 0 || x.probesFailed > 0) || !r.namesrvAlive || !r.brokerAlive;
  for (const x of [r.namesrv, r.broker]) for (const b of x.badResponses) process.stdout.write(`  bad response: ${b}\n`);
  process.stdout.write(`fuzz: ${bad ? 'FAILED' : 'ok'} (servers alive: namesrv ${r.namesrvAlive}, broker ${r.brokerAlive})\n`);
  return bad ? 1 : 0;
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      cycles: { type: 'string' }, minutes: { type: 'string' }, producers: { type: 'string' }, frames: { type: 'string' }, seed: { type: 'string' }, 'pause-ms': { type: 'string' }, 'acks-per-cycle': { type: 'string' },
      keep: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const name = positionals[0];
  if (name === 'net') {
    return net(positionals[1], values.minutes ? Number(values.minutes) : undefined, values.producers ? Number(values.producers) : undefined, values.keep);
  }
  if (name === 'fuzz') return fuzz(values.frames ? Number(values.frames) : 100_000, values.seed ? Number(values.seed) : undefined);
  if (values.help || !name || (name !== 'all' && !SCENARIOS[name])) {
    process.stdout.write(USAGE);
    return values.help ? 0 : 2;
  }
  const names = name === 'all' ? Object.keys(SCENARIOS) : [name];
  let bad = false;
  for (const n of names) {
    const cycles = values.cycles ? Number(values.cycles) : n === 'broker-kill-sync' ? 100 : 10;
    const started = Date.now();
    try {
      const r = await SCENARIOS[n]({
        cycles, pauseMs: values['pause-ms'] ? Number(values['pause-ms']) : undefined,
        acksPerCycle: values['acks-per-cycle'] ? Number(values['acks-per-cycle']) : undefined,
        keep: values.keep, log: (l) => process.stderr.write(`${l}\n`),
      });
      process.stdout.write(`${formatResult(r)} [${Math.round((Date.now() - started) / 1000)} s]\n`);
      if (r.lost > 0 && r.promise === 'lost must be 0') bad = true;
      if (n === 'torn-writes' && r.duplicated > 0) bad = true; // a torn record was served
    } catch (err) {
      process.stdout.write(`${n}: FAILED ${(err as Error).stack}\n`);
      bad = true;
    }
  }
  return bad ? 1 : 0;
}

const stop = (): void => { void killAll().then(() => { destroyAllNetClusters(); process.exit(130); }); };
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
main().then((code) => { process.exitCode = code; }, (err: unknown) => { process.stderr.write(`${(err as Error).stack}\n`); process.exitCode = 1; });
