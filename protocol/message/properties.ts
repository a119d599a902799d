/**
 * Message properties on the wire and on disk: `name \u0001 value \u0002` repeated (UTF-8), without a separator
 * after the last pair (Java deletes it). Parsing skips pairs with an empty name or value, as Java does.
 *
 * @see org.apache.rocketmq.common.message.MessageDecoder#messageProperties2String / string2messageProperties
 */
import { javaHashOrderKeys } from './java-hash';

export const NAME_VALUE_SEPARATOR = '\u0001';
export const PROPERTY_SEPARATOR = '\u0002';

export type MessageProperties = Record<string, string>;

export function propertiesToString(properties: MessageProperties | null | undefined): string {
  if (!properties) return '';
  let s = '';
  for (const name in properties) {
    const value = properties[name];
    if (value === undefined || value === null) continue;
    if (s.length > 0) s += PROPERTY_SEPARATOR;
    s += name + NAME_VALUE_SEPARATOR + value;
  }
  return s;
}

export function stringToProperties(s: string | null | undefined): MessageProperties {
  const out: MessageProperties = {};
  if (!s) return out;
  let start = 0;
  const len = s.length;
  while (start < len) {
    let end = s.indexOf(PROPERTY_SEPARATOR, start);
    if (end < 0) end = len;
    const sep = s.indexOf(NAME_VALUE_SEPARATOR, start);
    // Java: an entry needs a non-empty name and a non-empty value
    if (end - start >= 3 && sep > start && sep < end - 1) out[s.substring(start, sep)] = s.substring(sep + 1, end);
    start = end + 1;
  }
  return out;
}

/** Reads one property without building the whole map (the store's dispatch path). */
export function findProperty(s: string, name: string): string | undefined {
  let start = 0;
  const len = s.length;
  while (start < len) {
    let end = s.indexOf(PROPERTY_SEPARATOR, start);
    if (end < 0) end = len;
    const sep = s.indexOf(NAME_VALUE_SEPARATOR, start);
    if (sep >= 0 && sep < end && sep - start === name.length && s.startsWith(name, start)) return s.substring(sep + 1, end);
    start = end + 1;
  }
  return undefined;
}

/**
 * `s` without the entries named `name`, cut out of the string (no map built). Equal to
 * `propertiesToString(stringToProperties(s))` minus `name` for any well-formed properties string (non-empty names
 * and values, no repeated names: what Java clients write).
 */
export function removeProperty(s: string, name: string): string {
  let start = 0;
  const len = s.length;
  let out: string | null = null;
  let kept = 0;
  while (start < len) {
    let end = s.indexOf(PROPERTY_SEPARATOR, start);
    if (end < 0) end = len;
    const match = end - start > name.length && s.charCodeAt(start + name.length) === 1 && s.startsWith(name, start);
    if (match && out === null) out = s.substring(0, start > 0 ? start - 1 : 0);
    if (!match && out !== null) out += (out.length > 0 || kept > 0 ? PROPERTY_SEPARATOR : '') + s.substring(start, end);
    if (!match) kept++;
    start = end + 1;
  }
  return out ?? s;
}

/**
 * The names of `properties` in the iteration order of a `java.util.HashMap` (default capacity 16, load factor
 * 0.75) filled in insertion order: by bucket of the spread hash in the final table, then insertion order within
 * a bucket (resizes keep that order). This is the order of a Java client's properties string
 * (`messageProperties2String` iterates the message's HashMap), e.g. `KEYS, UNIQ_KEY, WAIT, TAGS`.
 * Buckets of 8 or more colliding names (treeified in Java) keep insertion order here.
 *
 * @see java.util.HashMap#hash
 */
export function javaHashMapOrder(names: readonly string[]): readonly string[] {
  // Messages of one application carry the same few property names: memoize the order per name list.
  const key = names.join(NAME_VALUE_SEPARATOR);
  const cached = ORDER_CACHE.get(key);
  if (cached) return cached;
  const ordered = javaHashOrderKeys(names);
  if (ORDER_CACHE.size >= ORDER_CACHE_MAX) ORDER_CACHE.clear();
  ORDER_CACHE.set(key, ordered);
  return ordered;
}

const ORDER_CACHE = new Map<string, readonly string[]>();
const ORDER_CACHE_MAX = 1024;

/** `propertiesToString` in Java's HashMap iteration order (what a Java producer sends). */
export function propertiesToJavaString(properties: MessageProperties | null | undefined): string {
  if (!properties) return '';
  let s = '';
  for (const name of javaHashMapOrder(Object.keys(properties))) {
    const value = properties[name];
    if (value === undefined || value === null) continue;
    if (s.length > 0) s += PROPERTY_SEPARATOR;
    s += name + NAME_VALUE_SEPARATOR + value;
  }
  return s;
}
