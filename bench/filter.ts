/**
 * SQL92 filter throughput: messages evaluated per second by the broker's commit-log check
 * (ExpressionMessageFilter.isMatchedByCommitLog) for a 3-clause expression over realistic property strings.
 *
 * Run directly: `node dist/bench/filter.js [--messages N]`.
 */
import { performance } from 'node:perf_hooks';
import { CompiledExpressionCache, ExpressionMessageFilter } from '../lib/broker/filter/message-filter';
import { propertiesToString } from '../protocol/message/properties';
import { benchUsage, readBenchOptions, runBenchScript } from './bench-util';

export const FILTER_BENCH_EXPRESSION = "a > 5 AND b = 'x' AND c IS NOT NULL";

export interface FilterBenchResult {
  expression: string;
  messages: number;
  matched: number;
  elapsedMs: number;
  messagesPerSecond: number;
}

/** Property strings shaped like a producer's: system keys (UNIQ_KEY, TAGS, KEYS, WAIT...) plus the user's. */
function sampleProperties(count: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const props: Record<string, string> = {
      UNIQ_KEY: `7F00000100002A9F0000000000${(i + 0x10000).toString(16).toUpperCase()}`,
      CLUSTER: 'DefaultCluster',
      TAGS: i % 3 === 0 ? 'TagA' : 'TagB',
      KEYS: `order-${i}`,
      WAIT: 'true',
      a: String(i % 10),
      b: i % 2 === 0 ? 'x' : 'y',
      region: `r${i % 4}`,
    };
    if (i % 5 !== 0) props.c = `v${i}`;
    out.push(propertiesToString(props));
  }
  return out;
}

export async function runFilterBench(messages = 2_000_000): Promise<FilterBenchResult> {
  const filter = ExpressionMessageFilter.create(
    { topic: 'BenchTopic', subString: FILTER_BENCH_EXPRESSION, expressionType: 'SQL92' },
    new CompiledExpressionCache(),
  );
  const samples = sampleProperties(1024);
  // warm-up
  for (let i = 0; i < 100_000; i++) filter.isMatchedByCommitLog(samples[i & 1023]);
  let matched = 0;
  const start = performance.now();
  for (let i = 0; i < messages; i++) {
    if (filter.isMatchedByCommitLog(samples[i & 1023])) matched++;
  }
  const elapsedMs = performance.now() - start;
  const result: FilterBenchResult = {
    expression: FILTER_BENCH_EXPRESSION,
    messages,
    matched,
    elapsedMs,
    messagesPerSecond: Math.round(messages / (elapsedMs / 1000)),
  };
  console.log(
    `filter: ${JSON.stringify(result.expression)}: ${result.messages} messages in ${result.elapsedMs.toFixed(0)} ms, ` +
      `${result.messagesPerSecond.toLocaleString('en-US')} msg/s (${result.matched} matched)`,
  );
  return result;
}

export const FILTER_OPTIONS = { '--messages': 'value' } as const;

/** The options of the filter scenario; `ignoreUnknown` for the whole command line of bench/index.ts. */
export function parseFilterArgs(argv: readonly string[], how: { ignoreUnknown?: boolean } = {}): { messages?: number } {
  const o = readBenchOptions(argv, FILTER_OPTIONS, how);
  return { messages: o.number('--messages') };
}

if (require.main === module) {
  runBenchScript(benchUsage(FILTER_OPTIONS), (argv) => runFilterBench(parseFilterArgs(argv).messages));
}
