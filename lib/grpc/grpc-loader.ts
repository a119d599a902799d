/**
 * Loads @grpc/grpc-js and @grpc/proto-loader, and the apache.rocketmq.v2 definitions of protocol/grpc/, at run time:
 * only the gRPC endpoint calls this, so neither the SDK nor a broker without grpcServerPort loads them.
 */
import path from 'node:path';
import fs from 'node:fs';
import type * as GrpcJs from '@grpc/grpc-js';
import type * as ProtoLoader from '@grpc/proto-loader';
import { ConfigError } from '../errors';

export type Grpc = typeof GrpcJs;

export interface LoadedGrpc {
  grpc: Grpc;
  /** apache.rocketmq.v2.MessagingService's definition, for Server.addService. */
  messagingService: GrpcJs.ServiceDefinition;
}

let loaded: LoadedGrpc | null = null;

/** The folder holding apache/rocketmq/v2/*.proto: protocol/grpc of the package (from dist/lib/grpc or lib/grpc). */
export function protoRoot(): string {
  for (const up of ['../../../protocol/grpc', '../../protocol/grpc']) {
    const dir = path.resolve(__dirname, up);
    if (fs.existsSync(path.join(dir, 'apache/rocketmq/v2/service.proto'))) return dir;
  }
  throw new ConfigError(`gRPC endpoint: apache/rocketmq/v2/service.proto not found under protocol/grpc (from ${__dirname})`);
}

/** Options of the proto loading: camelCase fields, enums as their names, int64 as numbers, oneof case fields. */
export const PROTO_LOADER_OPTIONS: ProtoLoader.Options = Object.freeze({
  keepCase: false,
  longs: Number,
  enums: String,
  bytes: Buffer,
  defaults: true,
  oneofs: true,
});

export function loadGrpc(): LoadedGrpc {
  if (loaded) return loaded;
  let grpc: Grpc;
  let protoLoader: typeof ProtoLoader;
  try {
    // Runtime requires on purpose: only a broker with grpcServerPort loads them.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    grpc = require('@grpc/grpc-js') as Grpc;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    protoLoader = require('@grpc/proto-loader') as typeof ProtoLoader;
  } catch (err) {
    throw new ConfigError(`grpcServerPort is set but @grpc/grpc-js or @grpc/proto-loader cannot be loaded (${(err as Error).message.split('\n')[0]}): npm install @grpc/grpc-js @grpc/proto-loader`,
      { cause: err });
  }
  const root = protoRoot();
  const def = protoLoader.loadSync(path.join(root, 'apache/rocketmq/v2/service.proto'), { ...PROTO_LOADER_OPTIONS, includeDirs: [root] });
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    apache: { rocketmq: { v2: { MessagingService: { service: GrpcJs.ServiceDefinition } } } };
  };
  loaded = { grpc, messagingService: pkg.apache.rocketmq.v2.MessagingService.service };
  return loaded;
}
