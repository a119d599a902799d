/**
 * Request processing shared by RemotingClient and RemotingServer: the processor table, RPC hooks and the
 * dispatch of one incoming request.
 *
 * Dispatch follows Java's processRequestCommand: the processor registered for the code (or the default one);
 * none → REQUEST_CODE_NOT_SUPPORTED with remark " request type N not supported"; a processor (or hook) that
 * throws → SYSTEM_ERROR with the error as remark; more than `maxInflight` requests of one connection being
 * processed → SYSTEM_BUSY "[OVERLOAD]system busy, start flow control for a while". The same answer when the
 * family's RequestExecutor is full (Java's RejectedExecutionException) or the request body would pass the
 * per-connection or server-wide limit on request bytes being processed; a processor whose `rejectRequest()` says
 * so (the store's page cache is busy) → SYSTEM_BUSY "[REJECTREQUEST]system busy, ...". A response takes the
 * request's opaque and serialize type. Oneway requests never get an answer (Java answers a oneway request with
 * an unknown code; the peer only logs an unmatched response, so we skip it).
 *
 * @see org.apache.rocketmq.remoting.netty.NettyRemotingAbstract#processRequestCommand
 * @see org.apache.rocketmq.remoting.netty.NettyRequestProcessor
 * @see org.apache.rocketmq.remoting.RPCHook
 */
import { ResponseCode } from '../../protocol/code/response-code';
import { RPC_TYPE_RESPONSE, RemotingCommand } from '../../protocol/remoting-command';
import type { Logger } from '../logger';
import type { Channel, Connection } from './connection';
import type { ExecutorTask, RequestExecutor } from './request-executor';

/** Java's RPCHook: called around every request we send and every request we process. */
export interface RPCHook {
  /** Before a request is sent (client) or processed (server). May add extFields (ACL signing) or throw to refuse. */
  doBeforeRequest(remoteAddr: string, request: RemotingCommand): void;
  /** After the response arrived (client) or was produced (server); `response` is null for oneway requests. */
  doAfterResponse(remoteAddr: string, request: RemotingCommand, response: RemotingCommand | null): void;
}

/** What a processor knows of the request's origin, and how to answer later (long polling). */
export interface RemotingContext {
  readonly channel: Channel;
  /** The peer as "ip:port". */
  readonly remoteAddress: string;
  /**
   * Writes `response` as the answer to this request, with the request's opaque and serialize type and the response
   * flag (given to the encoder; `response` itself is not changed).
   * For a processor that returned null and answers later. Returns false if the channel is gone, the request
   * was oneway, or an answer was already written.
   */
  writeResponse(response: RemotingCommand): boolean;
  /**
   * Whether the requester still waits for this answer: its connection is up and, for a request run in process for
   * another protocol's call (the gRPC endpoint), that call is not cancelled. Absent: `channel.isActive` decides. A
   * held request (POP long polling) woken for a requester that is gone does no work (Java's PopLongPollingService
   * skips a request whose channel is inactive).
   */
  readonly isActive?: () => boolean;
}

/** Whether the requester of `ctx` still waits for an answer (see RemotingContext.isActive). */
export function requesterActive(ctx: RemotingContext): boolean {
  return ctx.isActive ? ctx.isActive() : ctx.channel.isActive;
}

/**
 * Handles one request code. Return the response, or null when there is none (oneway) or it will be written
 * later through `ctx.writeResponse`.
 */
export type RemotingProcessor = (
  request: RemotingCommand,
  ctx: RemotingContext,
) => Promise<RemotingCommand | null> | RemotingCommand | null;

export const OVERLOAD_REMARK = '[OVERLOAD]system busy, start flow control for a while';
/** Java NettyRemotingAbstract's answer when the processor's rejectRequest() is true. */
export const REJECTREQUEST_REMARK = '[REJECTREQUEST]system busy, start flow control for a while';

/** How a processor is run (Java's registerProcessor(code, processor, executor) and NettyRequestProcessor.rejectRequest). */
export interface ProcessorOptions {
  /** The bounded pool of its request family, shared with the other codes of the family. */
  executor?: RequestExecutor;
  /** True refuses the request at once with "[REJECTREQUEST]system busy" (Java: the page cache is busy). */
  rejectRequest?: () => boolean;
}

/** Limits of a ProcessorTable on requests being processed; 0 or less disables each. */
export interface ProcessorLimits {
  /** Requests of one connection. */
  maxInflight: number;
  /** Request body bytes of one connection. */
  channelMaxInflightBytes: number;
  /** Request body bytes over every connection. */
  maxInflightBytes: number;
}

interface Registration {
  processor: RemotingProcessor;
  executor: RequestExecutor | null;
  rejectRequest: (() => boolean) | null;
}

/**
 * Formats an error like Java's `Throwable.toString()`: "Name: message"; an error that carries Java's own
 * description (`javaExceptionDesc`, e.g. an ACL refusal) is answered with it.
 */
export function errorRemark(err: unknown): string {
  const desc = (err as { javaExceptionDesc?: unknown } | null)?.javaExceptionDesc;
  if (typeof desc === 'string') return desc;
  if (err instanceof Error) return err.message ? `${err.name}: ${err.message}` : err.name;
  return String(err);
}

class RequestContext implements RemotingContext {
  #answered = false;

  constructor(
    private readonly conn: Connection,
    private readonly request: RemotingCommand,
  ) {}

  get channel(): Channel {
    return this.conn;
  }

  get remoteAddress(): string {
    return this.conn.remoteAddress;
  }

  get answered(): boolean {
    return this.#answered;
  }

  writeResponse(response: RemotingCommand): boolean {
    if (this.#answered || this.request.isOneway) return false;
    this.#answered = true;
    // The answer goes out with the request's opaque and serialize type and the response flag, passed to the codec
    // (a literal of one shape, as the client's requests): the processor's command is left as it was made.
    return this.conn.send(response, undefined, {
      opaque: this.request.opaque, flag: response.flag | RPC_TYPE_RESPONSE, language: undefined, serializeType: this.request.serializeType,
    });
  }
}

export class ProcessorTable {
  readonly #processors = new Map<number, Registration>();
  #defaultProcessor: Registration | null = null;
  readonly #hooks: RPCHook[] = [];
  readonly #limits: ProcessorLimits;
  /** Request body bytes being processed over every connection. */
  #inflightBytes = 0;

  constructor(
    private readonly logger: Logger,
    /** Per-connection cap on requests being processed (a number), or every limit; 0 or less disables one. */
    limits: number | Partial<ProcessorLimits> = 0,
  ) {
    const l = typeof limits === 'number' ? { maxInflight: limits } : limits;
    this.#limits = { maxInflight: 0, channelMaxInflightBytes: 0, maxInflightBytes: 0, ...l };
  }

  register(code: number, processor: RemotingProcessor, options: ProcessorOptions = {}): void {
    this.#processors.set(code, { processor, executor: options.executor ?? null, rejectRequest: options.rejectRequest ?? null });
  }

  registerDefault(processor: RemotingProcessor): void {
    this.#defaultProcessor = { processor, executor: null, rejectRequest: null };
  }

  get(code: number): RemotingProcessor | null {
    return (this.#processors.get(code) ?? this.#defaultProcessor)?.processor ?? null;
  }

  /** Request body bytes being processed now over every connection. */
  get inflightBytes(): number {
    return this.#inflightBytes;
  }

  registerRPCHook(hook: RPCHook): void {
    if (!this.#hooks.includes(hook)) this.#hooks.push(hook);
  }

  get hooks(): readonly RPCHook[] {
    return this.#hooks;
  }

  runBefore(remoteAddr: string, request: RemotingCommand): void {
    for (const hook of this.#hooks) hook.doBeforeRequest(remoteAddr, request);
  }

  runAfter(remoteAddr: string, request: RemotingCommand, response: RemotingCommand | null): void {
    for (const hook of this.#hooks) hook.doAfterResponse(remoteAddr, request, response);
  }

  /** Processes one incoming request of `conn`. Never throws. */
  dispatch(conn: Connection, request: RemotingCommand): void {
    const reg = this.#processors.get(request.code) ?? this.#defaultProcessor;
    const ctx = new RequestContext(conn, request);
    if (!reg) {
      const remark = ` request type ${request.code} not supported`;
      this.logger.error({ remoteAddr: conn.remoteAddress, code: request.code }, remark.trim());
      ctx.writeResponse(RemotingCommand.createResponse(request, ResponseCode.REQUEST_CODE_NOT_SUPPORTED, remark));
      return;
    }
    if (reg.rejectRequest?.()) {
      ctx.writeResponse(RemotingCommand.createResponse(request, ResponseCode.SYSTEM_BUSY, REJECTREQUEST_REMARK));
      return;
    }
    const limits = this.#limits;
    const bytes = request.body ? request.body.length : 0;
    let refused: string | null = null;
    if (limits.maxInflight > 0 && conn.inflight >= limits.maxInflight) {
      refused = 'too many requests in flight on one channel, answering SYSTEM_BUSY';
    } else if (bytes > 0 && limits.channelMaxInflightBytes > 0 && conn.inflight > 0
      && conn.inflightBytes + bytes > limits.channelMaxInflightBytes) {
      refused = 'too many request bytes in flight on one channel, answering SYSTEM_BUSY';
    } else if (bytes > 0 && limits.maxInflightBytes > 0 && this.#inflightBytes > 0
      && this.#inflightBytes + bytes > limits.maxInflightBytes) {
      refused = 'too many request bytes in flight on the server, answering SYSTEM_BUSY';
    }
    if (refused) {
      this.logger.warn(
        { remoteAddr: conn.remoteAddress, code: request.code, inflight: conn.inflight, inflightBytes: conn.inflightBytes },
        refused,
      );
      ctx.writeResponse(RemotingCommand.createResponse(request, ResponseCode.SYSTEM_BUSY, OVERLOAD_REMARK));
      return;
    }
    conn.inflight++;
    conn.inflightBytes += bytes;
    this.#inflightBytes += bytes;
    const executor = reg.executor;
    if (!executor) {
      void this.#process(conn, request, reg.processor, ctx, bytes, null);
      return;
    }
    const task: ExecutorTask = {
      createTimestamp: executor.now(),
      run: () => void this.#process(conn, request, reg.processor, ctx, bytes, executor),
      reject: (remark) => {
        this.#release(conn, bytes);
        if (!request.isOneway) ctx.writeResponse(RemotingCommand.createResponse(request, ResponseCode.SYSTEM_BUSY, remark));
      },
    };
    if (!executor.submit(task)) {
      this.#release(conn, bytes);
      this.logger.warn({ remoteAddr: conn.remoteAddress, code: request.code, executor: executor.name, size: executor.size },
        'request executor full, answering SYSTEM_BUSY');
      ctx.writeResponse(RemotingCommand.createResponse(request, ResponseCode.SYSTEM_BUSY, OVERLOAD_REMARK));
    }
  }

  #release(conn: Connection, bytes: number): void {
    conn.inflight--;
    conn.inflightBytes -= bytes;
    this.#inflightBytes -= bytes;
  }

  async #process(conn: Connection, request: RemotingCommand, processor: RemotingProcessor, ctx: RequestContext,
    bytes: number, executor: RequestExecutor | null): Promise<void> {
    const remoteAddr = conn.remoteAddress;
    try {
      this.runBefore(remoteAddr, request);
      const response = await processor(request, ctx);
      this.runAfter(remoteAddr, request, response);
      if (response && !request.isOneway) {
        if (!ctx.writeResponse(response) && !conn.isActive) {
          this.logger.warn({ remoteAddr, code: request.code }, 'process request over, but the channel is closed');
        }
      }
    } catch (err) {
      this.logger.error({ err, remoteAddr, code: request.code }, 'process request exception');
      if (!request.isOneway && !ctx.answered) {
        ctx.writeResponse(RemotingCommand.createResponse(request, ResponseCode.SYSTEM_ERROR, errorRemark(err)));
      }
    } finally {
      this.#release(conn, bytes);
      executor?.done();
    }
  }
}
