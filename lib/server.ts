/**
 * rocketmq-ts/server: the bundled name server, broker and controller (controller mode), and the in-process cluster helper.
 */
export * from './errors';
export * from './namesrv/index';
export * from './broker/index';
export { type Cluster, type StartClusterOptions, CONTROLLER_MODE_TEST_TIMINGS, TEST_STORE_CONFIG, startCluster } from './cluster';
export { HAService, HAConnection, HAClient, type HAServiceOptions } from './ha/index';
export {
  ControllerManager, type ControllerManagerOptions, type ControllerConfig, DEFAULT_CONTROLLER_CONFIG, createControllerConfig, loadControllerProperties,
} from './controller/index';
