/**
 * The one `waitFor` of the tests: polls a condition (sync or async) until it holds, and fails with what it waited
 * for after `timeout` ms. Tests wait on state this way instead of sleeping for a guessed time.
 */
export async function waitFor(predicate: () => boolean | Promise<boolean>, timeout = 5000, what = 'condition', intervalMillis = 10): Promise<void> {
  const deadline = Date.now() + timeout;
  for (;;) {
    if (await predicate()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMillis));
  }
}
