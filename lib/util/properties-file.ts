/**
 * Java `.properties` files (broker.conf, namesrv.properties): `key=value` or `key: value` or `key value`,
 * `#` and `!` comments, backslash line continuation and escapes (\t \n \r \f \uXXXX).
 */
import { readFile } from 'node:fs/promises';

export function parseProperties(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const lines = text.split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i].replace(/^[ \t\f]+/, '');
    if (line === '' || line[0] === '#' || line[0] === '!') continue;
    while (endsWithOddBackslashes(line) && i + 1 < lines.length) {
      line = line.slice(0, -1) + lines[++i].replace(/^[ \t\f]+/, '');
    }
    let k = 0;
    let key = '';
    while (k < line.length) {
      const c = line[k];
      if (c === '\\') { key += line.slice(k, k + 2); k += 2; continue; }
      if (c === '=' || c === ':' || c === ' ' || c === '\t' || c === '\f') break;
      key += c;
      k++;
    }
    let rest = line.slice(k).replace(/^[ \t\f]*/, '');
    if (rest[0] === '=' || rest[0] === ':') rest = rest.slice(1).replace(/^[ \t\f]*/, '');
    out.set(unescape(key), unescape(rest));
  }
  return out;
}

function endsWithOddBackslashes(s: string): boolean {
  let n = 0;
  for (let i = s.length - 1; i >= 0 && s[i] === '\\'; i--) n++;
  return n % 2 === 1;
}

function unescape(s: string): string {
  return s.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_m, e: string) => {
    if (e[0] === 'u' && e.length === 5) return String.fromCharCode(parseInt(e.slice(1), 16));
    switch (e) {
      case 't': return '\t';
      case 'n': return '\n';
      case 'r': return '\r';
      case 'f': return '\f';
      default: return e;
    }
  });
}

export async function readPropertiesFile(file: string): Promise<Map<string, string>> {
  return parseProperties(await readFile(file, 'utf8'));
}

/**
 * Applies string properties onto a config object by Java's rule (MixAll.properties2Object): a key sets the
 * field of the same name, converted to the field's current type. Returns the keys that matched no field.
 */
export function applyProperties<T extends object>(target: T, props: Map<string, string> | Record<string, string>): string[] {
  const unknown: string[] = [];
  const entries = props instanceof Map ? [...props.entries()] : Object.entries(props);
  const t = target as Record<string, unknown>;
  for (const [key, raw] of entries) {
    if (!(key in t)) {
      unknown.push(key);
      continue;
    }
    const current = t[key];
    const value = raw.trim();
    if (typeof current === 'number') {
      const n = Number(value);
      if (!Number.isFinite(n)) throw new TypeError(`property ${key}: not a number: ${raw}`);
      t[key] = n;
    } else if (typeof current === 'boolean') {
      t[key] = value.toLowerCase() === 'true';
    } else {
      t[key] = value;
    }
  }
  return unknown;
}
