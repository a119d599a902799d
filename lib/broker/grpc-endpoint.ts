/**
 * The broker's side of the gRPC endpoint: when grpcServerPort is set (>= 0), lib/grpc is required here, at run
 * time, and its application runs as one of the broker's services; otherwise nothing of lib/grpc or @grpc/grpc-js is
 * loaded. lib/grpc sits above the broker (it calls the processors through its GrpcBrokerPort, which the controller
 * satisfies: test/unit/grpc/grpc-endpoint.test.ts checks it at compile time), hence no import of it here.
 *
 * The broker passes its settings in: the port and bind address, and its TLS settings (the remoting server's tls.*
 * keys), which the endpoint applies as Java's proxy does (docs/grpc.md). Its ACL reaches the endpoint through the
 * port (accessValidator).
 */
import type { TlsSystemConfig } from '../transport/tls-system-config';
import type { BrokerService } from './broker-hooks';

export interface GrpcEndpoint extends BrokerService {
  /** The port the endpoint listens on (0 before start). */
  readonly port: number;
}

/** What this file uses of lib/grpc's exports. */
interface GrpcModule {
  GrpcMessagingApplication: new (broker: never, options: GrpcEndpointOptions) => GrpcEndpoint;
}

/** What the broker hands the endpoint (lib/grpc's GrpcMessagingApplicationOptions, in part). */
export interface GrpcEndpointOptions {
  port: number;
  bindAddress: string;
  /** The broker's TLS settings (Java's tls.* keys). */
  tls: Partial<TlsSystemConfig>;
}

export function createGrpcEndpoint(broker: unknown, options: GrpcEndpointOptions): GrpcEndpoint {
  // A runtime require on purpose: only a broker with grpcServerPort loads lib/grpc (and @grpc/grpc-js with it).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const grpc = require('../grpc') as GrpcModule;
  return new grpc.GrpcMessagingApplication(broker as never, options);
}
