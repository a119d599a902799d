/**
 * `Object.hashCode()` of the Java value a JS argument stands for, so SelectMessageQueueByHash picks the queue
 * Java picks for the same key: string → String.hashCode; integer number in int range → Integer.hashCode;
 * other safe integer → Long.hashCode; other number → Double.hashCode; bigint → Long.hashCode (of its low 64
 * bits); boolean → Boolean.hashCode (1231 / 1237); an object with a `hashCode()` method → its result.
 */
import { javaStringHashCode } from '../../../protocol/message/java-hash';
import { InvalidArgumentError } from '../../errors';

const scratch = new DataView(new ArrayBuffer(8));

function longHashCode(v: bigint): number {
  const x = BigInt.asUintN(64, v);
  return Number(BigInt.asIntN(32, x ^ (x >> 32n)));
}

function doubleHashCode(v: number): number {
  if (Number.isNaN(v)) return 0x7ff80000; // doubleToLongBits canonical NaN 0x7ff8000000000000
  scratch.setFloat64(0, v);
  return (scratch.getUint32(0) ^ scratch.getUint32(4)) | 0;
}

export function javaHashCode(arg: unknown): number {
  switch (typeof arg) {
    case 'string':
      return javaStringHashCode(arg);
    case 'number':
      if (Number.isInteger(arg)) {
        if (arg >= -0x80000000 && arg <= 0x7fffffff) return arg | 0;
        if (Number.isSafeInteger(arg)) return longHashCode(BigInt(arg));
        if (arg >= -(2 ** 63) && arg < 2 ** 63) return longHashCode(BigInt(arg));
      }
      return doubleHashCode(arg);
    case 'bigint':
      return longHashCode(arg);
    case 'boolean':
      return arg ? 1231 : 1237;
    case 'object':
      if (arg !== null && typeof (arg as { hashCode?: unknown }).hashCode === 'function') {
        return (arg as { hashCode(): number }).hashCode() | 0;
      }
      break;
    default:
      break;
  }
  throw new InvalidArgumentError(`no Java hashCode for a ${arg === null ? 'null' : typeof arg} argument`);
}
