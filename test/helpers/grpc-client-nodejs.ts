/**
 * rocketmq-client-nodejs, the official 5.x Node client, as the tests and the compat matrix drive it (1.0.8): a silent
 * logger for its clients, and two patches of its process-wide behaviour that would otherwise keep a test process
 * alive or end it.
 */

/** The logger to give every client of rocketmq-client-nodejs (by default it logs to ~/logs/rocketmq and closes that shared logger on shutdown). */
export const clientLogger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

// Its PushConsumer builds its consume service with that default file logger whatever logger it was given: an
// egg-logger whose flush timer is never cleared, so the process would never exit. The silent one there too.
// eslint-disable-next-line @typescript-eslint/no-require-imports
(require('rocketmq-client-nodejs/dist/client/Logger') as { getDefaultLogger: () => unknown }).getDefaultLogger = () => clientLogger;

// A client's shutdown half-closes its Telemetry streams and removes all their listeners at once (TelemetrySession
// .release), before the server's status comes back. A server that goes away in between (the compat matrix kills
// its server right after the last row) then fails the call with UNAVAILABLE, emitted as an 'error' nobody listens
// to: an uncaught exception that ends the process. Such an error, with no listener left, is dropped.
interface Emitter { emit(event: string | symbol, ...args: unknown[]): boolean; listenerCount(event: string): number }
// eslint-disable-next-line @typescript-eslint/no-require-imports
const rpcClient = (require('rocketmq-client-nodejs/dist/client/RpcClient') as { RpcClient: { prototype: { telemetry(metadata: unknown): Emitter } } }).RpcClient;
const telemetry = rpcClient.prototype.telemetry;
rpcClient.prototype.telemetry = function (this: unknown, metadata: unknown): Emitter {
  const stream = telemetry.call(this, metadata);
  const emit = stream.emit.bind(stream);
  stream.emit = (event, ...args) => (event === 'error' && stream.listenerCount('error') === 0 ? false : emit(event, ...args));
  return stream;
};
