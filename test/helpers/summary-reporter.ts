/**
 * Mocha's spec reporter, plus one closing line `N passed, N failed[, N skipped]` alone on a line for CI.
 */
import Mocha from 'mocha';

const { EVENT_RUN_END } = Mocha.Runner.constants;

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const s = runner.stats;
      if (!s) return;
      const skipped = s.pending > 0 ? `, ${s.pending} skipped` : '';
      // After the spec reporter's own epilogue.
      setImmediate(() => process.stdout.write(`\n${s.passes} passed, ${s.failures} failed${skipped}\n`));
    });
  }
}

export = SummaryReporter;
