/**
 * The broker's side of the gRPC endpoint: when grpcServerPort is set (>= 0), lib/grpc is required here, at run
 * time, and its application runs as one of the broker's services; otherwise nothing of lib/grpc or @grpc/grpc-js is
 * loaded. lib/grpc sits above the broker (it calls the processors through its GrpcBrokerPort, which the controller
 * satisfies: test/unit/grpc/grpc-endpoint.test.ts checks it at compile time), hence no import of it here.
 */
import type { BrokerService } from './broker-hooks';

export interface GrpcEndpoint extends BrokerService {
  /** The port the endpoint listens on (0 before start). */
  readonly port: number;
}

/** What this file uses of lib/grpc's exports. */
interface GrpcModule {
  GrpcMessagingApplication: new (broker: never, options: { port: number; bindAddress: string }) => GrpcEndpoint;
}

export function createGrpcEndpoint(broker: unknown, port: number, bindAddress: string): GrpcEndpoint {
  // A runtime require on purpose: only a broker with grpcServerPort loads lib/grpc (and @grpc/grpc-js with it).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const grpc = require('../grpc') as GrpcModule;
  return new grpc.GrpcMessagingApplication(broker as never, { port, bindAddress });
}
