/**
 * rocketmq-ts: the client SDK entry point (clients, admin, messages, errors, types).
 * It never loads server code; the name server and broker live in `rocketmq-ts/server`.
 */
export * from './errors';
export { setRootLogger } from './logger';

// ---- admin (lib/admin) ----
export {
  DefaultMQAdminExt, DEFAULT_MQ_ADMIN_EXT_OPTIONS, type DefaultMQAdminExtOptions, type DefaultMQAdminExtExtras, type QueryResult,
} from './admin/default-mq-admin-ext';
