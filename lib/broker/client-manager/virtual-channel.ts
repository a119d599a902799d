/**
 * A client channel that is not a connection of the remoting server: a gRPC client of the endpoint in lib/grpc.
 * The client managers keep it like any channel; the broker's remoting calls to clients go to its writeAndFlush
 * (the channel relays what it can, as Java's ProxyChannel: a transaction check becomes a Telemetry command) and
 * skip it when it has none.
 */
import type { RemotingCommand } from '../../../protocol/remoting-command';
import type { Channel } from '../../transport/connection';

export interface VirtualChannel extends Channel {
  readonly virtual: true;
  /** What kind of client ("grpc"). */
  readonly kind: string;
  /** A oneway request of the broker to the client (CHECK_TRANSACTION_STATE). */
  writeAndFlush?(command: RemotingCommand): void;
  /** A request of the broker that waits for the client's answer (GET_CONSUMER_RUNNING_INFO, CONSUME_MESSAGE_DIRECTLY). */
  invoke?(request: RemotingCommand, timeoutMillis: number): Promise<RemotingCommand>;
}

export function isVirtualChannel(channel: Channel): channel is VirtualChannel {
  return (channel as Partial<VirtualChannel>).virtual === true;
}
