/**
 * The RocketMQ 5.x gRPC endpoint of the broker (apache.rocketmq.v2.MessagingService on grpcServerPort), as Java
 * 5.3.3's proxy serves it in local mode: every RPC becomes calls of the broker's own processors through
 * lib/grpc's activities, and errors become in-band statuses of the proxy's codes. Started and stopped by the
 * broker as one of its services (lib/broker/grpc-endpoint.ts loads it only when grpcServerPort is set).
 *
 * TLS follows the broker's TLS settings (tls.server.mode: disabled → plain HTTP/2 only; permissive → TLS and plain
 * on the same port, told apart by the first byte; enforcing → TLS only; see grpc-tls-listener.ts). With the broker's
 * aclEnable=true, every request (each Telemetry command too) is checked against its plain_acl.yml accounts before it
 * runs (grpc-access-validator.ts); a refusal is the in-band status UNAUTHORIZED.
 *
 * @see org.apache.rocketmq.proxy.grpc.v2.GrpcMessagingApplication
 * @see org.apache.rocketmq.proxy.grpc.v2.DefaultGrpcMessingActivity
 */
import type * as GrpcJs from '@grpc/grpc-js';
import { isClientErrorCode } from '../../protocol/grpc/code';
import { GrpcProxyError } from '../errors';
import { componentLogger, type Logger } from '../logger';
import type { ActivityContext } from './activity-context';
import { ClientActivity } from './client-activity';
import { ConsumerAckActivities } from './consumer-ack-activities';
import { ConsumerProcessor } from './consumer-processor';
import type { GrpcBrokerPort } from './grpc-broker-port';
import { GrpcChannelManager } from './grpc-channel-manager';
import type { GrpcClientChannel } from './grpc-client-channel';
import { GrpcClientSettingsManager } from './grpc-client-settings-manager';
import { loadGrpc } from './grpc-loader';
import { DEFAULT_GRPC_PROXY_CONFIG, type GrpcProxyConfig } from './grpc-proxy-config';
import { LocalInvoker } from './local-invoker';
import type { EndTransactionRequest, TelemetryCommand } from './pb';
import { AUTHORIZATION, DATE_TIME, GrpcAccessValidator, type GrpcRpcName, SESSION_TOKEN } from './grpc-access-validator';
import { GrpcTlsListener } from './grpc-tls-listener';
import { DEFAULT_TLS_SYSTEM_CONFIG, TlsMode, type TlsSystemConfig, withTlsConfigFile } from '../transport/tls-system-config';
import type { ProxyContext } from './proxy-context';
import { ReceiveMessageActivity, type ReceiveMessageResponse, toClientMessage } from './receive-message-activity';
import { buildStatusOfError } from './response-builder';
import { RouteActivity } from './route-activity';
import { SendMessageActivity } from './send-message-activity';
import { EndTransactionActivity } from './end-transaction-activity';
import { TransactionService } from './transaction-service';
import { ReceiptHandleManager } from './receipt-handle-manager';

export interface GrpcMessagingApplicationOptions {
  /** The port to listen on (0: any free port). */
  port: number;
  /** @default "0.0.0.0" */
  bindAddress?: string;
  /**
   * TLS settings with Java's names (the broker passes its own: tls.server.mode, tls.test.mode.enable,
   * tls.server.certPath / keyPath / keyPassword, tls.config.file). Default: Java's, permissive with a self-signed
   * certificate (test mode). Client certificates are neither asked for nor checked, as Java's proxy.
   */
  tls?: Partial<TlsSystemConfig>;
  config?: Partial<GrpcProxyConfig>;
  logger?: Logger;
  /** How often settings of consumers no longer in their group are dropped (GrpcClientSettingsManager's cleaner). */
  settingsCleanIntervalMillis?: number;
}


function header(metadata: GrpcJs.Metadata, key: string): string {
  const v = metadata.get(key)[0];
  return v === undefined ? '' : String(v);
}

/** "ipv4:1.2.3.4:5" / "1.2.3.4:5" / "[::1]:5" → "1.2.3.4:5". */
function peerAddress(peer: string): string {
  return peer.replace(/^ipv[46]:/, '');
}

export class GrpcMessagingApplication {
  readonly logger: Logger;
  readonly config: GrpcProxyConfig;
  readonly settings: GrpcClientSettingsManager;
  readonly channels: GrpcChannelManager;
  readonly transactions: TransactionService;
  readonly receiptHandles: ReceiptHandleManager;
  readonly #a: ActivityContext;
  readonly #route: RouteActivity;
  readonly #client: ClientActivity;
  readonly #send: SendMessageActivity;
  readonly #receive: ReceiveMessageActivity;
  readonly #ack: ConsumerAckActivities;
  readonly #endTransaction: EndTransactionActivity;
  readonly #telemetryCalls = new Set<GrpcJs.ServerDuplexStream<TelemetryCommand, TelemetryCommand>>();
  #server: GrpcJs.Server | null = null;
  #tlsListener: GrpcTlsListener | null = null;
  /** The ACL check when the broker has one (aclEnable=true). */
  readonly #acl: GrpcAccessValidator | null;
  #port = 0;
  #openReceiveCalls = 0;
  #cleaner: NodeJS.Timeout | null = null;
  #starting: Promise<void> | null = null;
  #stopping: Promise<void> | null = null;

  constructor(private readonly broker: GrpcBrokerPort, private readonly options: GrpcMessagingApplicationOptions) {
    // Now, not at start: a broker configured for gRPC without @grpc/grpc-js fails when it is made (ConfigError).
    loadGrpc();
    this.logger = componentLogger('grpc', options.logger ?? broker.logger);
    this.config = { ...DEFAULT_GRPC_PROXY_CONFIG, ...options.config };
    this.settings = new GrpcClientSettingsManager(broker, this.config);
    this.transactions = new TransactionService(() => broker.brokerConfig.brokerName, this.config);
    const transactions = this.transactions;
    const logger = this.logger;
    this.channels = new GrpcChannelManager({
      logger,
      processCheckTransactionState: (header, messageExt) => transactions.processCheckTransactionState(header, messageExt),
      onSendCheckTransactionStateFailed: (group, data) => transactions.onSendCheckTransactionStateFailed(group, data),
      buildMessage: (messageExt) => toClientMessage(messageExt, logger),
    });
    this.#a = {
      broker, config: this.config, settings: this.settings, channels: this.channels, invoker: new LocalInvoker(broker),
      logger: this.logger, grpcPort: () => this.#port,
    };
    const consumer = new ConsumerProcessor(this.#a);
    this.receiptHandles = new ReceiptHandleManager(this.#a, consumer);
    this.#route = new RouteActivity(this.#a);
    this.#client = new ClientActivity(this.#a, this.receiptHandles);
    this.#send = new SendMessageActivity(this.#a, this.transactions);
    this.#endTransaction = new EndTransactionActivity(this.#a, this.transactions);
    this.#receive = new ReceiveMessageActivity(this.#a, consumer, this.receiptHandles);
    this.#ack = new ConsumerAckActivities(this.#a, consumer, this.receiptHandles);
    this.#acl = broker.accessValidator ? new GrpcAccessValidator(broker.accessValidator) : null;
  }

  /** The port listened on (0 before start). */
  get port(): number {
    return this.#port;
  }

  /** ReceiveMessage calls neither answered nor cancelled by their client yet (held long polls included). */
  get openReceiveCalls(): number {
    return this.#openReceiveCalls;
  }

  start(): Promise<void> {
    this.#starting ??= this.#start();
    return this.#starting;
  }

  async #start(): Promise<void> {
    const { grpc, messagingService } = loadGrpc();
    const server = new grpc.Server({ 'grpc.max_receive_message_length': this.config.maxMessageSize + 1024 * 1024 });
    server.addService(messagingService, this.#handlers());
    const tls = await withTlsConfigFile({ ...DEFAULT_TLS_SYSTEM_CONFIG, ...this.options.tls });
    const bindAddress = this.options.bindAddress ?? '0.0.0.0';
    try {
      if (tls.tlsMode === TlsMode.DISABLED) {
        // Plain HTTP/2 only: grpc-js listens itself.
        const bind = bindAddress.includes(':') ? `[${bindAddress}]:${this.options.port}` : `${bindAddress}:${this.options.port}`;
        this.#port = await new Promise<number>((resolve, reject) => {
          server.bindAsync(bind, grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port)));
        });
      } else {
        this.#tlsListener = new GrpcTlsListener({
          grpc, server, tls, port: this.options.port, bindAddress, logger: this.logger,
          firstByteTimeoutMillis: this.config.grpcClientIdleTimeMills,
        });
        this.#port = await this.#tlsListener.listen();
      }
    } catch (err) {
      // A port in use or an unreadable certificate: nothing stays open.
      const listenerClosed = this.#tlsListener?.close();
      server.forceShutdown();
      await listenerClosed;
      this.#tlsListener = null;
      throw err;
    }
    this.#server = server;
    this.transactions.start();
    this.receiptHandles.start();
    const interval = this.options.settingsCleanIntervalMillis ?? 5000;
    this.#cleaner = setInterval(() => this.#cleanSettings(), interval);
    this.#cleaner.unref();
    this.logger.info({ grpcPort: this.#port, tlsMode: tls.tlsMode, acl: this.#acl !== null }, 'gRPC endpoint started');
  }

  shutdown(): Promise<void> {
    this.#stopping ??= this.#shutdown();
    return this.#stopping;
  }

  async #shutdown(): Promise<void> {
    await this.#starting?.catch(() => undefined);
    if (this.#cleaner) clearInterval(this.#cleaner);
    this.#cleaner = null;
    this.transactions.shutdown();
    // Messages still renewed for push consumers are made visible again soon (the broker still runs).
    await this.receiptHandles.shutdown();
    for (const call of this.#telemetryCalls) call.end();
    this.#telemetryCalls.clear();
    for (const c of this.channels.channels()) c.close();
    // Held receives are cancelled: the broker's POP long polling answers them as it stops.
    // With TLS on: stop accepting first, then grpc-js ends every session (TLS or plain, also those with a stream
    // still open, which a graceful close would wait for), then the listener closes what is left (TLS handshakes
    // in progress) and waits for its port to close.
    const listenerClosed = this.#tlsListener?.close();
    this.#server?.forceShutdown();
    this.#server = null;
    await listenerClosed;
    this.#tlsListener = null;
    this.logger.info({ grpcPort: this.#port }, 'gRPC endpoint shut down');
  }

  /**
   * Drops the settings of consumers their group no longer lists (GrpcClientSettingsManager.onWaitEnd), and the
   * channels of clients without settings (gone, or never registered).
   */
  #cleanSettings(): void {
    for (const clientId of this.settings.clientIds()) {
      const s = this.settings.getRawClientSettings(clientId);
      if (!s || (s.clientType !== 'PUSH_CONSUMER' && s.clientType !== 'SIMPLE_CONSUMER')) continue;
      const info = this.broker.consumerManager.getConsumerGroupInfo(s.subscription?.group?.name ?? '');
      if (!info || !info.findChannel(clientId)) {
        this.logger.info({ clientId }, 'remove unused grpc client settings');
        this.settings.removeAndGetRawClientSettings(clientId);
      }
    }
    for (const channel of this.channels.channels()) {
      if (!this.settings.getRawClientSettings(channel.clientId)) this.channels.removeChannel(channel.clientId)?.close();
    }
  }

  #context(call: { metadata: GrpcJs.Metadata; getPeer(): string; getDeadline(): GrpcJs.Deadline }): ProxyContext {
    const deadline = call.getDeadline();
    const d = deadline instanceof Date ? deadline.getTime() : Number(deadline);
    return {
      clientId: header(call.metadata, 'x-mq-client-id'),
      language: header(call.metadata, 'x-mq-language'),
      clientVersion: header(call.metadata, 'x-mq-client-version'),
      namespace: header(call.metadata, 'x-mq-namespace'),
      remoteAddress: peerAddress(call.getPeer()),
      localAddress: `${this.broker.brokerConfig.brokerIP1}:${this.#port}`,
      deadline: Number.isFinite(d) ? d : Infinity,
    };
  }

  /**
   * The request pipeline's authentication and authorization (5.3.3 GrpcMessagingApplication.addExecutor runs them
   * before validateContext): with ACL on, the request must be signed by an account allowed to do it.
   */
  #checkAccess(rpc: GrpcRpcName, ctx: ProxyContext, metadata: GrpcJs.Metadata, request: unknown): void {
    if (!this.#acl) return;
    this.#acl.check(rpc, {
      remoteAddress: ctx.remoteAddress,
      authorization: header(metadata, AUTHORIZATION) || null,
      datetime: header(metadata, DATE_TIME) || null,
      sessionToken: header(metadata, SESSION_TOKEN) || null,
    }, request);
  }

  /** GrpcMessagingApplication.validateContext: every RPC names its client. */
  #validateContext(ctx: ProxyContext): void {
    if (!ctx.clientId.trim()) throw new GrpcProxyError('CLIENT_ID_REQUIRED', 'rpc header x-mq-client-id is required');
  }

  #channel(ctx: ProxyContext): GrpcClientChannel {
    return this.channels.getChannel(ctx.clientId) ?? this.channels.createChannel(ctx);
  }

  /** A unary RPC: its answer, or on failure the same response type carrying the error's status. */
  #unary<Req>(name: GrpcRpcName, run: (ctx: ProxyContext, req: Req) => Promise<object> | object): GrpcJs.handleUnaryCall<Req, object> {
    return (call, callback) => {
      let ctx: ProxyContext;
      Promise.resolve().then(() => {
        ctx = this.#context(call);
        this.#checkAccess(name, ctx, call.metadata, call.request);
        this.#validateContext(ctx);
        return run(ctx, call.request);
      }).then((response) => callback(null, response), (err: unknown) => {
        this.logger.debug({ err, rpc: name }, 'gRPC request failed');
        callback(null, { status: buildStatusOfError(err, this.logger) });
      });
    };
  }

  #handlers(): GrpcJs.UntypedServiceImplementation {
    const handlers: Record<string, unknown> = {
      queryRoute: this.#unary('QueryRoute', (_ctx, req: Parameters<RouteActivity['queryRoute']>[0]) => this.#route.queryRoute(req)),
      heartbeat: this.#unary('Heartbeat', (ctx, req: Parameters<ClientActivity['heartbeat']>[1]) => this.#client.heartbeat(ctx, req)),
      sendMessage: this.#unary('SendMessage', (ctx, req: Parameters<SendMessageActivity['sendMessage']>[1]) =>
        this.#send.sendMessage(ctx, req, this.#channel(ctx))),
      queryAssignment: this.#unary('QueryAssignment', (_ctx, req: Parameters<RouteActivity['queryAssignment']>[0]) =>
        this.#route.queryAssignment(req)),
      receiveMessage: (call: GrpcJs.ServerWritableStream<Parameters<ReceiveMessageActivity['receiveMessage']>[1], ReceiveMessageResponse>) => {
        // grpc-js says 'cancelled' once per call: when its client cancels it, or once its status is out.
        this.#openReceiveCalls++;
        call.once('cancelled', () => this.#openReceiveCalls--);
        const stream = {
          write: (r: ReceiveMessageResponse) => call.write(r),
          end: () => call.end(),
          get cancelled() {
            return call.cancelled;
          },
        };
        let ctx: ProxyContext;
        try {
          ctx = this.#context(call);
          this.#checkAccess('ReceiveMessage', ctx, call.metadata, call.request);
          this.#validateContext(ctx);
        } catch (err) {
          stream.write({ status: buildStatusOfError(err, this.logger) });
          stream.end();
          return;
        }
        void this.#receive.receiveMessage(ctx, call.request, stream, this.#channel(ctx));
      },
      ackMessage: this.#unary('AckMessage', (ctx, req: Parameters<ConsumerAckActivities['ackMessage']>[0]) =>
        this.#ack.ackMessage(req, this.#channel(ctx))),
      forwardMessageToDeadLetterQueue: this.#unary('ForwardMessageToDeadLetterQueue',
        (ctx, req: Parameters<ConsumerAckActivities['forwardMessageToDeadLetterQueue']>[0]) => this.#ack.forwardMessageToDeadLetterQueue(req, this.#channel(ctx))),
      changeInvisibleDuration: this.#unary('ChangeInvisibleDuration',
        (ctx, req: Parameters<ConsumerAckActivities['changeInvisibleDuration']>[0]) => this.#ack.changeInvisibleDuration(req, this.#channel(ctx))),
      notifyClientTermination: this.#unary('NotifyClientTermination',
        (ctx, req: Parameters<ClientActivity['notifyClientTermination']>[1]) => this.#client.notifyClientTermination(ctx, req)),
      endTransaction: this.#unary('EndTransaction', (ctx, req: EndTransactionRequest) => this.#endTransaction.endTransaction(req, this.#channel(ctx))),
      recallMessage: this.#unary('RecallMessage', () => {
        throw new GrpcProxyError('NOT_IMPLEMENTED', 'recall message is not supported');
      }),
      telemetry: (call: GrpcJs.ServerDuplexStream<TelemetryCommand, TelemetryCommand>) => this.#telemetry(call),
    };
    return handlers as GrpcJs.UntypedServiceImplementation;
  }

  #telemetry(call: GrpcJs.ServerDuplexStream<TelemetryCommand, TelemetryCommand>): void {
    this.#telemetryCalls.add(call);
    const { grpc } = loadGrpc();
    let ctx: ProxyContext;
    try {
      ctx = this.#context(call);
      this.#validateContext(ctx);
    } catch (err) {
      call.emit('error', { code: grpc.status.INVALID_ARGUMENT, details: (err as Error).message });
      return;
    }
    let open = true;
    const writer = { write: (c: TelemetryCommand) => (open ? call.write(c) : false) };
    call.on('data', (cmd: TelemetryCommand) => {
      if (!open) return;
      try {
        this.#checkAccess('Telemetry', ctx, call.metadata, cmd);
      } catch (err) {
        // As 5.3.3's writeResponse: the status as a command, then the stream completed.
        this.logger.debug({ err, clientId: ctx.clientId }, 'telemetry command refused');
        const status = buildStatusOfError(err, this.logger);
        close();
        call.write({ status });
        call.end();
        return;
      }
      try {
        this.#client.onTelemetryCommand(ctx, cmd, writer);
      } catch (err) {
        // ClientActivity.processTelemetryException: a client error (40000-49999) is INVALID_ARGUMENT, the rest INTERNAL.
        const code = err instanceof GrpcProxyError && isClientErrorCode(err.code) ? grpc.status.INVALID_ARGUMENT : grpc.status.INTERNAL;
        if (code === grpc.status.INTERNAL) this.logger.warn({ err, clientId: ctx.clientId }, 'process client telemetryCommand failed');
        open = false;
        call.emit('error', { code, details: `process client telemetryCommand failed. ${(err as Error).message}` });
      }
    });
    // Whether this stream was the one commands to the client went to when it closed.
    let wasCurrent = false;
    const close = () => {
      if (!open) return;
      open = false;
      this.#telemetryCalls.delete(call);
      const channel = this.channels.getChannel(ctx.clientId);
      wasCurrent = channel?.isClientObserver(writer) === true;
      channel?.clearClientObserver(writer);
    };
    call.on('end', () => {
      close();
      call.end();
    });
    // Cancelled: the client's connection is gone (a killed client). A consumer leaves its group at once and what it
    // held is visible again after invisibleTimeMillisWhenClear, rather than after its channel expires (2 min).
    // grpc-js reports every call 'cancelled' once: when its connection goes (after an 'end'), and after its status
    // went out (the client half-closed it). Either way the stream is gone; a client that terminated cleanly was
    // already removed by its NotifyClientTermination (5.x clients send it before closing their streams), and one
    // with another stream open (or that opens one, re-sending its settings) is still there.
    call.on('cancelled', () => {
      close();
      if (!wasCurrent || this.#stopping) return;
      for (const other of this.#telemetryCalls) if (header(other.metadata, 'x-mq-client-id') === ctx.clientId) return;
      this.#client.onClientGone(ctx);
    });
    call.on('error', (err: Error) => {
      this.logger.debug({ err, clientId: ctx.clientId }, 'telemetry on error');
      close();
    });
  }
}
