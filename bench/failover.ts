/**
 * Failover time of a replicated group under a sync producer: the master's process is killed (SIGKILL) `kills` times,
 * and each time the time from the kill to the first SEND_OK of a send begun after the killed process exited is taken
 * (an answer the master wrote just before dying does not count). Between kills the group is made whole again by the
 * caller's `restore`. Used by `npm run bench -- controller` (controller mode) and `-- replicated` (DLedger).
 */
import { performance } from 'node:perf_hooks';
import type { DefaultMQProducer } from '../lib/producer/default-mq-producer';
import { createMessage } from '../protocol/message/message';
import { pct } from './bench-util';

export interface FailoverGroup {
  /** The address the name server gives as the group's master (brokerId 0); '' when there is none. */
  masterAt(): Promise<string>;
  /** Whether `addr` is one of the group's live replicas (a master elsewhere is an error of the run). */
  has(addr: string): boolean;
  /** Kills the process serving `addr` with SIGKILL; resolves once it exited. */
  kill(addr: string): Promise<void>;
  /** After a kill: brings a replica back and resolves once the group is whole again. */
  restore(): Promise<void>;
}

export interface FailoverFigures { times: number[]; p50: number; max: number }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every 50 ms up to `limitMs`. */
export async function until(check: () => boolean | Promise<boolean>, limitMs: number, what: string): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${limitMs} ms`);
    await sleep(50);
  }
}

export async function measureFailover(o: {
  producer: DefaultMQProducer; topic: string; body: Buffer; group: FailoverGroup; kills: number;
  log: (line: string) => void; label: string; failoverLimitMs?: number;
}): Promise<FailoverFigures> {
  const times: number[] = [];
  let lastOk = 0;
  /** Sends started after `mark` (the killed master's exit) can only be acknowledged by another master. */
  let mark = Infinity;
  let firstOkAfterMark = 0;
  let sending = true;
  const sender = (async () => {
    while (sending) {
      const startedAt = performance.now();
      try {
        const r = await o.producer.send(createMessage(o.topic, o.body));
        if (r.sendStatus === 'SEND_OK') {
          lastOk = performance.now();
          if (startedAt > mark && firstOkAfterMark === 0) firstOkAfterMark = lastOk;
        }
      } catch {
        await sleep(5);
      }
    }
  })();
  try {
    await until(() => lastOk > 0, 60_000, `${o.label}: the first SEND_OK`);
    for (let k = 0; k < o.kills; k++) {
      const master = await o.group.masterAt();
      if (!o.group.has(master)) throw new Error(`${o.label}: the name server's master ${master || '(none)'} is none of the replicas`);
      firstOkAfterMark = 0;
      const killedAt = performance.now();
      await o.group.kill(master);
      mark = performance.now();
      await until(async () => firstOkAfterMark > 0 && (await o.group.masterAt()) !== master, o.failoverLimitMs ?? 60_000,
        `${o.label}: a SEND_OK from a new master`);
      times.push(firstOkAfterMark - killedAt);
      mark = Infinity;
      o.log(`  ${o.label} failover ${k + 1}/${o.kills}: ${(firstOkAfterMark - killedAt).toFixed(0)} ms`);
      await o.group.restore();
      await sleep(200);
    }
  } finally {
    sending = false;
    await sender;
  }
  const sorted = [...times].sort((a, b) => a - b);
  return { times, p50: pct(sorted, 50), max: sorted[sorted.length - 1] ?? 0 };
}
