/**
 * Mocha's spec reporter, plus one closing line `N passed, N failed[, N skipped]` alone on a line for CI.
 * With RMQ_TEST_RESULT_FILE set, it also writes the totals and each failure (title, file, message) there as JSON,
 * which `npm run test:stress` reads.
 */
import { writeFileSync } from 'node:fs';
import Mocha from 'mocha';

const { EVENT_RUN_END, EVENT_TEST_FAIL } = Mocha.Runner.constants;

/** The JSON written to RMQ_TEST_RESULT_FILE (test/stress.ts reads the same shape). */
interface TestResultFile {
  passes: number;
  failures: number;
  pending: number;
  failed: { title: string; file?: string; message: string }[];
}

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    const failed: TestResultFile['failed'] = [];
    runner.on(EVENT_TEST_FAIL, (test: Mocha.Test, err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      failed.push({ title: test.fullTitle(), file: test.file, message: message.split('\n')[0] });
    });
    runner.once(EVENT_RUN_END, () => {
      const s = runner.stats;
      if (!s) return;
      const resultFile = process.env.RMQ_TEST_RESULT_FILE;
      if (resultFile) {
        const result: TestResultFile = { passes: s.passes, failures: s.failures, pending: s.pending, failed };
        writeFileSync(resultFile, JSON.stringify(result));
      }
      const skipped = s.pending > 0 ? `, ${s.pending} skipped` : '';
      // After the spec reporter's own epilogue.
      setImmediate(() => process.stdout.write(`\n${s.passes} passed, ${s.failures} failed${skipped}\n`));
    });
  }
}

export = SummaryReporter;
