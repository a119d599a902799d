/**
 * consumeTimestamp: `yyyyMMddHHmmss` in local time, as Java's UtilAll.parseDate reads it.
 */
import { ConfigError } from '../errors';

/** yyyyMMddHHmmss (local time) to epoch ms. */
export function parseConsumeTimestamp(s: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(s);
  if (!m) throw new ConfigError(`consumeTimestamp is not yyyyMMddHHmmss: ${s}`);
  return new Date(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]).getTime();
}
