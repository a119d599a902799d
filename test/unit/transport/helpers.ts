/**
 * Shared pieces of the transport tests: a started echo server, a raw socket peer, leak checks.
 */
import net from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { FrameDecoder } from '../../../protocol/frame';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { transportResources } from '../../../lib/transport/connection';
import { waitFor } from '../../helpers/wait-for';

export const ECHO = 1000;
export const NEVER_ANSWER = 1001;
export const THROWS = 1002;

/** TCP handles (sockets and servers) currently open in this process. */
export function tcpHandles(): number {
  return process.getActiveResourcesInfo().filter((r) => r.startsWith('TCP')).length;
}

export { waitFor };

/** Waits until no transport connection or timer is left and TCP handles are back to `baseline`. */
export async function expectNoLeaks(baseline: number): Promise<void> {
  await waitFor(() => {
    const r = transportResources();
    return r.connections === 0 && r.timers === 0 && tcpHandles() <= baseline;
  }, 3000, `no leftovers (resources ${JSON.stringify(transportResources())}, tcp ${tcpHandles()} > ${baseline})`);
}

/** A pino logger that keeps parsed records in memory. */
export function memoryLogger(): { logger: pino.Logger; records: Record<string, unknown>[] } {
  const records: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) records.push(JSON.parse(line));
      cb();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), records };
}

/** A plain socket that speaks frames by hand. */
export class RawPeer {
  readonly received: RemotingCommand[] = [];
  closed = false;
  private readonly decoder = new FrameDecoder((p) => this.received.push(RemotingCommand.decode(p)));

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => this.decoder.push(chunk));
    socket.on('close', () => (this.closed = true));
    socket.on('error', () => undefined);
  }

  static connect(port: number): Promise<RawPeer> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: '127.0.0.1', port }, () => resolve(new RawPeer(socket)));
      socket.once('error', reject);
    });
  }

  write(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  destroy(): void {
    this.socket.destroy();
  }
}
