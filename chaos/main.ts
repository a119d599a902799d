/**
 * `npm run chaos -- <scenario|all> [--cycles N] [--pause-ms MS] [--keep]`: runs chaos scenarios against child processes
 * and prints `cycles, acknowledged, lost, duplicated` for each. Exit 1 when a scenario that promises no loss lost a
 * message (or failed to run).
 * `npm run chaos -- net <scenario|all> [--minutes M] [--keep] [--java]`: the network scenarios across hosts in network
 * namespaces (chaos/net; root only), each ending with the checker's report; exit 1 when a check fails. `--java` runs
 * a DLedger scenario again right after ours with Java 4.9.8 brokers as the peers and prints both runs' availability
 * figures side by side.
 */
import { parseArgs } from 'node:util';
import { SCENARIOS, formatResult } from './scenarios';
import { killAll } from './procs';
import { fuzzRun } from './fuzz-run';
import { NET_SCENARIOS, NET_SCENARIO_NEEDS, type NetScenarioResult, javaUnavailable } from './net/scenarios';
import { type CheckReport, formatReport } from './net/checker';
import { destroyAllNetClusters, netFaultsUnavailable, netnsUnavailable } from './net/netns';

const USAGE = `usage: npm run chaos -- <scenario|all> [--cycles N] [--pause-ms MS] [--acks-per-cycle N] [--keep]
       npm run chaos -- fuzz [--frames N] [--seed S]
       npm run chaos -- net <net scenario|all> [--minutes M] [--producers N] [--keep] [--java]
scenarios: ${Object.keys(SCENARIOS).join(', ')}
net scenarios (root, ip netns): ${Object.keys(NET_SCENARIOS).join(', ')}
`;

/** Ours and Java 4.9.8's figures of one DLedger scenario, side by side (fault by fault, then the run's totals). */
function formatComparison(ours: CheckReport, java: CheckReport): string {
  const ms = (v: number | null | undefined): string => (v === null || v === undefined ? '-' : `${(v / 1000).toFixed(1)} s`);
  const rows: Array<[string, string, string]> = [
    ['acknowledged', String(ours.acknowledged), String(java.acknowledged)],
    ['lost', String(ours.lost), String(java.lost)],
    ['duplicates stored / consumed', `${ours.duplicatesStored} / ${ours.duplicatesConsumed}`, `${java.duplicatesStored} / ${java.duplicatesConsumed}`],
    ['longest stretch without SEND_OK', ms(ours.maxNoAckMs), ms(java.maxNoAckMs)],
  ];
  for (let i = 0; i < Math.max(ours.faults.length, java.faults.length); i++) {
    const o = ours.faults[i];
    const j = java.faults[i];
    rows.push(
      [`fault ${i + 1}: without SEND_OK`, ms(o?.noAckMs), ms(j?.noAckMs)],
      [`fault ${i + 1}: new master at the name server`, ms(o?.newMasterMs), ms(j?.newMasterMs)],
      [`fault ${i + 1}: clients followed after`, ms(o?.clientsFollowMs), ms(j?.clientsFollowMs)],
      [`fault ${i + 1}: no master after the heal`, ms(o?.masterMissingAfterHealMs), ms(j?.masterMissingAfterHealMs)],
    );
  }
  const w = Math.max(...rows.map((r) => r[0].length));
  const v = Math.max(11, ...rows.map((r) => r[1].length));
  return [`  ${''.padEnd(w)}  ${'rocketmq-ts'.padStart(v)}  ${'Java 4.9.8'.padStart(10)}`,
    ...rows.map(([k, a, b]) => `  ${k.padEnd(w)}  ${a.padStart(v)}  ${b.padStart(10)}`)].join('\n');
}

async function net(name: string | undefined, minutes: number | undefined, producers: number | undefined, keep: boolean, java: boolean): Promise<number> {
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
    const runs: Array<{ java: boolean }> = [{ java: false }];
    if (java) {
      const why = !n.startsWith('dledger') ? 'the Java comparison runs DLedger scenarios only' : javaUnavailable();
      if (why) process.stdout.write(`${n}: no Java 4.9.8 run: ${why}\n`);
      else runs.push({ java: true });
    }
    const results: NetScenarioResult[] = [];
    for (const { java: withJava } of runs) {
      const started = Date.now();
      const who = withJava ? ', Java 4.9.8 brokers' : '';
      try {
        const r = await NET_SCENARIOS[n]({ minutes, producers, keep, java: withJava, log: (l) => process.stderr.write(`[${new Date().toISOString().slice(11, 23)}] ${l}\n`) });
        const levels = r.levels.map((l) => `level ${l.label}: ${l.tbf ? `tbf on ${l.tbf.host} sent ${l.tbf.sentPackets} packets, overlimits ${l.tbf.overlimits}, dropped ${l.tbf.dropped}` : `loss rules dropped ${JSON.stringify(l.dropped)}`}`);
        process.stdout.write(`${formatReport(`${n} (${r.mode}${who})`, r.report)}\n  ${[...levels, ...r.notes].join('\n  ')}\n  [${Math.round((Date.now() - started) / 1000)} s]\n`);
        if (r.report.failures.length > 0) bad = true;
        results.push(r);
      } catch (err) {
        process.stdout.write(`${n}${who}: FAILED ${(err as Error).stack}\n`);
        bad = true;
      }
    }
    if (results.length === 2) process.stdout.write(`${n}: rocketmq-ts and Java 4.9.8 brokers side by side\n${formatComparison(results[0].report, results[1].report)}\n`);
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
      keep: { type: 'boolean', default: false }, java: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const name = positionals[0];
  if (name === 'net') {
    return net(positionals[1], values.minutes ? Number(values.minutes) : undefined, values.producers ? Number(values.producers) : undefined, values.keep, values.java);
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
