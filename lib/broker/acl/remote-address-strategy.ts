/**
 * White-address patterns of plain_acl.yml, as Java's RemoteAddressStrategyFactory reads them: blank (matches
 * nothing), `*` / `*.*.*.*` / `*:*:*:*:*:*:*:*` (matches everything), one address, a comma list, a `{a,b}` list in the
 * last part, and ranges with `*` or `a-b` in a part (IPv4 and IPv6).
 *
 * @see org.apache.rocketmq.acl.plain.RemoteAddressStrategyFactory (4.9.8)
 * @see org.apache.rocketmq.acl.common.AclUtils
 */
import net from 'node:net';
import { AclException } from '../../errors';
import { splitNonEmpty } from './permission';

export interface RemoteAddressStrategy {
  /** `ip` is the client's address without the port. */
  match(ip: string | null): boolean;
}

const NULL_STRATEGY: RemoteAddressStrategy = { match: () => true };
const BLANK_STRATEGY: RemoteAddressStrategy = { match: () => false };

/** AclUtils.expandIP: an IPv6 address with every group written in four upper-case hex digits. */
export function expandIP(netaddress: string, part: number): string {
  let s = netaddress.toUpperCase();
  const separatorCount = s.split(':').length - 1;
  const padCount = part - separatorCount;
  if (padCount > 0) s = s.split('::').join(':'.repeat(padCount + 1));
  return s.split(':').map((p) => (p.length < 4 ? p.padStart(4, '0') : p)).join(':');
}

function parseIntStrict(s: string, radix: number, netaddress: string): number {
  const t = s.trim();
  if (!(radix === 16 ? /^[+-]?[0-9a-fA-F]+$/ : /^[+-]?\d+$/).test(t)) {
    throw new AclException(`Netaddress examine scope Exception netaddress is ${netaddress}`);
  }
  return parseInt(t, radix);
}

function isScope(num: number): boolean {
  return num >= 0 && num <= 255;
}

function isIPv6Scope(num: number): boolean {
  return num >= 0 && num <= 0xffff;
}

/** AclUtils.verify: the first `index` parts are in range. */
function verify(netaddress: string, index: number): void {
  let ok: boolean;
  if (netaddress.includes(':')) {
    const parts = splitNonEmpty(expandIP(netaddress, 8), ':');
    ok = true;
    for (let i = 0; i < index; i++) {
      const v = parseInt(parts[i] ?? '', 16);
      if (!/^[0-9A-F]+$/.test(parts[i] ?? '') || !isIPv6Scope(v)) ok = false;
    }
  } else {
    const parts = splitNonEmpty(netaddress, '.');
    ok = parts.length === 4;
    for (let i = 0; ok && i < index; i++) if (!isScope(parseIntStrict(parts[i], 10, netaddress))) ok = false;
  }
  if (!ok) throw new AclException(`Netaddress examine scope Exception netaddress is ${netaddress}`);
}

function getAddresses(netaddress: string, partialAddress: string): string[] {
  const parts = splitNonEmpty(partialAddress.substring(1, partialAddress.length - 1), ',');
  const address = netaddress.substring(0, netaddress.indexOf('{'));
  return parts.map((p) => address + p);
}

class MultipleRemoteAddressStrategy implements RemoteAddressStrategy {
  readonly #set = new Set<string>();

  constructor(addresses: string[]) {
    for (const a of addresses) {
      if (net.isIPv4(a)) this.#set.add(a);
      else if (net.isIPv6(a)) this.#set.add(expandIP(a, 8));
      else throw new AclException(`Netaddress examine Exception netaddress is ${a}`);
    }
  }

  match(ip: string | null): boolean {
    if (ip === null) return false;
    return this.#set.has(net.isIPv6(ip) ? expandIP(ip, 8) : ip);
  }
}

class OneRemoteAddressStrategy implements RemoteAddressStrategy {
  readonly #expanded: string;

  constructor(netaddress: string) {
    if (!(net.isIPv4(netaddress) || net.isIPv6(netaddress))) {
      throw new AclException(`Netaddress examine Exception netaddress is ${netaddress}`);
    }
    this.#expanded = expandIP(netaddress, 8).toUpperCase();
  }

  match(ip: string | null): boolean {
    return ip !== null && expandIP(ip, 8).toUpperCase() === this.#expanded;
  }
}

class RangeRemoteAddressStrategy implements RemoteAddressStrategy {
  #head = '';
  #start = 0;
  #end = 0;
  #index = 0;

  constructor(remoteAddr: string) {
    if (remoteAddr.includes(':')) {
      ipv6AddressCheck(remoteAddr);
      const parts = splitNonEmpty(remoteAddr, ':');
      for (let i = 1; i < parts.length; i++) {
        if (this.#analysis(parts, i, 16)) {
          verify(remoteAddr, this.#index - 1);
          const pre = v6ipProcess(remoteAddr);
          this.#index = splitNonEmpty(pre, ':').length;
          this.#head = pre;
          break;
        }
      }
    } else {
      const parts = splitNonEmpty(remoteAddr, '.');
      if (parts.length < 4) throw new AclException(`Netaddress examine scope Exception netaddress is ${remoteAddr}`);
      if (this.#analysis(parts, 1, 10) || this.#analysis(parts, 2, 10) || this.#analysis(parts, 3, 10)) {
        verify(remoteAddr, this.#index - 1);
        this.#head = parts.slice(0, this.#index).map((p) => `${p.trim()}.`).join('');
      }
    }
  }

  #analysis(parts: string[], index: number, radix: number): boolean {
    const value = parts[index].trim();
    this.#index = index;
    const inScope = radix === 16 ? isIPv6Scope : isScope;
    if (value === '*') {
      this.#start = 0;
      this.#end = radix === 16 ? 0xffff : 255;
    } else if (value.includes('-')) {
      if (value.indexOf('-') === 0) throw new AclException(`RangeRemoteAddressStrategy netaddress examine scope Exception value ${value} `);
      const [a, b] = splitNonEmpty(value, '-');
      this.#start = parseIntStrict(a, radix, value);
      this.#end = parseIntStrict(b ?? '', radix, value);
      if (!(inScope(this.#end) && inScope(this.#start) && this.#start <= this.#end)) {
        throw new AclException(`RangeRemoteAddressStrategy netaddress examine scope Exception start is ${this.#start} , end is ${this.#end}`);
      }
    }
    return this.#end > 0;
  }

  match(ip: string | null): boolean {
    if (ip === null) return false;
    if (net.isIPv4(ip)) {
      if (!ip.startsWith(this.#head)) return false;
      let value: string;
      if (this.#index === 3) value = ip.substring(this.#head.length);
      else if (this.#index === 2) value = ip.substring(this.#head.length, ip.lastIndexOf('.'));
      else value = ip.substring(this.#head.length, ip.lastIndexOf('.', ip.lastIndexOf('.') - 1));
      const address = Number(value);
      return Number.isInteger(address) && address >= this.#start && address <= this.#end;
    }
    if (net.isIPv6(ip)) {
      const expanded = expandIP(ip, 8).toUpperCase();
      if (!expanded.startsWith(this.#head)) return false;
      const address = parseInt(expanded.substring(5 * this.#index, 5 * this.#index + 4), 16);
      return address >= this.#start && address <= this.#end;
    }
    return false;
  }
}

function ipv6AddressCheck(netaddress: string): void {
  if (!(netaddress.includes('*') || netaddress.includes('-'))) return;
  const asterisk = netaddress.indexOf('*');
  const minus = netaddress.indexOf('-');
  const bad = () => new AclException(`Netaddress examine scope Exception netaddress is ${netaddress}`);
  if (asterisk > -1 && asterisk !== netaddress.length - 1) throw bad();
  if (minus > -1) {
    if (asterisk === -1) {
      if (minus <= netaddress.lastIndexOf(':')) throw bad();
    } else if (minus <= netaddress.lastIndexOf(':', netaddress.lastIndexOf(':') - 1)) {
      throw bad();
    }
  }
}

function v6ipProcess(netaddress: string): string {
  const isAsterisk = netaddress.includes('*');
  const isMinus = netaddress.includes('-');
  if (isAsterisk && isMinus) {
    const lastColon = netaddress.lastIndexOf(':');
    const secondLastColon = netaddress.substring(0, lastColon).lastIndexOf(':');
    return expandIP(netaddress.substring(0, secondLastColon), 6);
  }
  if (!isAsterisk && !isMinus) return expandIP(netaddress, 8);
  return expandIP(netaddress.substring(0, netaddress.lastIndexOf(':')), 7);
}

/** RemoteAddressStrategyFactory.getRemoteAddressStrategy; throws AclException on a malformed pattern. */
export function getRemoteAddressStrategy(remoteAddr: string | null | undefined): RemoteAddressStrategy {
  if (remoteAddr === null || remoteAddr === undefined || remoteAddr.trim() === '') return BLANK_STRATEGY;
  if (remoteAddr === '*' || remoteAddr === '*.*.*.*' || remoteAddr === '*:*:*:*:*:*:*:*') return NULL_STRATEGY;
  if (remoteAddr.endsWith('}')) {
    const parts = splitNonEmpty(remoteAddr, remoteAddr.includes(':') ? ':' : '.');
    if (!remoteAddr.includes(':') && parts.length < 4) {
      throw new AclException('MultipleRemoteAddressStrategy has got a/some wrong format IP(s) ');
    }
    const last = parts[parts.length - 1];
    if (!last.startsWith('{')) throw new AclException('MultipleRemoteAddressStrategy netaddress examine scope Exception netaddress');
    return new MultipleRemoteAddressStrategy(getAddresses(remoteAddr, last));
  }
  if (remoteAddr.includes(',')) return new MultipleRemoteAddressStrategy(splitNonEmpty(remoteAddr, ','));
  if (remoteAddr.includes('*') || remoteAddr.includes('-')) return new RangeRemoteAddressStrategy(remoteAddr);
  return new OneRemoteAddressStrategy(remoteAddr);
}
