/**
 * The slave's connect to its master's HA port, bounded as Java's (RemotingHelper.connect: a blocking connect of at
 * most 5 s). Without a bound a connect made while the master is cut off hangs as long as the kernel retries its SYN
 * (about two minutes), and the slave, waiting on it, reconnects that long after the link is back.
 */
import net from 'node:net';

/** Java's RemotingHelper.connect(remote): connect(remote, 1000 * 5). */
export const HA_CONNECT_TIMEOUT_MILLIS = 5000;

/**
 * Connects to `host:port`; a socket not connected within `timeoutMillis` is destroyed (its 'close' follows) after
 * `onTimeout` is called.
 */
export function connectToMaster(host: string, port: number, onTimeout: () => void, timeoutMillis = HA_CONNECT_TIMEOUT_MILLIS): net.Socket {
  const socket = net.connect({ host, port });
  const timer = setTimeout(() => {
    if (socket.connecting && !socket.destroyed) {
      onTimeout();
      socket.destroy();
    }
  }, timeoutMillis);
  timer.unref();
  const clear = (): void => clearTimeout(timer);
  socket.once('connect', clear);
  socket.once('close', clear);
  return socket;
}
