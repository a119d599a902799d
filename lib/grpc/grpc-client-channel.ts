/**
 * A gRPC client as the broker's client managers know it: a virtual channel (no socket of the remoting server) named
 * by the client's id, alive while its Telemetry stream is open, over which the broker's calls to the client travel
 * as TelemetryCommands: a CHECK_TRANSACTION_STATE the broker writes to it (Broker2Client) is recorded as
 * transaction data and sent to the producer as a RecoverOrphanedTransactionCommand with the half message. The calls
 * the broker waits on go out with a nonce and are answered when the client's Telemetry answer with that nonce comes
 * back (ProxyRelayService): GET_CONSUMER_RUNNING_INFO with jstack as a PrintThreadStackTraceCommand (the answer: a
 * ConsumerRunningInfo holding the client's thread stack alone, as the proxy's), CONSUME_MESSAGE_DIRECTLY as a
 * VerifyMessageCommand with the message (the answer's status as the consume result, remark "from gRPC client").
 *
 * @see org.apache.rocketmq.proxy.grpc.v2.channel.GrpcClientChannel
 * @see org.apache.rocketmq.proxy.service.relay.ProxyChannel
 */
import { randomUUID } from 'node:crypto';
import { RequestCode } from '../../protocol/code/request-code';
import { ResponseCode } from '../../protocol/code/response-code';
import { CMResult, encodeConsumeMessageDirectlyResult } from '../../protocol/body/consume-message-directly-result';
import { encodeConsumerRunningInfo } from '../../protocol/body/consumer-running-info';
import { CheckTransactionStateRequestHeader } from '../../protocol/header/check-transaction-state-request-header';
import { GetConsumerRunningInfoRequestHeader } from '../../protocol/header/get-consumer-running-info-request-header';
import { MessageConst } from '../../protocol/message/message-const';
import type { MessageExt } from '../../protocol/message/message';
import { decodeMessage } from '../../protocol/message/message-decoder';
import { RemotingCommand } from '../../protocol/remoting-command';
import { RemotingSendRequestError, RemotingTimeoutError } from '../errors';
import type { VirtualChannel } from '../broker/client-manager/virtual-channel';
import type { Logger } from '../logger';
import type { PbMessage, PbStatus, TelemetryCommand } from './pb';
import type { TransactionData } from './transaction-data-manager';

let nextChannelId = -1;

/** Where the channel writes TelemetryCommands (the open Telemetry stream's call). */
export interface TelemetryWriter {
  write(command: TelemetryCommand): boolean;
}

/** What a channel relays the broker's calls through (Java's ProxyRelayService and GrpcConverter). */
export interface GrpcChannelRelay {
  readonly logger: Logger;
  processCheckTransactionState(header: CheckTransactionStateRequestHeader, messageExt: MessageExt): TransactionData;
  onSendCheckTransactionStateFailed(producerGroup: string, data: TransactionData): void;
  /** The message as the client is to read it. */
  buildMessage(messageExt: MessageExt): PbMessage;
}

export class GrpcClientChannel implements VirtualChannel {
  readonly virtual = true as const;
  readonly kind = 'grpc';
  /** Negative ids, apart from the remoting server's connection ids. */
  readonly id = nextChannelId--;
  #observer: TelemetryWriter | null = null;
  #closed = false;
  /** Broker calls waiting for the client's Telemetry answer, by nonce. */
  readonly #pending = new Map<string, { request: RemotingCommand; resolve(r: RemotingCommand): void; reject(e: Error): void; timer: NodeJS.Timeout }>();

  constructor(readonly clientId: string, readonly remoteAddress: string, readonly localAddress: string,
    private readonly relay: GrpcChannelRelay | null = null) {}

  get isActive(): boolean {
    return !this.#closed;
  }

  /** Whether `observer` is the stream commands to this client go to. */
  isClientObserver(observer: TelemetryWriter): boolean {
    return this.#observer === observer && !this.#closed;
  }

  /** The Telemetry stream commands to this client go to (the newest one the client opened). */
  setClientObserver(observer: TelemetryWriter | null): void {
    this.#observer = observer;
  }

  /** Forgets `observer` if it still is the current one (a stream that ended after a newer one opened is no matter). */
  clearClientObserver(observer: TelemetryWriter): void {
    if (this.#observer === observer) this.#observer = null;
  }

  /** Writes a command on the client's Telemetry stream; false when there is none (or it is closed). */
  writeTelemetryCommand(command: TelemetryCommand): boolean {
    if (!this.#observer || this.#closed) {
      this.relay?.logger.warn({ clientId: this.clientId, command: command.command }, 'telemetry command observer is null when try to write data');
      return false;
    }
    return this.#observer.write(command);
  }

  /**
   * A remoting request the broker sends to this client (ProxyChannel.writeAndFlush). CHECK_TRANSACTION_STATE
   * becomes a RecoverOrphanedTransactionCommand; the other calls are not relayed.
   */
  writeAndFlush(command: RemotingCommand): void {
    if (command.code !== RequestCode.CHECK_TRANSACTION_STATE || !this.relay) return;
    const relay = this.relay;
    let group = '';
    let data: TransactionData | null = null;
    try {
      const header = CheckTransactionStateRequestHeader.decode(command.extFields);
      const messageExt = decodeMessage(command.body ?? Buffer.alloc(0), 0, { decompressBody: false, copyBody: true, clientMsgId: false });
      group = messageExt.properties[MessageConst.PROPERTY_PRODUCER_GROUP] ?? '';
      data = relay.processCheckTransactionState(header, messageExt);
      this.writeTelemetryCommand({
        command: 'recoverOrphanedTransactionCommand',
        recoverOrphanedTransactionCommand: { transactionId: data.transactionId, message: relay.buildMessage(messageExt) },
      });
    } catch (err) {
      relay.logger.warn({ err, clientId: this.clientId }, 'relaying a transaction check to the client failed');
      if (data) relay.onSendCheckTransactionStateFailed(group, data);
    }
  }

  /**
   * A request of the broker that waits for the client's answer (Broker2Client.callClient): relayed as a Telemetry
   * command with a nonce; settles with the remoting answer built from the client's, or fails after `timeoutMillis`.
   */
  invoke(request: RemotingCommand, timeoutMillis: number): Promise<RemotingCommand> {
    let command: TelemetryCommand;
    if (request.code === RequestCode.GET_CONSUMER_RUNNING_INFO) {
      const header = GetConsumerRunningInfoRequestHeader.decode(request.extFields);
      // The proxy asks a gRPC client only for its thread stack (and leaves a request without jstack unanswered):
      // such a request is refused at once here.
      if (!header.jstackEnable) {
        return Promise.resolve(RemotingCommand.createResponse(request, ResponseCode.SYSTEM_ERROR,
          `the gRPC client ${this.clientId} gives its running info as a thread stack only: ask with jstack`));
      }
      command = { command: 'printThreadStackTraceCommand', printThreadStackTraceCommand: { nonce: '' } };
    } else if (request.code === RequestCode.CONSUME_MESSAGE_DIRECTLY && this.relay) {
      const messageExt = decodeMessage(request.body ?? Buffer.alloc(0), 0, { decompressBody: false, copyBody: true, clientMsgId: false });
      command = { command: 'verifyMessageCommand', verifyMessageCommand: { nonce: '', message: this.relay.buildMessage(messageExt) } };
    } else {
      return Promise.reject(new RemotingSendRequestError(this.remoteAddress, `request code ${request.code} is not relayed to the gRPC client ${this.clientId}`));
    }
    const nonce = randomUUID();
    if (command.printThreadStackTraceCommand) command.printThreadStackTraceCommand.nonce = nonce;
    if (command.verifyMessageCommand) command.verifyMessageCommand.nonce = nonce;
    return new Promise<RemotingCommand>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(nonce);
        reject(new RemotingTimeoutError(this.remoteAddress, timeoutMillis));
      }, timeoutMillis);
      this.#pending.set(nonce, { request, resolve, reject, timer });
      if (!this.writeTelemetryCommand(command)) {
        this.#settle(nonce)?.reject(new RemotingSendRequestError(this.remoteAddress, `the gRPC client ${this.clientId} has no Telemetry stream open`));
      }
    });
  }

  /** The client's ThreadStackTrace (ClientActivity.reportThreadStackTrace): answers the running-info call of its nonce. */
  onThreadStackTrace(status: PbStatus | null | undefined, nonce: string, threadStackTrace: string | undefined): void {
    const p = this.#settle(nonce);
    if (!p) return;
    const code = status?.code ?? 'OK';
    if (code === 'OK') {
      const body = encodeConsumerRunningInfo({
        properties: new Map(), subscriptionSet: [], mqTable: [], statusTable: new Map(), jstack: threadStackTrace ?? '',
      });
      p.resolve(RemotingCommand.createResponse(p.request, ResponseCode.SUCCESS, '', null, body));
    } else if (code === 'VERIFY_FIFO_MESSAGE_UNSUPPORTED') {
      p.resolve(RemotingCommand.createResponse(p.request, ResponseCode.NO_PERMISSION, 'forbidden to verify message'));
    } else {
      p.resolve(RemotingCommand.createResponse(p.request, ResponseCode.SYSTEM_ERROR, 'verify message failed'));
    }
  }

  /** The client's VerifyMessageResult (ClientActivity.reportVerifyMessageResult): the consume result from its status. */
  onVerifyMessageResult(status: PbStatus | null | undefined, nonce: string): void {
    const p = this.#settle(nonce);
    if (!p) return;
    const code = status?.code ?? 'OK';
    const consumeResult = code === 'OK' ? CMResult.CR_SUCCESS
      : code === 'FAILED_TO_CONSUME_MESSAGE' ? CMResult.CR_LATER
        : code === 'MESSAGE_CORRUPTED' ? CMResult.CR_RETURN_NULL : undefined;
    const body = encodeConsumeMessageDirectlyResult({ order: false, autoCommit: true, consumeResult, remark: 'from gRPC client', spentTimeMills: 0 });
    p.resolve(RemotingCommand.createResponse(p.request, ResponseCode.SUCCESS, '', null, body));
  }

  #settle(nonce: string) {
    const p = this.#pending.get(nonce);
    if (!p) return undefined;
    this.#pending.delete(nonce);
    clearTimeout(p.timer);
    return p;
  }

  close(): void {
    this.#closed = true;
    this.#observer = null;
    for (const nonce of [...this.#pending.keys()]) {
      this.#settle(nonce)?.reject(new RemotingSendRequestError(this.remoteAddress, `the gRPC client ${this.clientId} is gone`));
    }
  }
}
