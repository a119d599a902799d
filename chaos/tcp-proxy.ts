/**
 * A TCP proxy of our own for network faults between a client and the broker on one machine (no root, no netns):
 *   - `cutMidFrame()`: every open connection forwards half of its next chunk (either direction), then both sides get
 *     a RST (`resetAndDestroy`), so the peer sees a frame cut in the middle and a reset;
 *   - `halfOpen()`: every open connection silently stops forwarding in both directions, with no FIN and no RST (the
 *     peer's socket stays "established" while nothing arrives, as after a cable pull); new connections pass;
 *   - `delayMs`: every chunk is forwarded that much later (order kept), like `tc netem delay`.
 */
import * as net from 'node:net';

interface Pair {
  client: net.Socket;
  server: net.Socket;
  cut: boolean;
  dead: boolean;
}

export class ChaosProxy {
  delayMs = 0;
  readonly #pairs = new Set<Pair>();
  readonly #server: net.Server;
  port = 0;
  /** Connections accepted, cut and black-holed so far. */
  readonly stats = { accepted: 0, cut: 0, halfOpen: 0 };

  constructor(readonly listenHost: string, readonly targetHost: string, public targetPort = 0) {
    this.#server = net.createServer((client) => this.#accept(client));
  }

  listen(port = 0): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, this.listenHost, () => {
        this.port = (this.#server.address() as net.AddressInfo).port;
        resolve(this.port);
      });
    });
  }

  #accept(client: net.Socket): void {
    this.stats.accepted++;
    const server = net.connect(this.targetPort, this.targetHost);
    const pair: Pair = { client, server, cut: false, dead: false };
    this.#pairs.add(pair);
    const close = (): void => {
      this.#pairs.delete(pair);
      client.destroy();
      server.destroy();
    };
    const pipe = (from: net.Socket, to: net.Socket): void => {
      from.on('data', (chunk: Buffer) => {
        if (pair.dead) return; // black-holed: swallowed, nothing sent back
        if (pair.cut) {
          pair.dead = true;
          this.#pairs.delete(pair);
          const half = chunk.subarray(0, Math.max(1, chunk.length >> 1));
          to.write(half, () => {
            to.resetAndDestroy();
            from.resetAndDestroy();
          });
          return;
        }
        if (this.delayMs > 0) setTimeout(() => { if (!pair.dead && !to.destroyed) to.write(chunk); }, this.delayMs);
        else to.write(chunk);
      });
      // A black-holed pair keeps the client's socket open when the broker closes its side (its FIN is "lost" too).
      const onEnd = (): void => { if (!(pair.dead && !pair.cut && from === server)) close(); };
      from.on('error', onEnd);
      from.on('close', onEnd);
    };
    pipe(client, server);
    pipe(server, client);
  }

  /** Arms a mid-frame cut on every open connection; resolves with how many were armed. */
  cutMidFrame(): number {
    let n = 0;
    for (const p of this.#pairs) if (!p.dead && !p.cut) { p.cut = true; n++; }
    this.stats.cut += n;
    return n;
  }

  /** Black-holes every open connection (no FIN, no RST); new connections pass. */
  halfOpen(): number {
    let n = 0;
    for (const p of this.#pairs) {
      if (p.dead) continue;
      p.dead = true;
      n++;
    }
    this.stats.halfOpen += n;
    return n;
  }

  /** Open connections that still forward. */
  get liveConnections(): number {
    let n = 0;
    for (const p of this.#pairs) if (!p.dead) n++;
    return n;
  }

  async close(): Promise<void> {
    for (const p of this.#pairs) {
      p.client.destroy();
      p.server.destroy();
    }
    this.#pairs.clear();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
