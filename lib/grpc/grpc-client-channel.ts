/**
 * A gRPC client as the broker's client managers know it: a virtual channel (no socket of the remoting server) named
 * by the client's id, alive while its Telemetry stream is open, over which the broker's calls to the client travel
 * as TelemetryCommands.
 *
 * @see org.apache.rocketmq.proxy.grpc.v2.channel.GrpcClientChannel
 */
import type { VirtualChannel } from '../broker/client-manager/virtual-channel';
import type { TelemetryCommand } from './pb';

let nextChannelId = -1;

/** Where the channel writes TelemetryCommands (the open Telemetry stream's call). */
export interface TelemetryWriter {
  write(command: TelemetryCommand): boolean;
}

export class GrpcClientChannel implements VirtualChannel {
  readonly virtual = true as const;
  readonly kind = 'grpc';
  /** Negative ids, apart from the remoting server's connection ids. */
  readonly id = nextChannelId--;
  #observer: TelemetryWriter | null = null;
  #closed = false;

  constructor(readonly clientId: string, readonly remoteAddress: string, readonly localAddress: string) {}

  get isActive(): boolean {
    return !this.#closed;
  }

  /** The Telemetry stream commands to this client go to (the newest one the client opened). */
  setClientObserver(observer: TelemetryWriter | null): void {
    this.#observer = observer;
  }

  /** Writes a command on the client's Telemetry stream; false when there is none (or it is closed). */
  writeTelemetryCommand(command: TelemetryCommand): boolean {
    if (!this.#observer || this.#closed) return false;
    return this.#observer.write(command);
  }

  close(): void {
    this.#closed = true;
    this.#observer = null;
  }
}
