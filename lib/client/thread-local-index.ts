/**
 * A round-robin counter starting at a random value. Java keeps one per thread; Node has one thread, so one
 * per owner. Values are non-negative 32-bit ints; the counter wraps like a Java int.
 *
 * @see org.apache.rocketmq.client.common.ThreadLocalIndex
 */
export class ThreadLocalIndex {
  #index: number | undefined;

  /** @param initial the value before the first increment (Java: `Math.abs(random.nextInt())`, drawn on first use). */
  constructor(initial?: number) {
    this.#index = initial === undefined ? undefined : initial | 0;
  }

  incrementAndGet(): number {
    if (this.#index === undefined) this.#index = javaAbs((Math.random() * 0x100000000) | 0);
    this.#index = (this.#index + 1) | 0;
    return this.#index & 0x7fffffff;
  }

  toString(): string {
    return `ThreadLocalIndex{threadLocalIndex=${this.#index ?? 'null'}}`;
  }
}

/** Java's Math.abs(int): Integer.MIN_VALUE stays negative. */
export function javaAbs(value: number): number {
  const v = value | 0;
  return v === -0x80000000 ? v : Math.abs(v);
}
