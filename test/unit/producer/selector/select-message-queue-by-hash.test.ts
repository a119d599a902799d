import { expect } from 'chai';
import type { MessageQueue } from '../../../../protocol/message/message-queue';
import {
  SelectMessageQueueByHash,
  SelectMessageQueueByMachineRoom,
  SelectMessageQueueByRandom,
  javaHashCode,
} from '../../../../lib/producer/selector';

const mqs = (n: number): MessageQueue[] => Array.from({ length: n }, (_, queueId) => ({ topic: 'T', brokerName: 'b', queueId }));

describe('queue selectors', () => {
  it('javaHashCode matches Java hashCode() of String, Integer, Long, Double and Boolean', () => {
    // Values printed by Java 17.
    expect(javaHashCode('order-1')).to.equal(-1207111310);
    expect(javaHashCode('abc')).to.equal(96354);
    expect(javaHashCode('polygenelubricants')).to.equal(-2147483648);
    expect(javaHashCode(-1)).to.equal(-1);
    expect(javaHashCode(2147483647)).to.equal(2147483647);
    expect(javaHashCode(4294967296)).to.equal(1);
    expect(javaHashCode(-4294967297)).to.equal(1);
    expect(javaHashCode(12345678901)).to.equal(-539222985);
    expect(javaHashCode(-9223372036854775808n)).to.equal(-2147483648);
    expect(javaHashCode(1.5)).to.equal(1073217536);
    expect(javaHashCode(-2.75)).to.equal(-1073348608);
    expect(javaHashCode(true)).to.equal(1231);
    expect(javaHashCode(false)).to.equal(1237);
    expect(javaHashCode({ hashCode: () => 42 })).to.equal(42);
    expect(() => javaHashCode(null)).to.throw();
  });

  it('SelectMessageQueueByHash picks the queue Java picks', () => {
    // [queue count, key, Java's queue id] from SelectMessageQueueByHash run in Java 17.
    const cases: Array<[number, unknown, number]> = [
      [3, 'order-1', 2], [4, 'order-1', 2], [7, 'order-1', 6],
      [3, 'abc', 0], [4, 'abc', 2], [7, 'abc', 6],
      [3, 'polygenelubricants', 2], [4, 'polygenelubricants', 0], [7, 'polygenelubricants', 2],
      [3, -1, 1], [4, 7, 3], [7, 7, 0],
      [3, -2147483648, 2], [4, -2147483648, 0], [7, -2147483648, 2],
      [3, 2147483647, 1], [7, 2147483647, 1],
      [4, 12345678901, 1], [7, 12345678901n, 0], [3, -9223372036854775808n, 2],
      [3, 1.5, 2], [7, -2.75, 3], [4, true, 3], [7, false, 5], [4, '', 0],
    ];
    const selector = new SelectMessageQueueByHash();
    for (const [n, key, expected] of cases) {
      expect(selector.select(mqs(n), {}, key).queueId, `${n} ${String(key)}`).to.equal(expected);
    }
  });

  it('SelectMessageQueueByRandom stays in range and reaches every queue', () => {
    const selector = new SelectMessageQueueByRandom();
    const seen = new Set<number>();
    for (let i = 0; i < 500; i++) seen.add(selector.select(mqs(4), {}, undefined).queueId);
    expect([...seen].sort()).to.deep.equal([0, 1, 2, 3]);
  });

  it('SelectMessageQueueByMachineRoom selects nothing, as Java 4.9.8', () => {
    const selector = new SelectMessageQueueByMachineRoom(['hz']);
    expect(selector.getConsumeridcs().has('hz')).to.equal(true);
    expect(selector.select(mqs(4), {}, 'x')).to.equal(null);
  });
});
