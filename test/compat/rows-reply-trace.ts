/**
 * Request-reply and message trace rows: our SDK and the Java 4.9.8 client (test/java/ReplyTraceDriver.java, the
 * shared harness has neither) against each server.
 * - request-reply: a requester's `request()` answered by a consumer that sends `createReplyMessage(...)` with a
 *   producer; the broker pushes the reply back (SEND_REPLY_MESSAGE_V2 → PUSH_REPLY_MESSAGE_TO_CLIENT).
 * - message trace: a traced producer and push consumer; the Pub and SubAfter records of the message are read back
 *   from RMQ_SYS_TRACE_TOPIC through the index, as queryMsgTraceById reads them.
 */
import {
  ConsumeConcurrentlyStatus, DefaultMQProducer, DefaultMQPushConsumer, MessageConst, createMessage, createReplyMessage,
} from '../../lib/index';
import { decodeTraceViews } from '../../lib/cli/admin/trace';
import { runJavaDriver, startJavaDriver } from '../helpers/javaref';
import { check, until, type Ctx, type Scenario } from './scenario';

const SECTION = 'request-reply and message trace';
const ROW_REPLY = 'request-reply: request() answered with createReplyMessage';
const ROW_TRACE = 'message trace: Pub / SubBefore / SubAfter records, read by queryMsgTraceById';

async function ourReplier(ctx: Ctx, topic: string): Promise<void> {
  const rp = new DefaultMQProducer({ producerGroup: ctx.name('PGR'), namesrvAddr: ctx.server.namesrvAddr, instanceName: ctx.name('r'), sendMsgTimeout: 15_000 });
  await rp.start();
  ctx.defer(() => rp.shutdown());
  const c = new DefaultMQPushConsumer({ consumerGroup: ctx.name('CGR'), namesrvAddr: ctx.server.namesrvAddr, instanceName: ctx.name('c'), consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
  ctx.defer(() => c.shutdown());
  c.subscribe(topic, '*');
  c.registerMessageListener(async (msgs) => {
    for (const m of msgs) await rp.send(createReplyMessage(m, `reply:${m.body.toString()}`));
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
  });
  await c.start();
}

/** The trace record types of `msgId` found in the trace topic. */
async function traceTypes(ctx: Ctx, msgId: string): Promise<string[]> {
  const r = await ctx.admin.queryMessage('RMQ_SYS_TRACE_TOPIC', msgId, 64, 0, Date.now());
  return r.messageList.flatMap((m) => decodeTraceViews(msgId, m)).map((v) => v.msgType);
}

export const REPLY_TRACE_ROWS: Scenario[] = [
  {
    section: SECTION, row: ROW_REPLY, client: 'ours', timeoutMs: 120_000,
    async run(ctx) {
      const topic = ctx.name('RR');
      await ctx.createTopic(topic);
      await ourReplier(ctx, topic);
      const q = new DefaultMQProducer({ producerGroup: ctx.name('PGQ'), namesrvAddr: ctx.server.namesrvAddr, instanceName: ctx.name('q'), sendMsgTimeout: 15_000 });
      await q.start();
      ctx.defer(() => q.shutdown());
      for (const body of ['one', 'two']) {
        const reply = await q.request(createMessage(topic, body), 60_000);
        check(reply.body.toString() === `reply:${body}`, `reply body ${reply.body.toString()}`);
        check(reply.topic === `${ctx.server.clusterName}_REPLY_TOPIC`, `reply topic ${reply.topic}`);
        check(reply.properties[MessageConst.PROPERTY_MESSAGE_TYPE] === 'reply', 'MSG_TYPE is not reply');
      }
    },
  },
  {
    section: SECTION, row: ROW_REPLY, client: 'java', timeoutMs: 180_000,
    async run(ctx) {
      const topic = ctx.name('RRJ');
      await ctx.createTopic(topic);
      const replier = await startJavaDriver(['reply', '--namesrv', ctx.server.namesrvAddr, '--topic', topic, '--group', ctx.name('CGJ'), '--expect', '2', '--timeout', '150'],
        { readyPattern: /STARTED/, readyTimeoutMs: 120_000 });
      ctx.defer(() => replier.stop());
      const r = await runJavaDriver(['request', '--namesrv', ctx.server.namesrvAddr, '--topic', topic, '--group', ctx.name('PGJ'), '--count', '2', '--timeout-ms', '90000'],
        { timeoutMs: 170_000 });
      const replies = r.stdout.split('\n').filter((l) => l.startsWith('REPLY ')).map((l) => l.split(' ').slice(1, 3).join(' '));
      check(replies.join(',') === '0 reply:req0,1 reply:req1', `replies: ${replies.join(',') || (r.stdout + r.stderr).slice(-300)}`);
    },
  },
  {
    section: SECTION, row: ROW_TRACE, client: 'ours', timeoutMs: 120_000,
    async run(ctx) {
      const topic = ctx.name('TR');
      await ctx.createTopic(topic);
      const p = new DefaultMQProducer({ producerGroup: ctx.name('PGT'), namesrvAddr: ctx.server.namesrvAddr, instanceName: ctx.name('tp'), sendMsgTimeout: 15_000, enableMsgTrace: true });
      const c = new DefaultMQPushConsumer({
        consumerGroup: ctx.name('CGT'), namesrvAddr: ctx.server.namesrvAddr, instanceName: ctx.name('tc'), consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', enableMsgTrace: true,
      });
      let consumed = false;
      c.subscribe(topic, '*');
      c.registerMessageListener(() => { consumed = true; return ConsumeConcurrentlyStatus.CONSUME_SUCCESS; });
      await p.start();
      ctx.defer(() => p.shutdown());
      await c.start();
      ctx.defer(() => c.shutdown());
      const r = await p.send(createMessage(topic, 'traced', { tags: 'T', keys: 'tk' }));
      await until(() => consumed, 60_000, 'the traced message consumed');
      await c.shutdown();
      await p.shutdown();
      await until(async () => {
        const types = await traceTypes(ctx, r.msgId);
        return types.includes('Pub') && types.includes('SubBefore') && types.includes('SubAfter');
      }, 60_000, 'Pub, SubBefore and SubAfter records');
    },
  },
  {
    section: SECTION, row: ROW_TRACE, client: 'java', timeoutMs: 240_000,
    async run(ctx) {
      const topic = ctx.name('TRJ');
      await ctx.createTopic(topic);
      const p = await runJavaDriver(['produce', '--namesrv', ctx.server.namesrvAddr, '--topic', topic, '--group', ctx.name('PGJT'), '--count', '1', '--keys', 'jk', '--tag', 'T'],
        { timeoutMs: 120_000 });
      const ok = p.stdout.split('\n').filter((l) => l.startsWith('OK ')).map((l) => l.split(' '));
      check(ok.length === 1, `produce: ${(p.stdout + p.stderr).slice(-300)}`);
      const c = await runJavaDriver(['consume', '--namesrv', ctx.server.namesrvAddr, '--topic', topic, '--group', ctx.name('CGJT'), '--expect', '1', '--timeout', '90'],
        { timeoutMs: 120_000 });
      check(c.stdout.includes('CONSUMED n=1'), `consume: ${(c.stdout + c.stderr).slice(-300)}`);
      await until(async () => {
        const types = await traceTypes(ctx, ok[0][2]);
        return types.includes('Pub') && types.includes('SubAfter');
      }, 60_000, 'the Java client\'s Pub and SubAfter records');
    },
  },
];
