/**
 * Benchmark runner: `node dist/bench/index.js [scenario...]` (or `npm run bench -- [scenario...]`) runs the named
 * scenarios (all when none) and prints one table at the end; `--list` prints the names. Scenarios: codec, store,
 * namesrv, filter, broker (raw client, cold start), coldstart (precise, median of 5), producer and consumer (ours vs ali-ons against a broker child
 * process), matrix (ours, ali-ons and the Java client against the Java broker and ours, with ratios), replicated (our replicated
 * groups beside Java's, a process per peer), controller (controller-mode failover time, and a 2-replica set beside Java 5.3.3's), grpc (the 5.x gRPC client through our endpoint beside our SDK over remoting), scale (cost against size; long, so it runs only when named). Each scenario
 * module is loaded only when it runs.
 */
import { type BenchOptionSpec, BenchUsageError, formatResults, readBenchOptions, takeTargets, type BenchResult } from './bench-util';

/** `store append ASYNC_FLUSH x512` -> `store-append-async_flush-x512`. */
function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9_]+/g, '-').replace(/^-|-$/g, '');
}

export type { BenchResult } from './bench-util';

/**
 * A scenario: what it measures, how it runs with the command line's options, and which options it reads (its module's
 * spec, loaded only for the scenarios named): an option none of the named scenarios reads is refused before any runs.
 */
interface Scenario {
  about: string;
  run: (options: string[]) => Promise<BenchResult[]>;
  /** The options it reads (its module's spec), once the values of those given are checked (a bad one throws). */
  options?: (options: string[]) => Promise<BenchOptionSpec>;
}

const IGNORE_OTHERS = { ignoreUnknown: true };

/** A scenario module's option spec, after its parser read the command line (which throws on a bad value). */
function checked<M>(m: M, parse: (m: M) => unknown, spec: (m: M) => BenchOptionSpec): BenchOptionSpec {
  parse(m);
  return spec(m);
}

const SCENARIOS: Record<string, Scenario> = {
  codec: {
    about: 'remoting command and message encode/decode',
    run: async () => (await import('./codec')).runCodecBench(),
  },
  store: {
    about: 'store appends (ASYNC/SYNC flush) next to a plain sequential write, queue reads, SYNC_FLUSH before and after kill -9',
    run: async () => {
      const m = await import('./store');
      const rows = await m.runStoreBench();
      m.printStoreBench(rows);
      return rows.map((r) => ({
        name: `store.${slug(r.scenario)}`, opsPerSec: r.msgPerSec, meanMicros: 1e6 / r.msgPerSec, ops: r.messages,
        note: `${r.mbPerSec.toFixed(1)} MB/s`,
      }));
    },
  },
  namesrv: {
    about: 'name server route lookups while brokers register',
    options: async (options) => checked(await import('./namesrv'), (m) => m.parseNamesrvArgs(options, IGNORE_OTHERS), (m) => m.NAMESRV_OPTIONS),
    run: async (options) => {
      const m = await import('./namesrv');
      const r = await m.runNamesrvBench(m.parseNamesrvArgs(options, IGNORE_OTHERS).durationMillis);
      return [{
        name: 'namesrv.route-lookup', opsPerSec: r.lookupsPerSec, meanMicros: 1e6 / r.lookupsPerSec, ops: 0,
        note: `p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms, ${Math.round(r.registrationsPerSec)} registrations/s, ${r.errors} errors`,
      }];
    },
  },
  filter: {
    about: 'SQL92 filter evaluation against commit-log properties',
    options: async (options) => checked(await import('./filter'), (m) => m.parseFilterArgs(options, IGNORE_OTHERS), (m) => m.FILTER_OPTIONS),
    run: async (options) => {
      const m = await import('./filter');
      const r = await m.runFilterBench(m.parseFilterArgs(options, IGNORE_OTHERS).messages);
      return [{
        name: 'filter.sql92', opsPerSec: r.messagesPerSecond, meanMicros: r.elapsedMs * 1000 / r.messages, ops: r.messages,
        note: `${r.matched} matched`,
      }];
    },
  },
  broker: {
    about: 'raw-client send/pull against a broker child process, cold start of `rocketmq-ts start`',
    options: async (options) => checked(await import('./broker'), (m) => m.parseBrokerArgs(options, IGNORE_OTHERS), (m) => m.BROKER_OPTIONS),
    run: async (options) => {
      const m = await import('./broker');
      const r = await m.runBrokerBench(m.parseBrokerArgs(options, IGNORE_OTHERS));
      process.stdout.write(`${m.formatBrokerBench(r)}\n`);
      return [
        ...r.rows.map((row) => ({
          name: `broker.${slug(row.scenario)}`, opsPerSec: row.msgPerSec, meanMicros: 1e6 / row.msgPerSec, ops: row.messages,
          note: `p50 ${row.p50Ms.toFixed(2)} ms, p99 ${row.p99Ms.toFixed(2)} ms, RSS ${row.rssMB.toFixed(0)} MB`,
        })),
        { name: 'broker.cold-start', opsPerSec: 1000 / r.coldStartMs, meanMicros: r.coldStartMs * 1000, ops: 1, note: `${r.coldStartMs.toFixed(0)} ms to first response, peak RSS ${r.peakRssMB.toFixed(0)} MB` },
      ];
    },
  },
  coldstart: {
    about: '`rocketmq-ts start` time to first answer (name server, route, broker), median of 5',
    options: async (options) => checked(await import('./cold-start'), (m) => m.parseColdStartArgs(options, IGNORE_OTHERS), (m) => m.COLD_START_OPTIONS),
    run: async (options) => {
      const m = await import('./cold-start');
      const r = await m.runColdStartBench(m.parseColdStartArgs(options, IGNORE_OTHERS));
      process.stdout.write(`${m.formatColdStart(r)}\n`);
      return [{
        name: 'coldstart.broker-first-answer', opsPerSec: 1000 / r.median.brokerMs, meanMicros: r.median.brokerMs * 1000, ops: r.runs.length,
        note: `median ${r.median.brokerMs.toFixed(0)} ms (name server ${r.median.namesrvMs.toFixed(0)} ms, route ${r.median.routeMs.toFixed(0)} ms)`,
      }];
    },
  },
  timer: {
    about: 'timer-message lateness through our broker (deliver time to the consumer, p50 / p99 / max)',
    options: async (options) => checked(await import('./timer'), (m) => m.parseTimerArgs(options, IGNORE_OTHERS), (m) => m.TIMER_OPTIONS),
    run: async (options) => {
      const m = await import('./timer');
      const o = m.parseTimerArgs(options, IGNORE_OTHERS);
      const r = await m.runTimerBench(o.messages, o.spreadMs);
      return [{
        name: 'timer.lateness', opsPerSec: 0, meanMicros: r.p50Ms * 1000, ops: r.messages,
        note: `p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, max ${r.maxMs} ms, ${r.earlyCount} early; broker max ${r.brokerMaxMs} ms`,
      }];
    },
  },
  producer: {
    about: 'DefaultMQProducer vs ali-ons: sync x1, sync x16, async x256, batch32',
    run: async (options) => {
      const m = await import('./producer');
      return m.runProducerBench(m.parseProducerArgs(options, IGNORE_OTHERS));
    },
    options: async (options) => checked(await import('./producer'), (m) => m.parseProducerArgs(options, IGNORE_OTHERS), (m) => m.PRODUCER_OPTIONS),
  },
  ha: {
    about: 'master/slave replication: SYNC_MASTER vs ASYNC_MASTER sync x16 / async x256 (1 KiB), replication lag',
    run: async () => (await import('./ha')).runHaBench(),
  },
  dledger: {
    about: 'DLedger 3-peer group vs single master: sync x16 / async x256 (1 KiB); failover time over 20 leader kills',
    run: async () => (await import('./dledger')).runDLedgerBench(),
  },
  replicated: {
    about: 'ours beside Java 4.9.8, one broker process per peer: DLedger 3 peers, SYNC_MASTER + SLAVE, single master; sync x16 / async x256 (1 KiB, 8 queues); DLedger failover over --kills leader kills (kill -9 -> first SEND_OK, default 20) (--groups, --sides, --sync-messages, --async-messages)',
    run: async (options) => (await import('./replicated')).runReplicatedBench(options),
    options: async (options) => checked(await import('./replicated'), (m) => m.parseReplicatedArgs(options, IGNORE_OTHERS), (m) => m.REPLICATED_OPTIONS),
  },
  controller: {
    about: 'controller mode, one broker process per replica: failover time over --kills master kills (kill -9 -> first SEND_OK, default 20); sync x16 / async x256 of a 2-replica set, ours beside Java 5.3.3, and a 4.x SYNC_MASTER + SLAVE pair of ours (--sides, --sync-messages, --async-messages)',
    run: async (options) => (await import('./controller')).runControllerBench(options),
    options: async (options) => checked(await import('./controller'), (m) => m.parseControllerOptions(options, IGNORE_OTHERS), (m) => m.CONTROLLER_OPTIONS),
  },
  grpc: {
    about: 'the gRPC endpoint beside remoting, one broker process: rocketmq-client-nodejs sends sync x16 / async x256 (1 KiB) beside our SDK, and drains a topic with its SimpleConsumer and PushConsumer beside our push consumer; broker CPU per message (--duration, --warmup, --messages, --size)',
    run: async (options) => {
      const m = await import('./grpc');
      return m.grpcBenchResults(await m.runGrpcBench(m.parseGrpcArgs(options, IGNORE_OTHERS)));
    },
    options: async (options) => checked(await import('./grpc'), (m) => m.parseGrpcArgs(options, IGNORE_OTHERS), (m) => m.GRPC_OPTIONS),
  },
  security: {
    about: 'cost of ACL and of TLS: async x256 1 KiB sends with each on and off',
    run: async () => (await import('./security')).runSecurityBench(),
  },
  'grpc-tls': {
    about: 'gRPC endpoint: QueryRoute and 1 KiB SendMessage x64 (bare grpc-js client) with tls.server.mode disabled, permissive plain, permissive TLS, and with ACL',
    run: async () => (await import('./grpc-tls')).runGrpcTlsBench(),
  },
  consumer: {
    about: 'push consumer drain, ours vs ali-ons',
    run: async (options) => {
      const m = await import('./consumer');
      return m.runConsumerBench(m.parseConsumerArgs(options, IGNORE_OTHERS));
    },
    options: async (options) => checked(await import('./consumer'), (m) => m.parseConsumerArgs(options, IGNORE_OTHERS), (m) => m.CONSUMER_OPTIONS),
  },
  scale: {
    about: 'cost against size, ours beside Java 4.9.8: 1,000-50,000 topics, 500-5,000 connections, 64/1,024-queue drains (--topics, --conns, --queues, --budget, --svg FILE)',
    run: async (options) => (await import('./scale')).runScaleBench(options),
    options: async (options) => checked(await import('./scale'), (m) => m.parseScaleArgs(options, IGNORE_OTHERS), (m) => m.SCALE_OPTIONS),
  },
  matrix: {
    about: 'ours / ali-ons / Java 4.9.8 client against the Java 4.9.8 broker and ours: sync x1, sync x16, async x256, drain 100k',
    run: async (options) => {
      const m = await import('./matrix');
      return m.runMatrixBench(m.parseMatrixArgs(options, IGNORE_OTHERS));
    },
    options: async (options) => checked(await import('./matrix'), (m) => m.parseMatrixArgs(options, IGNORE_OTHERS), (m) => m.MATRIX_OPTIONS),
  },
};

export const SCENARIO_NAMES: readonly string[] = Object.keys(SCENARIOS);

export function listScenarios(): string {
  const w = Math.max(...SCENARIO_NAMES.map((n) => n.length));
  return SCENARIO_NAMES.map((n) => `${n.padEnd(w)}  ${SCENARIOS[n].about}`).join('\n');
}

export async function main(argv: string[]): Promise<number> {
  if (argv.includes('--list') || argv.includes('-l') || argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`usage: node dist/bench/index.js [scenario...] [--option value...]   (npm run bench -- [scenario...] [--option value...])\n${listScenarios()}\n`);
    return 0;
  }
  // Scenario names first; from the first --option on, options for the scenarios (e.g. scale --topics 1000,10000).
  const firstOption = argv.findIndex((a) => a.startsWith('--'));
  const given = firstOption < 0 ? argv : argv.slice(0, firstOption);
  const options = firstOption < 0 ? [] : argv.slice(firstOption);
  const names = given.length > 0 ? given : SCENARIO_NAMES.filter((n) => n !== 'scale');
  const unknown = names.filter((n) => !SCENARIOS[n]);
  if (unknown.length > 0) {
    process.stderr.write(`unknown scenario(s): ${unknown.join(', ')}; known:\n${listScenarios()}\n`);
    return 2;
  }
  try {
    const specs = await Promise.all(names.map((n) => SCENARIOS[n].options?.(options) ?? {}));
    readBenchOptions(options, Object.assign({}, ...specs) as BenchOptionSpec);
  } catch (err) {
    if (!(err instanceof BenchUsageError)) throw err;
    const none = err.message.startsWith('unknown option') ? ` (read by none of: ${names.join(', ')})` : '';
    process.stderr.write(`${err.message}${none}\n`);
    return 2;
  }
  const results: BenchResult[] = [];
  for (const n of names) {
    process.stderr.write(`== ${n}: ${SCENARIOS[n].about}\n`);
    results.push(...(await SCENARIOS[n].run(options)));
  }
  process.stdout.write(`node ${process.version}\n${formatResults(results)}\n`);
  const targets = takeTargets();
  if (targets.length > 0) {
    const missed = targets.filter((t) => t.startsWith('misses')).length;
    process.stdout.write(`\ntargets of this run (${names.join(', ')}): ${targets.length - missed} hold, ${missed} missed\n${targets.map((t) => `  ${t}`).join('\n')}\n`);
  }
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      // ali-ons (producer, consumer) leaves timers and reconnecting sockets behind after close(): exit explicitly.
      process.exit(code);
    },
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
