/**
 * Java's `String.hashCode()`: 32-bit, over UTF-16 code units. The consume queue stores it as the tags code,
 * and `SelectMessageQueueByHash` uses it, so it must match Java to the bit. `seed` continues the hash of a string
 * `s` follows: `javaStringHashCode(a + b) === javaStringHashCode(b, javaStringHashCode(a))`, without building `a + b`.
 */
export function javaStringHashCode(s: string, seed = 0): number {
  let h = seed;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/**
 * The iteration order of a Java HashMap / HashSet with String keys: bodies that list map entries (routes, cluster
 * info, topic lists, KV tables) and a Java client's message properties come out in this order.
 *
 * A HashMap iterates its table bucket by bucket; a key's bucket is `(h ^ (h >>> 16)) & (tableSize - 1)` with
 * `h = String.hashCode()`; the table starts at the initial capacity rounded up to a power of two and doubles
 * whenever the size exceeds 3/4 of it; keys sharing a bucket keep their insertion order (resizing splits
 * buckets without reordering; buckets treeified in Java at 8+ collisions keep insertion order here).
 *
 * @see java.util.HashMap
 */
function tableSizeFor(initialCapacity: number, size: number): number {
  let table = 1;
  while (table < initialCapacity) table <<= 1;
  while (size > table * 0.75) table <<= 1;
  return table;
}

/**
 * `items` (in insertion order) sorted into the iteration order of a Java HashMap created with
 * `initialCapacity` (16 for `new HashMap<>()`) holding them.
 */
export function javaHashOrder<T>(items: Iterable<T>, keyOf: (item: T) => string, initialCapacity = 16): T[] {
  return javaHashOrderByHash(items, (item) => javaStringHashCode(keyOf(item)), initialCapacity);
}

/** As javaHashOrder, for keys whose Java `hashCode()` is `hashOf` (e.g. a MessageQueue's). */
export function javaHashOrderByHash<T>(items: Iterable<T>, hashOf: (item: T) => number, initialCapacity = 16): T[] {
  const list = [...items];
  if (list.length < 2) return list;
  const mask = tableSizeFor(initialCapacity, list.length) - 1;
  const keyed = list.map((item, index) => {
    const h = hashOf(item);
    return { item, index, bucket: (h ^ (h >>> 16)) & mask };
  });
  keyed.sort((a, b) => a.bucket - b.bucket || a.index - b.index);
  return keyed.map((k) => k.item);
}

/** String keys in Java HashMap/HashSet iteration order. */
export function javaHashOrderKeys(keys: Iterable<string>, initialCapacity = 16): string[] {
  return javaHashOrder(keys, (k) => k, initialCapacity);
}

/**
 * The iteration order of a `java.util.Properties` (Java 9+) into which `keys` were put in this order: Properties
 * keeps its entries in a ConcurrentHashMap created with capacity 8. Simulated as that map does it: a table of 16
 * bins, keys appended to their bin (HashMap's bin index), and once the count reaches 3/4 of the table a transfer
 * to twice the size that splits each bin in two, keeping the bin's last run of same-side keys in order and putting
 * the keys before it, reversed, in front (ConcurrentHashMap.transfer). Iteration walks bins by index. mqadmin
 * prints getBrokerConfig / getNamesrvConfig in this order.
 *
 * @see java.util.concurrent.ConcurrentHashMap
 */
export function javaPropertiesOrderKeys(keys: Iterable<string>): string[] {
  const spread = (k: string) => {
    const h = javaStringHashCode(k);
    return (h ^ (h >>> 16)) & 0x7fffffff;
  };
  let n = 16;
  let table: Array<Array<{ key: string; hash: number }>> = Array.from({ length: n }, () => []);
  const seen = new Set<string>();
  let count = 0;
  for (const key of keys) {
    if (seen.has(key)) continue;
    seen.add(key);
    const hash = spread(key);
    table[hash & (n - 1)].push({ key, hash });
    if (++count < n - (n >>> 2)) continue;
    const next: typeof table = Array.from({ length: n * 2 }, () => []);
    for (let i = 0; i < n; i++) {
      const bin = table[i];
      if (bin.length === 0) continue;
      let lastRun = bin.length - 1;
      const runBit = bin[lastRun].hash & n;
      while (lastRun > 0 && (bin[lastRun - 1].hash & n) === runBit) lastRun--;
      const lo = runBit === 0 ? bin.slice(lastRun) : [];
      const hi = runBit === 0 ? [] : bin.slice(lastRun);
      for (let j = 0; j < lastRun; j++) {
        if ((bin[j].hash & n) === 0) lo.unshift(bin[j]);
        else hi.unshift(bin[j]);
      }
      next[i] = lo;
      next[i + n] = hi;
    }
    table = next;
    n *= 2;
  }
  return table.flatMap((bin) => bin.map((e) => e.key));
}
