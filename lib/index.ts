/**
 * rocketmq-ts: the client SDK entry point (clients, admin, messages, errors, types).
 * It never loads server code; the name server and broker live in `rocketmq-ts/server`.
 */
export * from './errors';
export { setRootLogger } from './logger';

// ---- consumer (lib/consumer): DefaultMQPushConsumer, DefaultLitePullConsumer, listeners, offset stores ----
export * from './consumer';
// ---- end consumer ----
