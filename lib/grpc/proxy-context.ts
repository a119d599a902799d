/**
 * What the endpoint knows of one gRPC call: the client's headers (x-mq-client-id, x-mq-language,
 * x-mq-client-version, x-mq-namespace), its address, and the call's deadline.
 *
 * @see org.apache.rocketmq.proxy.common.ProxyContext
 * @see org.apache.rocketmq.proxy.grpc.v2.common.GrpcConstants
 */
export interface ProxyContext {
  readonly clientId: string;
  /** The client's language header ("HTTP" for rocketmq-client-nodejs, "JAVA", ...). */
  readonly language: string;
  readonly clientVersion: string;
  readonly namespace: string;
  /** The peer as "ip:port". */
  readonly remoteAddress: string;
  /** Our end as "ip:port". */
  readonly localAddress: string;
  /** Epoch millis of the call's deadline (Infinity when the client set none). */
  readonly deadline: number;
}

/** Millis left before the deadline (Java's ProxyContext.getRemainingMs). */
export function remainingMs(ctx: ProxyContext, now = Date.now()): number {
  return ctx.deadline === Infinity ? Number.MAX_SAFE_INTEGER : ctx.deadline - now;
}
