/**
 * Java's `String.hashCode()`: 32-bit, over UTF-16 code units. The consume queue stores it as the tags code,
 * and `SelectMessageQueueByHash` uses it, so it must match Java to the bit.
 */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}
