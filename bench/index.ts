/**
 * Benchmark runner: `node dist/bench/index.js [scenario...]` runs the named scenarios (all when none) and prints a
 * table. Scenarios: codec, producer and consumer (ours vs ali-ons against a broker child process).
 */
import { runCodecBench } from './codec';
import { runProducerBench } from './producer';
import { runConsumerBench } from './consumer';
import { formatResults, type BenchResult } from './bench-util';

export type { BenchResult } from './bench-util';

const SCENARIOS: Record<string, () => Promise<BenchResult[]>> = {
  codec: () => runCodecBench(),
  producer: () => runProducerBench(),
  consumer: () => runConsumerBench(),
};

export async function main(argv: string[]): Promise<number> {
  const names = argv.length > 0 ? argv : Object.keys(SCENARIOS);
  const unknown = names.filter((n) => !SCENARIOS[n]);
  if (unknown.length > 0) {
    process.stderr.write(`unknown scenario(s): ${unknown.join(', ')}; known: ${Object.keys(SCENARIOS).join(', ')}\n`);
    return 2;
  }
  const results: BenchResult[] = [];
  for (const n of names) results.push(...(await SCENARIOS[n]()));
  process.stdout.write(`node ${process.version}\n${formatResults(results)}\n`);
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
