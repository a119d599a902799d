/**
 * A client channel that is not a connection of the remoting server: a gRPC client of the endpoint in lib/grpc.
 * The client managers keep it like any channel; the broker's remoting calls to clients (NOTIFY_CONSUMER_IDS_CHANGED,
 * ...) skip it, as Java's GrpcClientChannel ignores what it cannot relay.
 */
import type { Channel } from '../../transport/connection';

export interface VirtualChannel extends Channel {
  readonly virtual: true;
  /** What kind of client ("grpc"). */
  readonly kind: string;
}

export function isVirtualChannel(channel: Channel): channel is VirtualChannel {
  return (channel as Partial<VirtualChannel>).virtual === true;
}
