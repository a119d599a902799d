/**
 * 5.x remoting features, our SDK against each server: POP consumption (SimpleConsumer: POP_MESSAGE, ACK_MESSAGE,
 * CHANGE_MESSAGE_INVISIBLETIME, redelivery from the pop retry topic; orderly pops of a FIFO consumer) and timer messages (TIMER_DELIVER_MS /
 * TIMER_DELAY_SEC / TIMER_DELAY_MS). A 4.9.8 broker has neither (n.a.).
 */
import { runPopScenario } from '../integration/pop/pop-scenario';
import { runOrderlyPopScenario } from '../integration/pop/pop-orderly-scenario';
import { runTimerScenario } from '../integration/timer/timer-scenario';
import type { Scenario } from './scenario';

const SECTION = '5.x remoting features: POP consumption, timer messages';
const NOT_4 = { '4.9.8': 'a 5.x feature: Java 4.9.8 has no POP_MESSAGE (REQUEST_CODE_NOT_SUPPORTED) and ignores TIMER_* properties' };

export const POP_TIMER_ROWS: Scenario[] = [
  {
    section: SECTION, row: 'POP: SimpleConsumer receive, ack, changeInvisibleDuration, redelivery after the invisible time', client: 'ours',
    na: NOT_4, timeoutMs: 150_000,
    async run(ctx) {
      await runPopScenario(ctx.server.namesrvAddr, { invisibleMs: 5000, redeliveryTimeoutMs: 90_000 });
    },
  },
  {
    section: SECTION, row: 'POP orderly (FIFO): SimpleConsumer order: true, a batch per queue in flight, redelivery in order with the attempt counted',
    client: 'ours', na: NOT_4, timeoutMs: 120_000,
    async run(ctx) {
      await runOrderlyPopScenario(ctx.server.namesrvAddr);
    },
  },
  {
    section: SECTION, row: 'timer messages: setDeliverTimeMs / setDelayTimeSec / setDelayTimeMs', client: 'ours',
    na: NOT_4, timeoutMs: 120_000,
    async run(ctx) {
      // Java delivers at its 1 s slot (up to a second early); ours at the deliver time itself.
      await runTimerScenario(ctx.server.namesrvAddr, { earlyToleranceMs: ctx.server.id === 'ours' ? 0 : 1100, lateBoundMs: 15_000, timeoutMs: 90_000 });
    },
  },
];
