/**
 * The gRPC clients' virtual channels by client id: created when a client heartbeats or sends its settings, removed
 * when it terminates or its group forgets it.
 *
 * @see org.apache.rocketmq.proxy.grpc.v2.channel.GrpcChannelManager
 */
import { type GrpcChannelRelay, GrpcClientChannel } from './grpc-client-channel';
import type { ProxyContext } from './proxy-context';

export class GrpcChannelManager {
  readonly #channels = new Map<string, GrpcClientChannel>();

  /** `relay`: what the channels relay the broker's calls to their clients through (none: they relay nothing). */
  constructor(private readonly relay: GrpcChannelRelay | null = null) {}

  createChannel(ctx: ProxyContext): GrpcClientChannel {
    let c = this.#channels.get(ctx.clientId);
    // A channel the broker closed (its client managers expired it) is replaced when the client comes back.
    if (!c || !c.isActive) {
      c = new GrpcClientChannel(ctx.clientId, ctx.remoteAddress, ctx.localAddress, this.relay);
      this.#channels.set(ctx.clientId, c);
    }
    return c;
  }

  getChannel(clientId: string): GrpcClientChannel | undefined {
    return this.#channels.get(clientId);
  }

  removeChannel(clientId: string): GrpcClientChannel | undefined {
    const c = this.#channels.get(clientId);
    this.#channels.delete(clientId);
    return c;
  }

  /** Every channel (closed on shutdown). */
  channels(): GrpcClientChannel[] {
    return [...this.#channels.values()];
  }
}
