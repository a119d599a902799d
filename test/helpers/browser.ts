/**
 * Headless Chromium for the dashboard tests: Debian's `chromium` (or $CHROMIUM_PATH) driven by playwright-core.
 * `chromiumSkipReason()` says why it cannot run here, so a test can `this.skip()` with a clear line.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

export function chromiumPath(): string | null {
  if (process.env.CHROMIUM_PATH) return fs.existsSync(process.env.CHROMIUM_PATH) ? process.env.CHROMIUM_PATH : null;
  for (const p of CANDIDATES) if (fs.existsSync(p)) return p;
  try {
    return execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/** Why the browser tests cannot run here (null when they can). */
export function chromiumSkipReason(): string | null {
  return chromiumPath() ? null : 'skipped: no chromium (apt-get install chromium, or set CHROMIUM_PATH) for the dashboard browser tests';
}

export function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error('no chromium');
  // --no-sandbox: the tests may run as root (CI containers), where Chromium's sandbox refuses to start
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}
