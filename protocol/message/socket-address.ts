/**
 * Host addresses in messages (born host, store host, message ids).
 *
 * A host is `{ address, port }`: `address` is the textual IP the way Java's `InetAddress.getHostAddress()` prints it
 * (IPv4 dotted quad; IPv6 as eight lower-case hex groups without zero compression, e.g. `fd00:0:0:0:0:0:0:2`), so
 * logs and tools read the same as Java's. Parsers accept any IPv6 form (`::` compression, embedded IPv4).
 *
 * @see java.net.InetSocketAddress
 */
import { ProtocolError } from '../errors';

export interface SocketAddress {
  readonly address: string;
  readonly port: number;
}

/** `ip:port` for IPv4, `[ip]:port` for IPv6 (unambiguous; use {@link parseSocketAddress} to read it back). */
export function socketAddressToString(sa: SocketAddress): string {
  return sa.address.includes(':') ? `[${sa.address}]:${sa.port}` : `${sa.address}:${sa.port}`;
}

/** Parses `ip:port`, `[ipv6]:port` or Java's `ipv6:port` (last colon separates the port). A leading `/` is ignored. */
export function parseSocketAddress(s: string): SocketAddress {
  let str = s.trim();
  const slash = str.lastIndexOf('/');
  if (slash >= 0) str = str.substring(slash + 1);
  let address: string;
  let portStr: string;
  if (str.startsWith('[')) {
    const close = str.indexOf(']');
    if (close < 0 || str[close + 1] !== ':') throw new ProtocolError(`invalid socket address: ${s}`);
    address = str.substring(1, close);
    portStr = str.substring(close + 2);
  } else {
    const colon = str.lastIndexOf(':');
    if (colon < 0) throw new ProtocolError(`invalid socket address: ${s}`);
    address = str.substring(0, colon);
    portStr = str.substring(colon + 1);
  }
  const port = Number(portStr);
  if (!/^\d+$/.test(portStr) || port > 65535) throw new ProtocolError(`invalid port in socket address: ${s}`);
  ipToBytes(address); // validates
  return { address, port };
}

/** Whether `address` is an IPv6 literal (contains a colon). */
export function isIPv6(address: string): boolean {
  return address.includes(':');
}

function parseIPv4(s: string, out: Buffer, at: number): boolean {
  const parts = s.split('.');
  if (parts.length !== 4) return false;
  for (let i = 0; i < 4; i++) {
    const p = parts[i];
    if (!/^\d{1,3}$/.test(p)) return false;
    const v = Number(p);
    if (v > 255) return false;
    out[at + i] = v;
  }
  return true;
}

/** The 4 or 16 address bytes of an IP literal; a `ProtocolError` for anything else (no name resolution here). */
export function ipToBytes(address: string): Buffer {
  if (!isIPv6(address)) {
    const out = Buffer.alloc(4);
    if (!parseIPv4(address, out, 0)) throw new ProtocolError(`invalid IPv4 address: ${address}`);
    return out;
  }
  let a = address;
  const pct = a.indexOf('%'); // scope id
  if (pct >= 0) a = a.substring(0, pct);
  const out = Buffer.alloc(16);
  const dbl = a.indexOf('::');
  if (dbl !== a.lastIndexOf('::')) throw new ProtocolError(`invalid IPv6 address: ${address}`);
  const head = dbl >= 0 ? a.substring(0, dbl) : a;
  const tail = dbl >= 0 ? a.substring(dbl + 2) : '';
  const groups = (part: string): number[] | null => {
    if (part === '') return [];
    const res: number[] = [];
    const items = part.split(':');
    for (let i = 0; i < items.length; i++) {
      const g = items[i];
      if (i === items.length - 1 && g.includes('.')) {
        const v4 = Buffer.alloc(4);
        if (!parseIPv4(g, v4, 0)) return null;
        res.push(v4.readUInt16BE(0), v4.readUInt16BE(2));
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
        res.push(parseInt(g, 16));
      }
    }
    return res;
  };
  const h = groups(head);
  const t = groups(tail);
  if (!h || !t) throw new ProtocolError(`invalid IPv6 address: ${address}`);
  if (dbl < 0 ? h.length !== 8 : h.length + t.length > 7) throw new ProtocolError(`invalid IPv6 address: ${address}`);
  h.forEach((g, i) => out.writeUInt16BE(g, i * 2));
  t.forEach((g, i) => out.writeUInt16BE(g, (8 - t.length + i) * 2));
  return out;
}

/** Formats 4 or 16 address bytes at `offset` as Java's `getHostAddress()` does. */
export function bytesToIp(buf: Buffer, offset: number, length: 4 | 16): string {
  if (length === 4) return `${buf[offset]}.${buf[offset + 1]}.${buf[offset + 2]}.${buf[offset + 3]}`;
  let s = '';
  for (let i = 0; i < 8; i++) {
    if (i > 0) s += ':';
    s += buf.readUInt16BE(offset + i * 2).toString(16);
  }
  return s;
}
