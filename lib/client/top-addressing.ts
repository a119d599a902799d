/**
 * Name server addresses from an HTTP endpoint, as Java clients look them up when no namesrvAddr is configured:
 * GET `http://{rocketmq.namesrv.domain}:8080/rocketmq/{rocketmq.namesrv.domain.subgroup}` (a domain that holds a
 * port drops the `:8080`), `-{unitName}?nofix=1` appended for a unit. The answer's first line is the `;`-separated
 * list. Java reads the two names from system properties; here from the environment: `ROCKETMQ_NAMESRV_DOMAIN`
 * (default `jmenv.tbsite.net`) and `ROCKETMQ_NAMESRV_DOMAIN_SUBGROUP` (default `nsaddr`).
 *
 * @see org.apache.rocketmq.common.namesrv.TopAddressing
 * @see org.apache.rocketmq.common.MixAll#getWSAddr
 */
import type { Logger } from '../logger';
import { MixAll } from './mix-all';

export function getWSAddr(env: NodeJS.ProcessEnv = process.env): string {
  const domain = env.ROCKETMQ_NAMESRV_DOMAIN || MixAll.DEFAULT_NAMESRV_ADDR_LOOKUP;
  const subgroup = env.ROCKETMQ_NAMESRV_DOMAIN_SUBGROUP || 'nsaddr';
  if (domain.indexOf(':') > 0) return `http://${domain}/rocketmq/${subgroup}`;
  return `http://${domain}:8080/rocketmq/${subgroup}`;
}

/** The first line of the trimmed text (Java's clearNewLine). */
export function clearNewLine(str: string): string {
  const s = str.trim();
  let index = s.indexOf('\r');
  if (index !== -1) return s.substring(0, index);
  index = s.indexOf('\n');
  if (index !== -1) return s.substring(0, index);
  return s;
}

export class TopAddressing {
  constructor(
    readonly wsAddr: string,
    readonly unitName?: string,
    private readonly logger?: Logger,
  ) {}

  /** The address list, or null when the endpoint cannot be reached or does not answer 200. Never throws. */
  async fetchNSAddr(verbose = true, timeoutMillis = 3000): Promise<string | null> {
    let url = this.wsAddr;
    if (this.unitName && this.unitName.trim().length > 0) url = `${url}-${this.unitName}?nofix=1`;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMillis);
    timer.unref();
    try {
      const res = await fetch(url, { signal: controller.signal, headers: { 'Content-Type': 'application/x-www-form-urlencoded;charset=UTF-8' } });
      const text = await res.text();
      if (res.status === 200) return clearNewLine(text);
      this.logger?.error({ url, statusCode: res.status }, 'fetch nameserver address failed');
    } catch (err) {
      if (verbose) this.logger?.error({ url, err }, 'fetch name server address exception');
    } finally {
      clearTimeout(timer);
    }
    if (verbose) this.logger?.warn({ url }, 'connect to the name server address endpoint failed');
    return null;
  }
}
