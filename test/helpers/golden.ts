/**
 * Access to the real Java captures in test/fixtures/golden (or $ROCKETMQ_GOLDEN_DIR).
 */
import fs from 'node:fs';
import path from 'node:path';

export const GOLDEN_DIR =
  process.env.ROCKETMQ_GOLDEN_DIR ?? path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'golden');

export interface GoldenFrameEntry {
  file: string;
  serverPort: number;
  dir: 'c2s' | 's2c';
  serializeType: 'JSON' | 'ROCKETMQ';
  headerLength: number;
  bodyLength: number;
  header: Record<string, unknown>;
}

export function scenarios(): string[] {
  const dir = path.join(GOLDEN_DIR, 'frames');
  return fs.readdirSync(dir).filter((d) => fs.existsSync(path.join(dir, d, 'index.json'))).sort();
}

export function frameIndex(scenario: string): GoldenFrameEntry[] {
  return JSON.parse(fs.readFileSync(path.join(GOLDEN_DIR, 'frames', scenario, 'index.json'), 'utf8'));
}

export function readFrame(scenario: string, file: string): Buffer {
  return fs.readFileSync(path.join(GOLDEN_DIR, 'frames', scenario, file));
}

export function goldenPath(...parts: string[]): string {
  return path.join(GOLDEN_DIR, ...parts);
}
