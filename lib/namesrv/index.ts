/**
 * The name server: controller, configuration, route tables, KV config, request processor.
 */
export { NamesrvController, type NamesrvControllerOptions } from './namesrv-controller';
export {
  ALWAYS_BLACKLISTED, DEFAULT_NAMESRV_CONFIG, type NamesrvConfig, createNamesrvConfig, loadNamesrvProperties,
  namesrvConfigToProperties, validateNamesrvConfig,
} from './namesrv-config';
export { type BrokerLiveInfo, type RegisterBrokerArgs, type RegisterBrokerResult, RouteInfoManager } from './route-info-manager';
export { KVConfigManager, NAMESPACE_ORDER_TOPIC_CONFIG } from './kv-config-manager';
export { DefaultRequestProcessor, NAMESRV_REQUEST_CODES } from './processors/default-request-processor';
