/**
 * rocketmq-ts/server: the bundled name server and broker, and the in-process cluster helper.
 */
export * from './errors';
export * from './namesrv/index';
export * from './broker/index';
export { type Cluster, type StartClusterOptions, TEST_STORE_CONFIG, startCluster } from './cluster';
export { HAService, HAConnection, HAClient, type HAServiceOptions } from './ha/index';
