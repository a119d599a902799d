/**
 * The remoting transport: connections, the client and the server, processors and RPC hooks.
 */
export { type Channel, Connection, type ConnectionEvents, type ConnectionOptions, formatAddress, nextOpaque, transportResources } from './connection';
export {
  type RPCHook,
  type RemotingContext,
  type RemotingProcessor,
  OVERLOAD_REMARK,
  ProcessorTable,
  errorRemark,
} from './processor';
export {
  DEFAULT_REMOTING_CLIENT_OPTIONS,
  type InvokeOptions,
  type RemotingChannelEvents,
  RemotingClient,
  type RemotingClientOptions,
  type RequestInfo,
  type RequestObserver,
  parseAddress,
} from './remoting-client';
export { DEFAULT_REMOTING_SERVER_OPTIONS, RemotingServer, type RemotingServerOptions } from './remoting-server';
export { RequestQueue } from './request-queue';
export { TypedEmitter } from './typed-emitter';
