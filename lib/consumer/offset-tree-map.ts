/**
 * A map from queue offset to message kept in offset order (Java's TreeMap<Long, MessageExt> in ProcessQueue).
 * Pulled messages arrive in increasing offset order, so insertion is an append in the common case; removals mark
 * keys stale and the first/last keys skip them lazily, with a compaction once half the key array is stale.
 */
export class OffsetTreeMap<V> {
  #keys: number[] = [];
  #head = 0;
  readonly #values = new Map<number, V>();

  get size(): number {
    return this.#values.size;
  }

  isEmpty(): boolean {
    return this.#values.size === 0;
  }

  has(key: number): boolean {
    return this.#values.has(key);
  }

  get(key: number): V | undefined {
    return this.#values.get(key);
  }

  /** Returns the previous value. */
  set(key: number, value: V): V | undefined {
    const prev = this.#values.get(key);
    this.#values.set(key, value);
    if (prev !== undefined) return prev;
    const keys = this.#keys;
    const n = keys.length;
    if (n === this.#head || keys[n - 1] < key) {
      keys.push(key);
      return undefined;
    }
    let lo = this.#head;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    if (keys[lo] !== key) keys.splice(lo, 0, key);
    return undefined;
  }

  delete(key: number): V | undefined {
    const v = this.#values.get(key);
    if (v === undefined) return undefined;
    this.#values.delete(key);
    if (this.#values.size === 0) {
      this.#keys = [];
      this.#head = 0;
    } else if (this.#keys.length > 64 && this.#keys.length - this.#head > 2 * this.#values.size) {
      this.#compact();
    }
    return v;
  }

  firstKey(): number | undefined {
    const keys = this.#keys;
    while (this.#head < keys.length && !this.#values.has(keys[this.#head])) this.#head++;
    return this.#head < keys.length ? keys[this.#head] : undefined;
  }

  lastKey(): number | undefined {
    const keys = this.#keys;
    while (keys.length > this.#head && !this.#values.has(keys[keys.length - 1])) keys.pop();
    return keys.length > this.#head ? keys[keys.length - 1] : undefined;
  }

  /** Removes and returns the first entry. */
  pollFirst(): [number, V] | undefined {
    const k = this.firstKey();
    if (k === undefined) return undefined;
    const v = this.#values.get(k)!;
    this.#values.delete(k);
    this.#head++;
    if (this.#values.size === 0) {
      this.#keys = [];
      this.#head = 0;
    }
    return [k, v];
  }

  clear(): void {
    this.#keys = [];
    this.#head = 0;
    this.#values.clear();
  }

  *entries(): IterableIterator<[number, V]> {
    for (let i = this.#head; i < this.#keys.length; i++) {
      const k = this.#keys[i];
      const v = this.#values.get(k);
      if (v !== undefined) yield [k, v];
    }
  }

  values(): V[] {
    const out: V[] = [];
    for (const [, v] of this.entries()) out.push(v);
    return out;
  }

  #compact(): void {
    this.#keys = this.#keys.slice(this.#head).filter((k) => this.#values.has(k));
    this.#head = 0;
  }
}
