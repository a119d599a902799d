/**
 * lib/grpc: the RocketMQ 5.x gRPC endpoint in front of the broker's processors. Loaded only when the broker's
 * grpcServerPort is set (lib/broker/grpc-endpoint.ts), so neither the SDK nor a remoting-only broker loads
 * @grpc/grpc-js.
 */
export { GrpcMessagingApplication, type GrpcMessagingApplicationOptions } from './grpc-messaging-application';
export type { GrpcBrokerPort } from './grpc-broker-port';
export { DEFAULT_GRPC_PROXY_CONFIG, type GrpcProxyConfig } from './grpc-proxy-config';
