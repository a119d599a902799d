/**
 * Instrumentation events of the client layer, emitted to the emitter of every producer and consumer that uses
 * an MQClientInstance (see MQClientInstance.attachEmitter). Payloads are built only when someone listens.
 */
import type { CommunicationMode, SendStatus } from './send-result';

export interface ClientEvents extends Record<string, unknown> {
  /** A topic's route changed (or was first learned) from the name server. */
  'client.route_updated': { clientId: string; topic: string; brokerNames: string[]; queueCount: number };
  /** A heartbeat to a broker succeeded or failed. */
  'client.heartbeat': { clientId: string; brokerAddr: string; ok: boolean; error?: Error };
  /** The name server list changed (HTTP lookup or update). */
  'client.namesrv_changed': { clientId: string; namesrvAddr: string };
  /** A request got no answer in time. */
  'network.request_timeout': { clientId: string; addr: string; code: number; timeoutMillis: number };
  /** A request finished: answered (responseCode) or failed (error). size: request frame bytes. */
  'network.request': {
    clientId: string; addr: string; code: number; responseCode: number | null; durationMs: number; size: number; responseSize: number;
    error?: Error;
  };
  /** The queue of requests waiting for a slot (ClientConfig maxInflightRequests) changed length. */
  'network.request_queue_size': { clientId: string; size: number; maxInflightRequests: number };
}

export interface ProducerEvents extends ClientEvents {
  /** One send finished (after its retries), successfully or not. */
  'producer.send': {
    group: string;
    topic: string;
    mode: CommunicationMode;
    /** Messages sent (1, or the size of a batch). */
    count: number;
    durationMs: number;
    /** Attempts made (1 + retries). */
    attempts: number;
    brokerName?: string;
    queueId?: number;
    sendStatus?: SendStatus;
    msgId?: string;
    error?: Error;
  };
}
