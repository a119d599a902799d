/**
 * A fake broker at the request-module level: a RequestInvoker (what the consumers and the request functions of
 * lib/client/ take) that answers each request by its code, through the modules of protocol/requests/.
 *
 * Every request goes through the real frame codec and the module's request-header codec before its handler sees
 * the decoded values; the handler's answer is encoded with the module's response-header codec and goes back
 * through the frame codec, so a fake exercises the same header encode/decode the wire does. A code with no
 * handler is answered REQUEST_CODE_NOT_SUPPORTED, as a broker that does not know it.
 *
 *   const broker = new FakeBroker()
 *     .on(GetMaxOffset, () => ({ header: { offset: 9 } }))
 *     .on(PullMessage, (h) => ({ code: ResponseCode.PULL_NOT_FOUND, header: { nextBeginOffset: h.queueOffset, ... } }));
 */
import { ResponseCode } from '../../protocol/code/response-code';
import { RemotingCommand } from '../../protocol/remoting-command';
import { REQUEST_BY_CODE, type RequestType } from '../../protocol/requests/index';
import type { RequestInvoker } from '../../lib/client/request-invoker';

/** A handler's answer: SUCCESS unless `code` says otherwise; `header` goes through the module's response-header codec. */
export interface FakeAnswer<Res> {
  code?: number;
  remark?: string | null;
  header?: Res;
  body?: Buffer | null;
}

/** Answers one request: its decoded header values, the decoded command (body, remark...) and the address it was sent to. */
export type FakeHandler<Req, Res> = (values: Req, request: RemotingCommand, addr: string) => FakeAnswer<Res> | Promise<FakeAnswer<Res>>;

/** One request the fake broker received. */
export interface FakeBrokerCall {
  addr: string;
  code: number;
  name: string;
  oneway: boolean;
}

/** Through the frame codec and back: what a peer would decode. */
function overTheWire(command: RemotingCommand): RemotingCommand {
  return RemotingCommand.decode(command.encode().subarray(4));
}

export class FakeBroker implements RequestInvoker {
  readonly language: string;
  /** Every request received, in order. */
  readonly calls: FakeBrokerCall[] = [];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly #handlers = new Map<number, FakeHandler<any, any>>();

  constructor(language = 'JAVA') {
    this.language = language;
  }

  /** Answers `type`'s requests with `handler` (replacing an earlier one for the same code). */
  on<Req, Res, Out>(type: RequestType<Req, Res, Out>, handler: FakeHandler<Req, Res>): this {
    if (REQUEST_BY_CODE.get(type.code) !== type) throw new Error(`${type.name} is not in protocol/requests/index.ts`);
    this.#handlers.set(type.code, handler);
    return this;
  }

  async invoke(addr: string, request: RemotingCommand, _timeoutMillis: number): Promise<RemotingCommand> {
    return overTheWire(await this.#answer(addr, overTheWire(request), false));
  }

  async invokeOneway(addr: string, request: RemotingCommand, _timeoutMillis: number): Promise<void> {
    await this.#answer(addr, overTheWire(request), true);
  }

  async #answer(addr: string, request: RemotingCommand, oneway: boolean): Promise<RemotingCommand> {
    const type = REQUEST_BY_CODE.get(request.code);
    const handler = this.#handlers.get(request.code);
    this.calls.push({ addr, code: request.code, name: type?.name ?? String(request.code), oneway });
    if (!type || !handler) {
      return RemotingCommand.createResponse(request, ResponseCode.REQUEST_CODE_NOT_SUPPORTED, ` request type ${request.code} not supported`);
    }
    const a = await handler(type.requestHeader.decode(request.extFields), request, addr);
    const extFields = a.header === undefined ? null : type.responseHeader.encode(a.header);
    return RemotingCommand.createResponse(request, a.code ?? ResponseCode.SUCCESS, a.remark ?? null, extFields, a.body ?? null);
  }
}
