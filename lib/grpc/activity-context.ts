/** What every gRPC activity works with: the broker port, the endpoint's config, its managers and the local invoker. */
import type { Logger } from '../logger';
import type { GrpcBrokerPort } from './grpc-broker-port';
import type { GrpcChannelManager } from './grpc-channel-manager';
import type { GrpcClientSettingsManager } from './grpc-client-settings-manager';
import type { GrpcProxyConfig } from './grpc-proxy-config';
import type { LocalInvoker } from './local-invoker';

export interface ActivityContext {
  readonly broker: GrpcBrokerPort;
  readonly config: GrpcProxyConfig;
  readonly settings: GrpcClientSettingsManager;
  readonly channels: GrpcChannelManager;
  readonly invoker: LocalInvoker;
  readonly logger: Logger;
  /** The port the endpoint listens on (what routes announce). */
  grpcPort(): number;
}
