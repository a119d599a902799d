/**
 * The invocation surface the per-family request functions use (MQClientAPI is one), and `call`: send one request
 * module's command and parse its answer. A new request code needs its module in protocol/requests/ and, on the
 * client, `call(api, addr, TheRequest, values, timeoutMillis)`; no new MQClientAPI method.
 */
import type { RemotingCommand } from '../../protocol/remoting-command';
import type { RequestType } from '../../protocol/requests/request';

export interface RequestInvoker {
  readonly language: string;
  invoke(addr: string, request: RemotingCommand, timeoutMillis: number): Promise<RemotingCommand>;
  invokeOneway(addr: string, request: RemotingCommand, timeoutMillis: number): Promise<void>;
}

/** Sends `type`'s request with these header values (and body) to `addr`; resolves with what `type.parse` makes of the answer. */
export async function call<Req, Res, Out>(
  api: RequestInvoker, addr: string, type: RequestType<Req, Res, Out>, values: Req, timeoutMillis: number, body?: Buffer | null,
): Promise<Out> {
  const response = await api.invoke(addr, type.request(values, body), timeoutMillis);
  return type.parse(response, addr);
}

/** Sends `type`'s request oneway; resolves once written. */
export function callOneway<Req, Res, Out>(
  api: RequestInvoker, addr: string, type: RequestType<Req, Res, Out>, values: Req, timeoutMillis: number, body?: Buffer | null,
): Promise<void> {
  return api.invokeOneway(addr, type.request(values, body), timeoutMillis);
}
