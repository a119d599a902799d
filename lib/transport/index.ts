/**
 * The remoting transport: connections, the client and the server, processors and RPC hooks.
 */
export { type Channel, Connection, type ConnectionEvents, type ConnectionOptions, formatAddress, nextOpaque, transportResources } from './connection';
export {
  type RPCHook,
  type RemotingContext,
  type RemotingProcessor,
  OVERLOAD_REMARK,
  type ProcessorLimits,
  type ProcessorOptions,
  ProcessorTable,
  REJECTREQUEST_REMARK,
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
export { type ExecutorTask, RequestExecutor, type RequestExecutorOptions } from './request-executor';
export { RequestQueue } from './request-queue';
export { TypedEmitter } from './typed-emitter';
