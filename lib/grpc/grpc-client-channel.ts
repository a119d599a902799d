/**
 * A gRPC client as the broker's client managers know it: a virtual channel (no socket of the remoting server) named
 * by the client's id, alive while its Telemetry stream is open, over which the broker's calls to the client travel
 * as TelemetryCommands: a CHECK_TRANSACTION_STATE the broker writes to it (Broker2Client) is recorded as
 * transaction data and sent to the producer as a RecoverOrphanedTransactionCommand with the half message.
 *
 * @see org.apache.rocketmq.proxy.grpc.v2.channel.GrpcClientChannel
 * @see org.apache.rocketmq.proxy.service.relay.ProxyChannel
 */
import { RequestCode } from '../../protocol/code/request-code';
import { CheckTransactionStateRequestHeader } from '../../protocol/header/check-transaction-state-request-header';
import { MessageConst } from '../../protocol/message/message-const';
import type { MessageExt } from '../../protocol/message/message';
import { decodeMessage } from '../../protocol/message/message-decoder';
import type { RemotingCommand } from '../../protocol/remoting-command';
import type { VirtualChannel } from '../broker/client-manager/virtual-channel';
import type { Logger } from '../logger';
import type { PbMessage, TelemetryCommand } from './pb';
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

  close(): void {
    this.#closed = true;
    this.#observer = null;
  }
}
